import { createHash } from 'node:crypto';
import { Counter, type Registry } from 'prom-client';
import type { Caller } from './auth.types';

/** `auth_token_cache_total{outcome="hit"|"miss"}` on the service's registry (only while the cache is on). */
export const tokenCacheCounter = (registry: Registry) =>
  new Counter({
    name: 'auth_token_cache_total',
    help: 'Bearer token verifications answered from the verification cache (hit) or by checking the signature (miss)',
    labelNames: ['outcome'] as const,
    registers: [registry],
  });

/** What a successful verification yields: who, and the token's own `exp` (epoch ms, no tolerance). */
export interface Verified {
  caller: Caller;
  expiresAtMs: number;
}

/** A successful verification: who, and until when (epoch ms, judged with the injected clock) it may be reused. */
interface Entry {
  verified: Verified;
  /** Exclusive: the entry is used only while now < validUntilMs. */
  validUntilMs: number;
  /** The token's `nbf` as verification judged it (epoch ms with the tolerance applied), or 0. */
  notBeforeMs: number;
}

/**
 * Successful token verifications, so a client sending the same bearer token on every request pays the ES256
 * signature check once. Keyed by the SHA-256 of the whole token string (header, claims and
 * signature: a token with the same claims and another signature is another key and is verified on its own);
 * the token itself is never stored. Bounded LRU; only successes are stored (a refused token is checked again
 * every time). An entry is used only before min(the token's own expiry as the verifier judges it, cached at +
 * maxAgeMs): expiry is refused exactly as without the cache, and a key removed from a JWKS stops being honoured
 * within maxAgeMs.
 */
export class TokenCache {
  private readonly entries = new Map<string, Entry>();

  constructor(
    readonly maxEntries: number,
    private readonly maxAgeMs: number,
  ) {}

  get enabled(): boolean {
    return this.maxEntries > 0;
  }

  get size(): number {
    return this.entries.size;
  }

  static keyOf(token: string): string {
    return createHash('sha256').update(token).digest('base64url');
  }

  /** The cached verification while the entry is valid at `nowMs`; an expired entry is dropped. */
  get(key: string, nowMs: number): Verified | null {
    const e = this.entries.get(key);
    if (!e) return null;
    if (nowMs >= e.validUntilMs || nowMs < e.notBeforeMs) {
      this.entries.delete(key);
      return null;
    }
    // most recently used last
    this.entries.delete(key);
    this.entries.set(key, e);
    return e.verified;
  }

  /** `acceptedUntilMs`: the first instant at which the verifier would refuse the token as expired. */
  set(key: string, verified: Verified, nowMs: number, acceptedUntilMs: number, notBeforeMs: number): void {
    if (!this.enabled) return;
    const validUntilMs = Math.min(acceptedUntilMs, nowMs + this.maxAgeMs);
    if (validUntilMs <= nowMs) return;
    this.entries.delete(key);
    this.entries.set(key, { verified, validUntilMs, notBeforeMs });
    while (this.entries.size > this.maxEntries) this.entries.delete(this.entries.keys().next().value!);
  }
}
