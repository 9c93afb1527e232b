import { ManualClock } from '../../src/shared/clock';
import { TokenCache, normaliseScope } from '../../src/upstream/http/upstream.token-cache';

function cache(clock: ManualClock, opts: { lifetimeS?: number; marginS?: number; fail?: () => boolean } = {}) {
  let n = 0;
  const scopes: string[] = [];
  const c = new TokenCache({
    clock,
    marginMs: (opts.marginS ?? 60) * 1000,
    fetch: async (scope) => {
      scopes.push(scope);
      await new Promise((r) => setTimeout(r, 5));
      if (opts.fail?.()) throw new Error('token endpoint down');
      n++;
      return { accessToken: `t${n}`, expiresInS: opts.lifetimeS ?? 3600 };
    },
  });
  return { c, scopes, count: () => c.fetchCount };
}

describe('TokenCache', () => {
  it('single-flights 1,000 concurrent callers on a cold cache', async () => {
    const clock = new ManualClock();
    const { c, count } = cache(clock);
    const tokens = await Promise.all(Array.from({ length: 1000 }, () => c.get()));
    expect(new Set(tokens)).toEqual(new Set(['t1']));
    expect(count()).toBe(1);
  });

  it('refreshes once the clock enters the margin, not before', async () => {
    const clock = new ManualClock();
    const { c, count } = cache(clock, { lifetimeS: 600, marginS: 60 });
    expect(await c.get()).toBe('t1');
    clock.advance(539_000); // 61 s before expiry
    expect(await c.get()).toBe('t1');
    expect(count()).toBe(1);
    clock.advance(1_000); // exactly 60 s before expiry: inside the margin
    const again = await Promise.all(Array.from({ length: 100 }, () => c.get()));
    expect(new Set(again)).toEqual(new Set(['t2']));
    expect(count()).toBe(2);
  });

  it('keys by normalised scope', async () => {
    const clock = new ManualClock();
    const { c, scopes } = cache(clock);
    await Promise.all([c.get('sessions'), c.get('sessions'), c.get('verifications sessions'), c.get(['sessions', 'verifications'])]);
    expect(scopes.sort()).toEqual(['sessions', 'sessions verifications']);
    expect(normaliseScope(' b  a b ')).toBe('a b');
  });

  it('invalidate drops only the token that was rejected', async () => {
    const clock = new ManualClock();
    const { c, count } = cache(clock);
    const t1 = await c.get();
    c.invalidate(null, 'someone-elses-old-token');
    expect(await c.get()).toBe(t1);
    c.invalidate(null, t1);
    c.invalidate(null, t1);
    const [a, b] = await Promise.all([c.get(), c.get()]);
    expect(a).toBe('t2');
    expect(b).toBe('t2');
    expect(count()).toBe(2);
  });

  it('falls back to the still-valid old token when a refresh inside the margin fails, and fails once it expired', async () => {
    const clock = new ManualClock();
    let failing = false;
    const { c } = cache(clock, { lifetimeS: 600, marginS: 60, fail: () => failing });
    await c.get();
    failing = true;
    clock.advance(550_000);
    expect(await c.get()).toBe('t1');
    clock.advance(60_000);
    await expect(c.get()).rejects.toThrow('token endpoint down');
  });

  it('a synchronously failing fetch does not poison the in-flight slot', async () => {
    let calls = 0;
    const c = new TokenCache({
      clock: new ManualClock(),
      marginMs: 0,
      fetch: (() => {
        calls++;
        if (calls === 1) throw new Error('sync boom');
        return Promise.resolve({ accessToken: 'ok', expiresInS: 10 });
      }) as never,
    });
    await expect(c.get()).rejects.toThrow('sync boom');
    await new Promise((r) => setImmediate(r));
    expect(await c.get()).toBe('ok');
  });
});
