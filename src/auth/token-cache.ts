import { hash } from 'node:crypto';
import type { LRUCache } from 'lru-cache';
import type { Clock } from '../shared/clock';
import { clockedLru, lruTtl } from '../shared/lru';
import type { Caller } from './auth.types';

/** What a successful verification yields: who, and the token's own `exp` (epoch ms, no tolerance). */
export interface Verified {
  caller: Caller;
  expiresAtMs: number;
}

/** A successful verification, and the token's `nbf` as verification judged it (epoch ms with the tolerance applied), or 0. */
interface Entry {
  verified: Verified;
  notBeforeMs: number;
}

/**
 * Successful token verifications, so a client sending the same bearer token on every request pays the ES256
 * signature check once. Keyed by the SHA-256 of the whole token string (header, claims and
 * signature: a token with the same claims and another signature is another key and is verified on its own);
 * the token itself is never stored. Bounded LRU (lru-cache, on the injected clock); only successes are stored (a
 * refused token is checked again every time). An entry is used only before min(the token's own expiry as the
 * verifier judges it, cached at + maxAgeMs): expiry is refused exactly as without the cache, and a key removed from
 * a JWKS stops being honoured within maxAgeMs.
 */
export class TokenCache {
  /** null: the cache is off (`maxEntries` 0). */
  private readonly entries: LRUCache<string, Entry> | null;

  constructor(
    readonly maxEntries: number,
    private readonly maxAgeMs: number,
    private readonly clock: Clock,
  ) {
    this.entries = maxEntries > 0 ? clockedLru({ max: maxEntries, clock }) : null;
  }

  get enabled(): boolean {
    return this.entries !== null;
  }

  get size(): number {
    return this.entries?.size ?? 0;
  }

  static keyOf(token: string): string {
    return hash('sha256', token, 'base64url'); // one-shot: no Hash object per request
  }

  /** The cached verification while the entry is valid now; an expired entry is dropped. */
  get(key: string): Verified | null {
    const e = this.entries?.get(key); // an expired entry is dropped by lru-cache
    if (!e) return null;
    if (this.clock.nowMs() < e.notBeforeMs) {
      this.entries!.delete(key);
      return null;
    }
    return e.verified;
  }

  /** Kept from `nowMs`; `acceptedUntilMs`: the first instant at which the verifier would refuse the token as expired. */
  set(key: string, verified: Verified, nowMs: number, acceptedUntilMs: number, notBeforeMs: number): void {
    const ttl = lruTtl(Math.min(acceptedUntilMs, nowMs + this.maxAgeMs) - nowMs);
    if (!this.entries || ttl === null) return;
    this.entries.set(key, { verified, notBeforeMs }, { ttl, start: nowMs });
  }
}
