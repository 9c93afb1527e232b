/**
 * Compliance "Rejected" vs the saga's authorization, racing. REJECTED (terminal, nothing to undo) is only right
 * while no authorization was attempted; once one was, the saga must finish it and void (→ VOIDED). Both sides
 * decide under the transfer's row lock — the rejection counts authorize steps inside its locked transition,
 * the authorize intent is written only while the transfer is still in the status the saga read — so one always
 * sees the other. Without that, a rejection that read "no authorize step" just before the intent was written made
 * the transfer REJECTED while the saga went on to authorize the payment: money held on a dead transfer.
 * (The interleaving of the second test is only possible with concurrent connections: PostgreSQL. On PGlite the
 * single connection serialises it, and the test passes either way.)
 */
import { usingPostgres } from '../helpers/db';
import { platformEvent } from '../e2e/transfer-helpers';
import { startTestApp, type TestApp } from '../helpers/app';
import { insertTransfer } from './transfer-fixtures';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp({ SAGA_WORKER_ENABLED: 'false', WEBHOOK_POLL_INTERVAL_MS: '600000' });
}, 60_000);
afterAll(() => t.close());

const prisma = () => t.app.db.prisma;

/**
 * The saga's side of a race, held open: the transfer's row locked and a step intent about to be written (as
 * recordIntent does with whileStatusUnchanged). `event` is started while the lock is held and, on PostgreSQL, is
 * left to get as far as it can (waiting for the lock) before the intent commits.
 */
async function intentRacing<T>(transferId: string, step: 'authorize' | 'capture', key: string, event: () => Promise<T>): Promise<T> {
  let release!: () => void;
  const released = new Promise<void>((r) => (release = r));
  let locked!: () => void;
  const isLocked = new Promise<void>((r) => (locked = r));
  const saga = prisma().$transaction(
    async (tx) => {
      await tx.$executeRaw`SELECT 1 FROM transfers WHERE id = ${transferId} FOR UPDATE`;
      locked();
      await released;
      await tx.$executeRaw`
        INSERT INTO saga_steps (id, transfer_id, step, idempotency_key, state, attempts, request, created_at, updated_at)
        VALUES (gen_random_uuid()::text, ${transferId}, ${step}, ${key}, 'PENDING', 0, '{}'::jsonb, now(), now())`;
    },
    { timeout: 30_000, maxWait: 30_000 },
  );
  await isLocked;
  const racing = event();
  if (usingPostgres()) {
    for (let i = 0; i < 200; i++) {
      const [w] = await t.app.db.prisma.$queryRaw<{ n: bigint }[]>`SELECT count(*) AS n FROM pg_locks WHERE NOT granted`;
      if (Number(w!.n) > 0) break;
      await new Promise((r) => setTimeout(r, 25));
    }
  }
  release();
  await saga;
  return racing;
}

test('the saga writes no authorize intent for a transfer rejected after it read it', async () => {
  const tr = await insertTransfer(prisma());
  const stale = (await t.app.transfers.repository.get(tr.id))!;
  expect(stale.status).toBe('PENDING');
  const out = await platformEvent(t, tr.externalPaymentId, { type: 'compliance', newStatus: 'Rejected' });
  expect(out.applied).toBe(true);
  expect((await t.app.transfers.repository.get(tr.id))!.status).toBe('REJECTED');
  const intent = await t.app.transfers.saga.recordIntent(
    stale,
    'authorize',
    { externalPaymentId: stale.externalPaymentId },
    { whileStatusUnchanged: true },
  );
  expect(intent).toBeNull();
  expect(await prisma().sagaStep.count({ where: { transferId: tr.id } })).toBe(0);
});

test('a rejection waiting for the row lock sees the authorize intent committed meanwhile: no REJECTED while money may move', async () => {
  const tr = await insertTransfer(prisma());
  const out = await intentRacing(tr.id, 'authorize', tr.externalPaymentId, () =>
    platformEvent(t, tr.externalPaymentId, { type: 'compliance', newStatus: 'Rejected' }),
  );
  expect(out.applied).toBe(true);
  const after = (await t.app.transfers.repository.get(tr.id))!;
  expect(after.complianceStatus).toBe('Rejected');
  expect(after.status).toBe('PENDING'); // the saga authorizes (or finds it failed), then voids → VOIDED
});

test("the platform's cancel of an authorization waiting for the row lock sees our capture intent committed meanwhile: never terminal with a capture under way", async () => {
  const tr = await insertTransfer(prisma(), { status: 'AUTHORIZED' });
  await intentRacing(tr.id, 'capture', `${tr.externalPaymentId}:capture`, () =>
    platformEvent(t, tr.externalPaymentId, { type: 'status', oldStatus: null, newStatus: 'Cancelled' }),
  );
  const after = (await t.app.transfers.repository.get(tr.id))!;
  // the fact is recorded; the transfer waits for our capture to settle instead of ending with money about to move
  expect(after.upstreamTransactionStatus).toBe('Cancelled');
  expect(after.status).toBe('AUTHORIZED');
});
