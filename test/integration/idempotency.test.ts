import { IdempotencyService } from '../../src/db/idempotency.service';
import { canonicalJson } from '../../src/shared/json';
import { ManualClock } from '../../src/shared/clock';
import { createTestDatabase, type TestDatabase } from '../helpers/db';

let db: TestDatabase;
const clock = new ManualClock();
let svc: IdempotencyService;
beforeAll(async () => {
  db = await createTestDatabase();
  svc = new IdempotencyService(db.prisma, db.sql, clock, { ttlMs: 24 * 3600_000, waitMs: 2_000, staleAfterMs: 60_000, pollMs: 5 });
});
afterAll(() => db.close());

const scope = (key: string, caller = 'alice') => ({ caller, operation: 'op', key });

test('canonical JSON ignores key order', () => {
  expect(canonicalJson({ b: 1, a: { d: [1, { y: 2, x: 1 }], c: undefined } })).toBe(canonicalJson({ a: { d: [1, { x: 1, y: 2 }] }, b: 1 }));
});

test('same key + same args → stored result without running again; different args → IDEMPOTENCY_KEY_REUSED', async () => {
  let runs = 0;
  const fn = async () => ({ n: ++runs });
  expect(await svc.run(scope('k1'), { a: 1, b: 2 }, fn)).toEqual({ n: 1 });
  expect(await svc.run(scope('k1'), { b: 2, a: 1 }, fn)).toEqual({ n: 1 });
  await expect(svc.run(scope('k1'), { a: 2 }, fn)).rejects.toMatchObject({ code: 'IDEMPOTENCY_KEY_REUSED' });
  expect(runs).toBe(1);
  // scoped per caller and operation
  expect(await svc.run(scope('k1', 'bob'), { a: 1, b: 2 }, fn)).toEqual({ n: 2 });
});

test('a nullable argument given as null is the same request as one that leaves it out (a replay, not IDEMPOTENCY_KEY_REUSED)', async () => {
  let runs = 0;
  const fn = async () => ({ n: ++runs });
  const first = { quoteId: 'q', recipient: { email: null, name: 'Ana', tags: [null, 1] }, note: null };
  expect(await svc.run(scope('k-null'), first, fn)).toEqual({ n: 1 });
  expect(await svc.run(scope('k-null'), { recipient: { name: 'Ana', tags: [null, 1] }, quoteId: 'q' }, fn)).toEqual({ n: 1 });
  // array items are values, not members: a null item still counts
  await expect(svc.run(scope('k-null'), { quoteId: 'q', recipient: { name: 'Ana', tags: [1] } }, fn)).rejects.toMatchObject({
    code: 'IDEMPOTENCY_KEY_REUSED',
  });
  expect(runs).toBe(1);
});

test('50 concurrent duplicates run once and all get the result', async () => {
  let runs = 0;
  const fn = async () => {
    runs++;
    await new Promise((r) => setTimeout(r, 100));
    return { ok: true };
  };
  const rs = await Promise.all(Array.from({ length: 50 }, () => svc.run(scope('k2'), { x: 1 }, fn)));
  expect(runs).toBe(1);
  expect(rs.every((r) => (r as { ok: boolean }).ok)).toBe(true);
});

test('a duplicate waiting past the bound gets IDEMPOTENCY_IN_PROGRESS; a failure releases the key', async () => {
  const quick = new IdempotencyService(db.prisma, db.sql, clock, { ttlMs: 24 * 3600_000, waitMs: 50, staleAfterMs: 60_000, pollMs: 5 });
  let release!: () => void;
  const slow = quick.run(scope('k3'), {}, () => new Promise<{ v: number }>((r) => (release = () => r({ v: 1 }))));
  await new Promise((r) => setTimeout(r, 20));
  await expect(quick.run(scope('k3'), {}, async () => ({ v: 2 }))).rejects.toMatchObject({ code: 'IDEMPOTENCY_IN_PROGRESS' });
  release();
  await slow;
  await expect(
    svc.run(scope('k4'), {}, async () => {
      throw new Error('boom');
    }),
  ).rejects.toThrow('boom');
  expect(await svc.run(scope('k4'), {}, async () => ({ second: true }))).toEqual({ second: true });
});

test('records are kept 24 h, then expire', async () => {
  let runs = 0;
  const fn = async () => ({ n: ++runs });
  await svc.run(scope('k5'), {}, fn);
  clock.advance(23 * 3600_000);
  expect(await svc.run(scope('k5'), {}, fn)).toEqual({ n: 1 });
  clock.advance(2 * 3600_000);
  expect(await svc.purgeExpired()).toBeGreaterThan(0);
  expect(await svc.run(scope('k5'), {}, fn)).toEqual({ n: 2 });
});
