import type { Clock } from '../../shared/clock';
import type { AuthProvider } from './upstream.caller';

/**
 * Bearer-token cache shared by every call of one client.
 *
 * - Keyed by scope (normalised: split on spaces, de-duplicated, sorted; '' = no scope requested).
 * - A token is used until `expiresAt - margin`; from then on the next caller refreshes it.
 * - Single flight: however many callers find the cache cold or expiring at the same moment, one token
 *   request is made and they all await it.
 * - If a refresh fails while the old token is still within its real lifetime (the margin window), the
 *   old token is returned instead of failing the call; the next call tries again.
 * - `invalidate(scope, token)` (on a 401) drops the token only if it is still the cached one, so a burst
 *   of 401s for the same stale token causes one refresh, not one per caller.
 */
interface FetchedToken {
  accessToken: string;
  /** Lifetime in seconds from issue. */
  expiresInS: number;
}

interface TokenCacheOptions {
  clock: Clock;
  /** Refresh this long before expiry. */
  marginMs: number;
  fetch: (scope: string) => Promise<FetchedToken>;
}

interface Entry {
  token: string;
  expiresAtMs: number;
}

export function normaliseScope(scope?: string | readonly string[] | null): string {
  if (!scope) return '';
  const parts = (typeof scope === 'string' ? scope.split(/\s+/) : [...scope]).filter(Boolean);
  return [...new Set(parts)].sort().join(' ');
}

export class TokenCache {
  private readonly entries = new Map<string, Entry>();
  private readonly inflight = new Map<string, Promise<string>>();
  /** Number of token requests started (observability and tests). */
  fetchCount = 0;

  constructor(private readonly opts: TokenCacheOptions) {}

  async get(scope?: string | readonly string[] | null): Promise<string> {
    const key = normaliseScope(scope);
    const now = this.opts.clock.nowMs();
    const entry = this.entries.get(key);
    if (entry && now < entry.expiresAtMs - this.opts.marginMs) return entry.token;
    return this.refresh(key);
  }

  /** The cached token of `scope` while it is fresh (nothing started), else undefined: `get` would refresh. */
  peek(scope?: string | readonly string[] | null): string | undefined {
    const entry = this.entries.get(normaliseScope(scope));
    return entry && this.opts.clock.nowMs() < entry.expiresAtMs - this.opts.marginMs ? entry.token : undefined;
  }

  /** Forget `token` for `scope` if it is still the cached one (after the upstream answered 401 to it). */
  invalidate(scope: string | readonly string[] | null | undefined, token: string): void {
    const key = normaliseScope(scope);
    if (this.entries.get(key)?.token === token) this.entries.delete(key);
  }

  clear(): void {
    this.entries.clear();
  }

  private refresh(key: string): Promise<string> {
    const running = this.inflight.get(key);
    if (running) return running;
    this.fetchCount++;
    const p = this.fetchAndStore(key);
    this.inflight.set(key, p);
    // Cleared asynchronously, after the promise is registered, even if fetch failed synchronously.
    p.finally(() => {
      if (this.inflight.get(key) === p) this.inflight.delete(key);
    }).catch(() => undefined);
    return p;
  }

  private async fetchAndStore(key: string): Promise<string> {
    // Lifetime counts from when we asked (conservative: the token was issued after that instant).
    const requestedAtMs = this.opts.clock.nowMs();
    try {
      const t = await this.opts.fetch(key);
      const expiresAtMs = requestedAtMs + t.expiresInS * 1000;
      this.entries.set(key, { token: t.accessToken, expiresAtMs });
      return t.accessToken;
    } catch (err) {
      const old = this.entries.get(key);
      if (old && this.opts.clock.nowMs() < old.expiresAtMs) return old.token;
      throw err;
    }
  }
}

/**
 * Bearer-token auth of one scope for the upstream caller: the cached token synchronously while fresh (`cached`, no
 * promise per call), else through `get` (refresh, single flight); a 401 invalidates the token it was sent with.
 */
export function bearerAuth(tokens: TokenCache, scope = ''): AuthProvider {
  let last: { token: string; headers: Record<string, string> } | null = null;
  const headersFor = (token: string) => {
    if (last?.token !== token) last = { token, headers: { authorization: `Bearer ${token}` } };
    return { headers: last.headers, token };
  };
  return {
    cached: () => {
      const token = tokens.peek(scope);
      return token === undefined ? undefined : headersFor(token);
    },
    headers: async () => headersFor(await tokens.get(scope)),
    invalidate: (token) => tokens.invalidate(scope, token),
  };
}
