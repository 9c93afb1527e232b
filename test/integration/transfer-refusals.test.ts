/**
 * Every fact the service stores is readable: a change the transition table refused (a late or out-of-order fact, a
 * request the status did not allow) is kept in transfer_refusals and shown to back-office on Transfer.refusals;
 * customers never see them.
 */
import { gql, startTestApp, type TestApp } from '../helpers/app';
import { insertTransfer } from './transfer-fixtures';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp({ SAGA_WORKER_ENABLED: 'false' });
}, 90_000);
afterAll(() => t?.close());

const QUERY = `query($id: ID!) { transfer(id: $id) { status refusals { fromStatus toStatus cause actor reason action at } } }`;

test('refused transitions are listed newest first for back-office, with what was asked and why; nothing changed', async () => {
  const row = await insertTransfer(t.app.db.prisma, { ownerId: 'refusal-alice' });
  const repo = t.app.transfers.repository;
  const r1 = await repo.transition({ transferId: row.id, to: 'CAPTURED', cause: 'worker', actor: 'worker', detail: { action: 'capture' } });
  expect(r1).toMatchObject({ ok: false, kind: 'refused' });
  expect((await repo.transition({ transferId: row.id, to: 'DECLINED', cause: 'worker', actor: 'worker' })).ok).toBe(true);
  const r2 = await repo.transition({
    transferId: row.id,
    to: 'COMPLETED',
    cause: 'webhook',
    actor: 'webhook',
    detail: { action: 'platform Completed' },
  });
  expect(r2).toMatchObject({ ok: false, reason: 'DECLINED is terminal' });

  const staff = await t.token('refusal-ops', 'backoffice');
  const seen = await gql<any>(t.url, QUERY, { token: staff, variables: { id: row.id } });
  expect(seen.body.errors).toBeUndefined();
  expect(seen.body.data.transfer.status).toBe('DECLINED');
  expect(seen.body.data.transfer.refusals).toEqual([
    {
      fromStatus: 'DECLINED',
      toStatus: 'COMPLETED',
      cause: 'webhook',
      actor: 'webhook',
      reason: 'DECLINED is terminal',
      action: 'platform Completed',
      at: expect.any(String),
    },
    {
      fromStatus: 'PENDING',
      toStatus: 'CAPTURED',
      cause: 'worker',
      actor: 'worker',
      reason: expect.any(String),
      action: 'capture',
      at: expect.any(String),
    },
  ]);
  expect(Date.parse(seen.body.data.transfer.refusals[0].at)).toBeGreaterThanOrEqual(Date.parse(seen.body.data.transfer.refusals[1].at));
});

test('the owner cannot read refusals (FORBIDDEN), and a transfer without any shows an empty list', async () => {
  const row = await insertTransfer(t.app.db.prisma, { ownerId: 'refusal-bob' });
  const bob = await t.token('refusal-bob', 'customer');
  const own = await gql<any>(t.url, QUERY, { token: bob, variables: { id: row.id } });
  expect(own.body.errors?.[0]?.extensions?.code).toBe('FORBIDDEN');
  const staff = await t.token('refusal-ops', 'backoffice');
  const none = await gql<any>(t.url, QUERY, { token: staff, variables: { id: row.id } });
  expect(none.body.data.transfer.refusals).toEqual([]);
});
