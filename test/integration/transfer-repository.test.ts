import pino from 'pino';
import { Prisma } from '../../src/generated/prisma/client';
import { MemoryPubSub } from '../../src/events/pubsub';
import { ManualClock } from '../../src/shared/clock';
import { TransferRepository } from '../../src/modules/transfer/transfer.repository';
import { transferTopic } from '../../src/modules/transfer/transfer.ports';
import { createTestDatabase, type TestDatabase } from '../helpers/db';
import { insertTransfer } from './transfer-fixtures';

let db: TestDatabase;
const pubsub = new MemoryPubSub();
const clock = new ManualClock();
let repo: TransferRepository;
beforeAll(async () => {
  db = await createTestDatabase();
  repo = new TransferRepository(db.prisma, db.sql, pubsub, clock, pino({ level: 'silent' }));
});
afterAll(() => db.close());

test('a legal transition bumps version, appends the event (seq = version) and publishes after commit', async () => {
  const t = await insertTransfer(db.prisma);
  const sub = pubsub.subscribe<{ version: number }>(transferTopic(t.id));
  const r = await repo.transition({
    transferId: t.id,
    to: 'AUTHORIZED',
    cause: 'worker',
    actor: 'worker',
    upstreamRef: 'pay-1',
    detail: { step: 'authorize' },
  });
  expect(r.ok).toBe(true);
  expect(r.transfer).toMatchObject({ status: 'AUTHORIZED', version: 2 });
  const events = await db.prisma.transferEvent.findMany({ where: { transferId: t.id }, orderBy: { seq: 'asc' } });
  expect(events.map((e) => [e.seq, e.fromStatus, e.toStatus, e.cause])).toEqual([
    [1, null, 'PENDING', 'mutation'],
    [2, 'PENDING', 'AUTHORIZED', 'worker'],
  ]);
  expect(events[1].at.getTime()).toBe(clock.nowMs());
  expect((await sub.next()).value).toMatchObject({ version: 2 });
  await sub.return!();
});

test('an illegal transition is refused and recorded; status and version unchanged; terminal never changes', async () => {
  const t = await insertTransfer(db.prisma);
  const bad = await repo.transition({ transferId: t.id, to: 'CAPTURED', cause: 'worker', actor: 'worker' });
  expect(bad).toMatchObject({ ok: false, kind: 'refused' });
  expect(await db.prisma.transfer.findUnique({ where: { id: t.id } })).toMatchObject({ status: 'PENDING', version: 1 });
  await repo.transition({ transferId: t.id, to: 'DECLINED', cause: 'worker', actor: 'worker' });
  const again = await repo.transition({ transferId: t.id, to: 'AUTHORIZED', cause: 'worker', actor: 'worker' });
  expect(again).toMatchObject({ ok: false, kind: 'refused', reason: 'DECLINED is terminal' });
  const note = await repo.transition({ transferId: t.id, cause: 'webhook', actor: 'webhook', patch: { payoutStatus: 'X' } });
  expect(note.ok).toBe(false);
  const refusals = await db.prisma.transferRefusal.findMany({ where: { transferId: t.id } });
  expect(refusals.map((r) => r.toStatus)).toEqual(['CAPTURED', 'AUTHORIZED', 'DECLINED']);
  expect(await db.prisma.transfer.findUnique({ where: { id: t.id } })).toMatchObject({ status: 'DECLINED', version: 2 });
});

test('concurrent transitions from the same state: exactly one wins', async () => {
  const t = await insertTransfer(db.prisma);
  const rs = await Promise.all(
    Array.from({ length: 10 }, (_, i) =>
      repo.transition({ transferId: t.id, to: i % 2 ? 'AUTHORIZED' : 'DECLINED', cause: 'worker', actor: 'w', expectedSeq: 1 }),
    ),
  );
  expect(rs.filter((r) => r.ok)).toHaveLength(1);
  const events = await db.prisma.transferEvent.count({ where: { transferId: t.id } });
  expect(events).toBe(2);
});

