/**
 * Regression test for a bug found by the chaos kill storm (scenario 1, CHAOS_SEED=11): the card check's outcome is
 * recorded (saga step `check` SUCCEEDED with outcome CHALLENGE) and the transition to ACTION_REQUIRED is a
 * second write (TransferSaga.runCheck: settle, then move). A process killed between the two leaves the transfer
 * PENDING with a settled check whose outcome is not APPROVED; on restart TransferSaga.step() only waits
 * ("outcome !== 'APPROVED' → wait"), so the customer is never asked for the 3DS challenge and the transfer sits
 * PENDING until the quote watchdog expires it (a FAILED check would likewise never become DECLINED).
 *
 * Reproduced without a kill: create (worker off), write what a crash after the check leaves behind, advance.
 * Fixed: step() re-runs a settled check whose outcome is not on the transfer (checks move no money).
 */
import { startTestApp, type TestApp } from '../helpers/app';
import { CREATE, gqlRaw, kindInput, newPerson, newQuote } from './lib/client';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp({
    LOG_LEVEL: 'silent',
    SAGA_WORKER_ENABLED: 'false',
    RATE_LIMIT_MUTATIONS_PER_MINUTE: '1000000',
    RATE_LIMIT_UPSTREAM_POINTS_PER_MINUTE: '1000000',
  });
}, 60_000);
afterAll(() => t?.close());

test('a transfer whose 3DS check outcome was recorded just before a crash moves to ACTION_REQUIRED on restart', async () => {
  const alice = await t.token('repro-3ds', 'customer');
  const created = await gqlRaw(
    t.url,
    CREATE,
    { i: kindInput('threeds', await newQuote(t.url, alice), await newPerson(t.url, alice), 'repro-check-crash-1') },
    alice,
  );
  const id: string = created.body!.data!.createTransfer.id;
  const saga = t.app.transfers.saga;
  const row = (await t.app.transfers.repository.get(id))!;
  // what a SIGKILL between runCheck's settle() and its move() leaves: the check settled with CHALLENGE, status PENDING
  const step = await saga.recordIntent(row, 'check', { funding: 'CARD' });
  await t.app.db.prisma.sagaStep.update({
    where: { id: step.id },
    data: { state: 'SUCCEEDED', attempts: 1, response: { outcome: 'CHALLENGE', reasons: [], lastFour: '0002' } },
  });
  const after = await saga.advance(id, { cause: 'worker', actor: 'worker' });
  expect(after?.status).toBe('ACTION_REQUIRED');
  expect(after?.nextAction).toMatchObject({ type: 'THREE_DS_CHALLENGE' });
}, 60_000);
