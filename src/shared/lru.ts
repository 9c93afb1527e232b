import { LRUCache } from 'lru-cache';
import type { Clock } from './clock';

/**
 * A bounded lru-cache (at most `max` entries, the least recently used out first) whose entries expire on the
 * injected clock: `perf` reads `clock.nowMs()`, and `ttlResolution: 0` reads it at every check (lru-cache otherwise
 * reuses one reading for a millisecond of real time, which would miss a ManualClock moved in between). `ttlMs`:
 * every entry's time-to-live (see `lruTtl`); without it, entries live until evicted or given their own `ttl`.
 */
export function clockedLru<K extends NonNullable<unknown>, V extends NonNullable<unknown>>(opts: {
  max: number;
  clock: Clock;
  ttlMs?: number;
}): LRUCache<K, V> {
  const { clock } = opts;
  const ttl = opts.ttlMs === undefined ? undefined : lruTtl(opts.ttlMs);
  if (ttl === null) throw new RangeError(`a time-to-live of ${opts.ttlMs} ms keeps nothing`);
  return new LRUCache<K, V>({ max: opts.max, ...(ttl ? { ttl } : {}), perf: { now: () => clock.nowMs() }, ttlResolution: 0 });
}

/**
 * lru-cache's `ttl` for an entry used while now < stored + `ms`: lru-cache keeps an entry while its age <= ttl, so on
 * whole-millisecond clocks that is `ms - 1`. null when no later instant is left (`ms` <= 1): such an entry is not kept.
 */
export function lruTtl(ms: number): number | null {
  return ms > 1 ? ms - 1 : null;
}
