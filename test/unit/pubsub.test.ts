import { MemoryPubSub, type PubSub } from '../../src/events/pubsub';
import { RedisPubSub } from '../../src/events/redis.pubsub';
import { createLogger } from '../../src/shared/logger';

const logger = createLogger({ level: 'silent' });
const redisUrl = process.env.REDIS_URL;

async function take<T>(it: AsyncIterableIterator<T>, n: number, timeoutMs = 3000): Promise<T[]> {
  const out: T[] = [];
  let t: NodeJS.Timeout | undefined;
  const timer = new Promise<never>((_, rej) => (t = setTimeout(() => rej(new Error(`timed out after ${out.length}/${n}`)), timeoutMs)));
  try {
    while (out.length < n) {
      const r = await Promise.race([it.next(), timer]);
      if (r.done) break;
      out.push(r.value);
    }
    return out;
  } finally {
    clearTimeout(t);
  }
}

function contract(name: string, make: () => Promise<{ a: PubSub; b: PubSub; flush: () => Promise<void>; close: () => Promise<void> }>) {
  describe(name, () => {
    it('delivers to every subscriber of a topic, in order, and only that topic', async () => {
      const { a, b, flush, close } = await make();
      try {
        const s1 = a.subscribe<{ n: number }>('t1');
        const s2 = b.subscribe<{ n: number }>('t1');
        const other = b.subscribe<{ n: number }>('t2');
        await flush();
        for (let n = 1; n <= 3; n++) await a.publish('t1', { n });
        expect((await take(s1, 3)).map((m) => m.n)).toEqual([1, 2, 3]);
        expect((await take(s2, 3)).map((m) => m.n)).toEqual([1, 2, 3]);
        await a.publish('t2', { n: 9 });
        expect(await take(other, 1)).toEqual([{ n: 9 }]);
        const before = b.subscriptionCount();
        await s2.return!();
        expect(b.subscriptionCount()).toBe(before - 1);
      } finally {
        await close();
      }
    });

    it('ends open iterators on close', async () => {
      const { a, close } = await make();
      const s = a.subscribe('t');
      const pending = s.next();
      await close();
      await expect(pending).resolves.toEqual({ value: undefined, done: true });
    });
  });
}

contract('MemoryPubSub', async () => {
  const ps = new MemoryPubSub();
  return { a: ps, b: ps, flush: async () => undefined, close: () => ps.close() };
});

if (redisUrl) {
  contract('RedisPubSub (two instances)', async () => {
    const prefix = `test-${process.pid}-${Date.now()}:`;
    const a = new RedisPubSub(redisUrl, logger, { prefix });
    const b = new RedisPubSub(redisUrl, logger, { prefix });
    await Promise.all([a.ready(), b.ready()]);
    return {
      a,
      b,
      flush: async () => {
        await a.flushSubscriptions();
        await b.flushSubscriptions();
      },
      close: async () => {
        await a.close();
        await b.close();
      },
    };
  });
} else {
  it.skip('RedisPubSub: skipped, REDIS_URL is not set', () => undefined);
  console.warn('RedisPubSub contract skipped: REDIS_URL is not set');
}
