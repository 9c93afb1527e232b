/**
 * Overlapping claims of one idempotency key. A claim that went stale (its request looked dead) may be taken over
 * by a retry; should the first request then fail, releasing its key must delete only its own claim — never the
 * newer one, which would let a third request run the same mutation a third time, concurrently with the second.
 * Before the fix the release deleted any IN_PROGRESS record of the key.
 */
import { IdempotencyService } from '../../src/db/idempotency.service';
import { ManualClock } from '../../src/shared/clock';
import { createTestDatabase, type TestDatabase } from '../helpers/db';
import { waitFor } from '../helpers/wait';

let db: TestDatabase;
const clock = new ManualClock();
let svc: IdempotencyService;
beforeAll(async () => {
  db = await createTestDatabase();
  svc = new IdempotencyService(db.prisma, db.sql, clock, { ttlMs: 24 * 3600_000, waitMs: 300, staleAfterMs: 60_000, pollMs: 5 });
});
afterAll(() => db.close());

const scope = (key: string) => ({ caller: 'alice', operation: 'op', key });
const record = (key: string) =>
  db.prisma.idempotencyRecord.findUnique({ where: { scope_operation_key: { scope: 'alice', operation: 'op', key } } });

/** A promise and its resolve/reject, to hold a mutation mid-flight. */
function gate<T = void>() {
  let resolve!: (v: T) => void;
  let reject!: (e: unknown) => void;
  const promise = new Promise<T>((res, rej) => ((resolve = res), (reject = rej)));
  return { promise, resolve, reject };
}

test('the first request failing after its claim was taken over releases only its own claim', async () => {
  const firstGoes = gate<never>();
  const secondGoes = gate<{ by: string }>();
  let runs = 0;
  const first = svc.run(scope('overlap-1'), { a: 1 }, async () => (runs++, firstGoes.promise));
  await waitFor(() => runs === 1, { timeoutMs: 2_000, intervalMs: 5, what: 'run 1 to start' });
  const firstClaim = (await record('overlap-1'))!.createdAt;

  // The first request looks dead: its claim goes stale and a retry takes the key over.
  clock.advance(61_000);
  const second = svc.run(scope('overlap-1'), { a: 1 }, async () => (runs++, secondGoes.promise));
  await waitFor(() => runs === 2, { timeoutMs: 2_000, intervalMs: 5, what: 'run 2 to start' });
  const secondClaim = (await record('overlap-1'))!.createdAt;
  expect(secondClaim.getTime()).toBeGreaterThan(firstClaim.getTime());

  // Now the first one fails: it releases ITS claim — the second's must stay.
  firstGoes.reject(new Error('upstream said no'));
  await expect(first).rejects.toThrow('upstream said no');
  expect(await record('overlap-1')).toMatchObject({ state: 'IN_PROGRESS', createdAt: secondClaim });

  // So a third duplicate waits for the second (here: gives up waiting) instead of running the mutation again.
  await expect(svc.run(scope('overlap-1'), { a: 1 }, async () => (runs++, { by: 'third' }))).rejects.toMatchObject({
    code: 'IDEMPOTENCY_IN_PROGRESS',
  });
  expect(runs).toBe(2);

  // The second completes: its result is the key's answer from now on.
  secondGoes.resolve({ by: 'second' });
  expect(await second).toEqual({ by: 'second' });
  expect(await svc.run(scope('overlap-1'), { a: 1 }, async () => (runs++, { by: 'fourth' }))).toEqual({ by: 'second' });
  expect(runs).toBe(2);
});

test('the first request finishing after its claim was taken over stores its answer; the newer claim failing does not erase it', async () => {
  const firstGoes = gate<{ by: string }>();
  const secondGoes = gate<never>();
  let runs = 0;
  const first = svc.run(scope('overlap-2'), { a: 1 }, async () => (runs++, firstGoes.promise));
  await waitFor(() => runs === 1, { timeoutMs: 2_000, intervalMs: 5, what: 'run 1 to start' });
  clock.advance(61_000);
  const second = svc.run(scope('overlap-2'), { a: 1 }, async () => (runs++, secondGoes.promise));
  await waitFor(() => runs === 2, { timeoutMs: 2_000, intervalMs: 5, what: 'run 2 to start' });

  firstGoes.resolve({ by: 'first' });
  expect(await first).toEqual({ by: 'first' });
  expect(await record('overlap-2')).toMatchObject({ state: 'COMPLETED', response: { by: 'first' } }); // the effect happened

  // The second fails: its release deletes only its own IN_PROGRESS claim — not the stored answer.
  secondGoes.reject(new Error('boom'));
  await expect(second).rejects.toThrow('boom');
  expect(await svc.run(scope('overlap-2'), { a: 1 }, async () => (runs++, { by: 'third' }))).toEqual({ by: 'first' });
  expect(runs).toBe(2);
});
