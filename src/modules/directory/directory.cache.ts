import type { Clock } from '../../shared/clock';

/**
 * A small bounded cache with a time-to-live: at most `maxEntries` entries (the least recently used goes
 * first), each answered for `ttlMs` after it was stored. Values may be promises, so concurrent requests for
 * the same key share one upstream call. Per instance; directory data is the same for every caller.
 */
export class TtlCache<V> {
  private readonly entries = new Map<string, { value: V; expiresAtMs: number }>();

  constructor(
    private readonly opts: { ttlMs: number; maxEntries: number; clock: Clock },
  ) {}

  get(key: string): V | undefined {
    const e = this.entries.get(key);
    if (!e) return undefined;
    if (e.expiresAtMs <= this.opts.clock.nowMs()) {
      this.entries.delete(key);
      return undefined;
    }
    this.entries.delete(key); // refresh recency
    this.entries.set(key, e);
    return e.value;
  }

  set(key: string, value: V): void {
    this.entries.delete(key);
    this.entries.set(key, { value, expiresAtMs: this.opts.clock.nowMs() + this.opts.ttlMs });
    while (this.entries.size > this.opts.maxEntries) this.entries.delete(this.entries.keys().next().value as string);
  }

  delete(key: string): void {
    this.entries.delete(key);
  }

  get size(): number {
    return this.entries.size;
  }

  clear(): void {
    this.entries.clear();
  }
}
