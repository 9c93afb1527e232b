import pino from 'pino';
import { MemoryPubSub } from '../../src/events/pubsub';
import { ManualClock } from '../../src/shared/clock';
import { TransferRepository } from '../../src/modules/transfers/transfer.repository';
import { transferTopic } from '../../src/modules/transfers/transfer.ports';
import { createTestDatabase, type TestDatabase } from '../helpers/db';
import { insertTransfer } from './transfer-fixtures';

let db: TestDatabase;
const pubsub = new MemoryPubSub();
const clock = new ManualClock();
let repo: TransferRepository;
beforeAll(async () => {
  db = await createTestDatabase();
  repo = new TransferRepository(db.prisma, pubsub, clock, pino({ level: 'silent' }));
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
