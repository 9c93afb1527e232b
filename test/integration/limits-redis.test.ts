/**
 * The Redis-backed paths of the abuse limits, against a real Redis: per-user rate limits shared by
 * every instance (one budget in Redis, also for mutations sent over graphql-ws), APQ registrations shared
 * through Redis with a TTL, and both failing open/soft when Redis is unreachable. Needs REDIS_URL; without
 * it the suite is skipped with a printed reason.
 */
import { createHash, randomUUID } from 'node:crypto';
import IORedis from 'ioredis';
import { RateLimiter } from '../../src/shared/rate-limit';
import { RedisKeyValueCache } from '../../src/graphql/apq';
import { gql, startTestApp, type TestApp } from '../helpers/app';
import { collect, wsClient } from '../helpers/ws';

const REDIS_URL = process.env.REDIS_URL;
if (!REDIS_URL) console.log('limits-redis.test.ts skipped: REDIS_URL is not set (e.g. REDIS_URL=redis://127.0.0.1:6379)');
const describeRedis = REDIS_URL ? describe : describe.skip;

describeRedis('Redis-backed rate limits and APQ', () => {
  let t: TestApp;
  let redis: IORedis;
  const run = randomUUID().slice(0, 8); // keys of this run only (the Redis may be shared)

  beforeAll(async () => {
    redis = new IORedis(REDIS_URL!, { maxRetriesPerRequest: 1 });
    t = await startTestApp({ REDIS_URL: REDIS_URL!, RATE_LIMIT_MUTATIONS_PER_MINUTE: '2', APQ_TTL_S: '120' });
  }, 90_000);
  afterAll(async () => {
    await t?.close();
    if (redis) {
      const keys = await redis.keys(`rbff:*${run}*`);
      if (keys.length) await redis.del(...keys);
      redis.disconnect();
    }
  });

  it('the upstream budget (several points per operation) and the per-IP budget are shared by instances through Redis', async () => {
    const rules = { upstream: { points: 100, durationS: 60 }, anonymous: { points: 2, durationS: 60 } };
    const a = new RateLimiter(rules, redis, `rbff:rl-test-${run}`);
    const b = new RateLimiter(rules, redis, `rbff:rl-test-${run}`);
    for (let i = 0; i < 6; i++) expect(await (i % 2 ? a : b).consume('upstream', 'u-budget', 15)).toEqual({ allowed: true });
    expect(await a.consume('upstream', 'u-budget', 15)).toEqual({ allowed: false, retryAfterSeconds: expect.any(Number) });
    expect(await b.consume('upstream', 'u-budget', 10)).toEqual({ allowed: false, retryAfterSeconds: expect.any(Number) });
    expect(await a.consume('anonymous', '203.0.113.7')).toEqual({ allowed: true });
    expect(await b.consume('anonymous', '203.0.113.7')).toEqual({ allowed: true });
    expect(await a.consume('anonymous', '203.0.113.7')).toEqual({ allowed: false, retryAfterSeconds: expect.any(Number) });
  });

  it('two limiters on one Redis (two instances) share one budget', async () => {
    const rules = { mutation: { points: 3, durationS: 60 } };
    const a = new RateLimiter(rules, redis, `rbff:rl-test-${run}`);
    const b = new RateLimiter(rules, redis, `rbff:rl-test-${run}`);
    expect(await a.consume('mutation', 'u1:createWallet')).toEqual({ allowed: true });
    expect(await b.consume('mutation', 'u1:createWallet')).toEqual({ allowed: true });
    expect(await a.consume('mutation', 'u1:createWallet')).toEqual({ allowed: true });
    const refused = await b.consume('mutation', 'u1:createWallet');
    expect(refused).toMatchObject({ allowed: false });
    expect((refused as { retryAfterSeconds: number }).retryAfterSeconds).toBeGreaterThanOrEqual(1);
    expect(await b.consume('mutation', 'u2:createWallet')).toEqual({ allowed: true }); // another caller
  });

  it('the service counts in Redis: HTTP and graphql-ws mutations of one caller draw on the same budget', async () => {
    const user = `redis-rl-${run}`;
    const token = await t.token(user, 'customer');
    const q = `mutation { startVerificationSession { id } }`;
    expect((await gql<any>(t.url, q, { token })).body.errors).toBeUndefined();
    expect(Number(await redis.get(`rbff:rl:mutation:${user}:startVerificationSession`))).toBe(1);

    const { client } = wsClient(t.wsUrl, token);
    try {
      const overWs = collect<any>(client, q);
      await overWs.next(1);
      expect(overWs.results[0]!.errors).toBeUndefined();
      expect(Number(await redis.get(`rbff:rl:mutation:${user}:startVerificationSession`))).toBe(2);
      const third = collect<any>(client, q);
      await third.next(1);
      const err = (third.error as any[] | undefined)?.[0] ?? third.results[0]?.errors?.[0];
      expect(err.extensions).toMatchObject({ code: 'RATE_LIMITED' });
      expect(err.extensions.retryAfterSeconds).toBeGreaterThanOrEqual(1);
    } finally {
      await client.dispose();
    }
    const http = await gql<any>(t.url, q, { token });
    expect(http.status).toBe(429);
    await redis.del(`rbff:rl:mutation:${user}:startVerificationSession`);
  });

  it('APQ: a registered query is stored in Redis with the TTL, so every instance finds it by hash', async () => {
    const query = `query Apq${run} { viewer { id } }`;
    const hash = createHash('sha256').update(query).digest('hex');
    const token = await t.token(`apq-${run}`, 'customer');
    const post = async (body: unknown) =>
      (await fetch(`${t.url}/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
        body: JSON.stringify(body),
      }).then((r) => r.json())) as any;
    const ext = { persistedQuery: { version: 1, sha256Hash: hash } };
    expect((await post({ extensions: ext })).errors[0].extensions.code).toBe('PERSISTED_QUERY_NOT_FOUND');
    expect((await post({ query, extensions: ext })).data.viewer.id).toBe(`apq-${run}`);
    const keys = await redis.keys(`rbff:apq:*${hash}`);
    expect(keys).toHaveLength(1);
    expect(await redis.get(keys[0]!)).toBe(query);
    const ttl = await redis.ttl(keys[0]!);
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(120);
    // what another instance sees: a fresh cache over the same Redis
    expect(await new RedisKeyValueCache(redis).get(keys[0]!)).toBe(query);
    expect((await post({ extensions: ext })).data.viewer.id).toBe(`apq-${run}`);
    await redis.del(keys[0]!);
    expect((await post({ extensions: ext })).errors[0].extensions.code).toBe('PERSISTED_QUERY_NOT_FOUND');
  });

  it('Redis unreachable: rate limits are counted in this process meanwhile, APQ reads are misses', async () => {
    const dead = new IORedis('redis://127.0.0.1:1', {
      lazyConnect: true,
      maxRetriesPerRequest: 0,
      enableOfflineQueue: false,
      retryStrategy: () => null,
    });
    dead.on('error', () => undefined);
    try {
      const limiter = new RateLimiter({ m: { points: 1, durationS: 60 } }, dead, `rbff:rl-dead-${run}`);
      expect(await limiter.consume('m', 'k')).toEqual({ allowed: true });
      expect(await limiter.consume('m', 'k')).toMatchObject({ allowed: false }); // this process's windows keep counting
      const cache = new RedisKeyValueCache(dead);
      await cache.set('k', 'v');
      expect(await cache.get('k')).toBeUndefined();
    } finally {
      dead.disconnect();
    }
  });
});