test('a change decided on an unchanged snapshot is one statement: the row and its audit event; the same row as Prisma reads it', async () => {
  const t = await insertTransfer(db.prisma);
  const {
    result: r,
    count,
    statements,
  } = await db.queries.measure(() =>
    repo.transition(
      {
        transferId: t.id,
        to: 'AUTHORIZED',
        cause: 'worker',
        actor: 'worker',
        patch: { nextAction: Prisma.JsonNull, authorizedAt: clock.now() },
      },
      t,
    ),
  );
  expect(r.ok).toBe(true);
  expect(count).toBe(1);
  expect(statements[0]).toMatch(/^\s*WITH u AS \(\s*UPDATE transfers/);
  // what the statement returns is the row as Prisma's own read gives it (types included)
  expect(r.transfer).toEqual(await repo.get(t.id));
  expect(r.transfer).toMatchObject({ status: 'AUTHORIZED', version: 2, eventSeq: 2 });
  const e = await db.prisma.transferEvent.findUnique({ where: { transferId_seq: { transferId: t.id, seq: 2 } } });
  expect(e).toMatchObject({ version: 2, fromStatus: 'PENDING', toStatus: 'AUTHORIZED', shown: { status: 'AUTHORIZED', nextAction: null } });
});

test('a fact that changes nothing shown: eventSeq + 1 and an audit event without a version, updatedAt kept, nothing published', async () => {
  const t = await insertTransfer(db.prisma);
  const r = await repo.transition(
    { transferId: t.id, cause: 'webhook', actor: 'webhook', patch: { upstreamTransactionStatus: 'Created' } },
    t,
  );
  expect(r).toMatchObject({ ok: true, shown: false, transfer: { version: 1, eventSeq: 2, updatedAt: t.updatedAt } });
  const e = await db.prisma.transferEvent.findUnique({ where: { transferId_seq: { transferId: t.id, seq: 2 } } });
  expect(e).toMatchObject({ version: null, shown: null, fromStatus: 'PENDING', toStatus: 'PENDING' });
});

test('a stale snapshot (something recorded since): decided again on the locked row; a step result sideWrite is written once on every path', async () => {
  const t = await insertTransfer(db.prisma);
  await repo.transition({ transferId: t.id, cause: 'webhook', actor: 'webhook', patch: { complianceStatus: 'Pending' } }); // seq 2
  const step = await db.prisma.sagaStep.create({
    data: { transferId: t.id, step: 'authorize', idempotencyKey: `k-${t.id}`, state: 'PENDING', request: {} },
  });
  const settle = Prisma.sql`UPDATE saga_steps SET attempts = attempts + 1 WHERE id = ${step.id} RETURNING 1`;
  // snapshot at seq 1: the conditional write misses, the locked path applies it (on the row as it is now)
  const r = await repo.transition({ transferId: t.id, to: 'AUTHORIZED', cause: 'worker', actor: 'worker', sideWrite: settle }, t);
  expect(r).toMatchObject({ ok: true, transfer: { status: 'AUTHORIZED', eventSeq: 3, complianceStatus: 'Pending' } });
  expect((await db.prisma.sagaStep.findUnique({ where: { id: step.id } }))!.attempts).toBe(1);
  // refused (not a transition): nothing changes, the refusal is recorded, the sideWrite write still made once
  const cur = (await repo.get(t.id))!;
  const refused = await repo.transition({ transferId: t.id, to: 'PENDING', cause: 'worker', actor: 'worker', sideWrite: settle }, cur);
  expect(refused).toMatchObject({ ok: false, kind: 'refused' });
  expect((await db.prisma.sagaStep.findUnique({ where: { id: step.id } }))!.attempts).toBe(2);
  // skipped by decide: the sideWrite write too
  const skipped = await repo.transition(
    { transferId: t.id, cause: 'webhook', actor: 'webhook', decide: () => ({ skip: 'stale' }), sideWrite: settle },
    cur,
  );
  expect(skipped).toMatchObject({ ok: false, kind: 'skipped' });
  expect((await db.prisma.sagaStep.findUnique({ where: { id: step.id } }))!.attempts).toBe(3);
  expect((await repo.get(t.id))!).toMatchObject({ status: 'AUTHORIZED', eventSeq: 3 });
});

test('decide may ask for the row lock when deciding on a snapshot: it is then decided again inside the transaction', async () => {
  const t = await insertTransfer(db.prisma);
  const calls: boolean[] = [];
  const r = await repo.transition(
    {
      transferId: t.id,
      cause: 'webhook',
      actor: 'webhook',
      decide: async (row, tx) => {
        calls.push(tx !== null);
        if (!tx) return { lock: true };
        const steps = await tx.sagaStep.count({ where: { transferId: row.id } });
        return { to: steps === 0 ? 'REJECTED' : undefined, patch: { complianceStatus: 'Rejected' } };
      },
    },
    t,
  );
  expect(calls).toEqual([false, true]);
  expect(r).toMatchObject({ ok: true, transfer: { status: 'REJECTED', complianceStatus: 'Rejected' } });
});
