import { ManualClock } from '../../src/shared/clock';
import { clockedLru, lruTtl } from '../../src/shared/lru';

describe('clockedLru (lru-cache on the injected clock)', () => {
  it('ends an entry when its age reaches ttlMs, judged by the clock at every read', () => {
    const clock = new ManualClock();
    const c = clockedLru<string, string>({ max: 10, ttlMs: 1000, clock });
    c.set('k', 'v');
    clock.advance(999);
    expect(c.get('k')).toBe('v');
    clock.advance(1); // no real time passes between the two reads
    expect(c.get('k')).toBeUndefined();
    expect(c.size).toBe(0);
  });

  it('takes a per-entry ttl and start, and keeps at most max entries, least recently used out first', () => {
    const clock = new ManualClock();
    const c = clockedLru<string, number>({ max: 2, clock });
    c.set('a', 1, { ttl: lruTtl(50)!, start: clock.nowMs() });
    c.set('b', 2);
    expect(c.get('a')).toBe(1);
    c.set('c', 3); // evicts b
    expect([c.get('a'), c.get('b'), c.get('c')]).toEqual([1, undefined, 3]);
    clock.advance(50);
    expect(c.get('a')).toBeUndefined();
    expect(c.get('c')).toBe(3); // no ttl: kept
  });

  it('has no lru-cache ttl for a time-to-live that leaves no later instant', () => {
    expect([lruTtl(0), lruTtl(1), lruTtl(2)]).toEqual([null, null, 1]);
    expect(() => clockedLru({ max: 1, ttlMs: 0, clock: new ManualClock() })).toThrow(RangeError);
  });
});
