import { gql, startTestApp, type TestApp } from '../helpers/app';
import { collect, wsClient } from '../helpers/ws';
import { waitFor } from '../helpers/wait';
import { insertTransfer } from './transfer-fixtures';

/**
 * What an app renders from transferUpdated / myTransfers: one message per app-visible change (status, next action,
 * captured amount, failure), none for platform facts that change none of those (they stay in the audit trail), and
 * a stream that ends once the transfer is terminal — also when it already was at subscribe time.
 */
let t: TestApp;
let alice: string;
let staff: string;

beforeAll(async () => {
  t = await startTestApp({ SAGA_WORKER_ENABLED: 'false', WEBHOOK_POLL_INTERVAL_MS: '600000' });
  alice = await t.token('alice', 'customer');
  staff = await t.token('bo', 'backoffice');
}, 60_000);
afterAll(() => t.close());

const FIELDS =
  'id status version nextAction { type redirectUrl } capturedAmount { amount currency } refundedAmount { amount } failure { code }';
const SUB = `subscription($id: ID!, $after: Int) { transferUpdated(transferId: $id, afterVersion: $after) { ${FIELDS} } }`;
const MY = `subscription($since: DateTime) { myTransfers(changedSince: $since) { ${FIELDS} } }`;
const repo = () => t.app.transfers.repository;

/** A fact the platform reports that changes nothing an app shows (recorded for the back-office only). */
const fact = (transferId: string, patch: Record<string, string>) =>
  repo().transition({ transferId, cause: 'webhook', actor: 'webhook', detail: { action: 'platform status' }, patch });

/** PENDING v1 → AUTHORIZED v2 → (facts) → CAPTURED v3 → (fact) → PAYOUT_PENDING v4 → COMPLETED v5. */
async function runToCompleted(id: string) {
  await repo().transition({ transferId: id, to: 'AUTHORIZED', cause: 'worker', actor: 'worker' });
  await fact(id, { complianceStatus: 'Pending' });
  await fact(id, { upstreamTransactionStatus: 'PaymentPending' });
  await repo().transition({ transferId: id, to: 'CAPTURED', cause: 'worker', actor: 'worker', patch: { capturedAmount: '100.00' } });
  await fact(id, { upstreamTransactionStatus: 'PaymentCaptured' });
  await repo().transition({
    transferId: id,
    to: 'PAYOUT_PENDING',
    cause: 'webhook',
    actor: 'webhook',
    patch: { upstreamTransactionStatus: 'WaitingPayout' },
  });
  await repo().transition({
    transferId: id,
    to: 'COMPLETED',
    cause: 'webhook',
    actor: 'webhook',
    patch: { upstreamTransactionStatus: 'Paid' },
  });
}

test('platform facts that change nothing an app shows do not move version and send no message; the back-office still sees every fact in events', async () => {
  const tr = await insertTransfer(t.app.db.prisma, { ownerId: 'alice' });
  const { client } = wsClient(t.wsUrl, alice);
  const sub = collect<any>(client, SUB, { id: tr.id });
  await sub.next(1);
  await runToCompleted(tr.id);
  await waitFor(() => sub.completed, { timeoutMs: 5_000, intervalMs: 20, what: 'the sub stream to complete' });
  const seen = sub.results.map((r) => r.data.transferUpdated);
  expect(seen.map((s) => `${s.version}:${s.status}`)).toEqual([
    '1:PENDING',
    '2:AUTHORIZED',
    '3:CAPTURED',
    '4:PAYOUT_PENDING',
    '5:COMPLETED',
  ]);
  expect(seen[2].capturedAmount).toEqual({ amount: '100.00', currency: 'USD' });
  await client.dispose();

  const r = await gql<any>(
    t.url,
    `query($id: ID!) { transfer(id: $id) { version lastEventSeq events(first: 50) { edges { node { seq version toStatus action } } } } }`,
    { token: staff, variables: { id: tr.id } },
  );
  expect(r.body.errors).toBeUndefined();
  const tx = r.body.data.transfer;
  const events = tx.events.edges.map((e: any) => e.node);
  expect(events).toHaveLength(8); // creation + 7 recorded changes: every fact is in the audit trail
  expect(events.map((e: any) => e.seq)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
  expect(events.map((e: any) => e.version)).toEqual([1, 2, null, null, 3, null, 4, 5]);
  expect(tx).toMatchObject({ version: 5, lastEventSeq: 8 });
});

test('a transfer already terminal at subscribe: without afterVersion the state, then complete; with afterVersion = last nothing, then complete; with an older afterVersion what follows it, then complete', async () => {
  const tr = await insertTransfer(t.app.db.prisma, { ownerId: 'alice' });
  await runToCompleted(tr.id);
  const { client } = wsClient(t.wsUrl, alice);
  const plain = collect<any>(client, SUB, { id: tr.id });
  const atLast = collect<any>(client, SUB, { id: tr.id, after: 5 });
  const before = collect<any>(client, SUB, { id: tr.id, after: 3 });
  await waitFor(() => plain.completed, { timeoutMs: 5_000, intervalMs: 20, what: 'the plain stream to complete' });
  await waitFor(() => atLast.completed, { timeoutMs: 5_000, intervalMs: 20, what: 'the atLast stream to complete' });
  await waitFor(() => before.completed, { timeoutMs: 5_000, intervalMs: 20, what: 'the before stream to complete' });
  expect(plain.results.map((r) => r.data.transferUpdated.status)).toEqual(['COMPLETED']);
  expect(atLast.results).toEqual([]);
  expect(before.results.map((r) => `${r.data.transferUpdated.version}:${r.data.transferUpdated.status}`)).toEqual([
    '4:PAYOUT_PENDING',
    '5:COMPLETED',
  ]);
  for (const s of [plain, atLast, before]) expect(s.error).toBeUndefined();
  await client.dispose();
});

test('resume after a disconnect is gap-free: afterVersion replays exactly the app-visible versions after it, each as it was', async () => {
  const tr = await insertTransfer(t.app.db.prisma, { ownerId: 'alice' });
  const { client } = wsClient(t.wsUrl, alice);
  const first = collect<any>(client, SUB, { id: tr.id });
  await first.next(1);
  await repo().transition({ transferId: tr.id, to: 'AUTHORIZED', cause: 'worker', actor: 'worker' });
  await first.next(2);
  first.dispose(); // the app goes away at version 2
  await fact(tr.id, { complianceStatus: 'Pending' });
  await repo().transition({ transferId: tr.id, to: 'CAPTURED', cause: 'worker', actor: 'worker', patch: { capturedAmount: '60.00' } });
  await fact(tr.id, { upstreamTransactionStatus: 'PaymentCaptured' });
  await repo().transition({ transferId: tr.id, to: 'PAYOUT_PENDING', cause: 'webhook', actor: 'webhook' });
  const again = collect<any>(client, SUB, { id: tr.id, after: first.results.at(-1)!.data.transferUpdated.version });
  await again.next(2);
  await fact(tr.id, { payoutStatus: 'Processing' });
  await repo().transition({
    transferId: tr.id,
    to: 'REFUND_PENDING',
    cause: 'webhook',
    actor: 'webhook',
    patch: { failureCode: 'PAYOUT_PAYOUTREJECTED', failureMessage: 'The payout failed' },
  });
  await repo().transition({ transferId: tr.id, to: 'REFUNDED', cause: 'worker', actor: 'worker', patch: { refundedAmount: '60.00' } });
  await waitFor(() => again.completed, { timeoutMs: 5_000, intervalMs: 20, what: 'the again stream to complete' });
  const all = [...first.results, ...again.results].map((r) => r.data.transferUpdated);
  expect(all.map((s) => `${s.version}:${s.status}`)).toEqual([
    '1:PENDING',
    '2:AUTHORIZED',
    '3:CAPTURED',
    '4:PAYOUT_PENDING',
    '5:REFUND_PENDING',
    '6:REFUNDED',
  ]);
  expect(all[4].failure).toEqual({ code: 'PAYOUT_PAYOUTREJECTED' });

  // each replayed version is shown as it was then (not with later fields): v2 had nothing captured, v3 no failure
  const replay = collect<any>(client, SUB, { id: tr.id, after: 1 });
  await waitFor(() => replay.completed, { timeoutMs: 5_000, intervalMs: 20, what: 'the replay stream to complete' });
  const views = replay.results.map((r) => r.data.transferUpdated);
  expect(views.map((s) => s.version)).toEqual([2, 3, 4, 5, 6]);
  expect(views[0]).toMatchObject({ status: 'AUTHORIZED', capturedAmount: null, failure: null });
  expect(views[1]).toMatchObject({ status: 'CAPTURED', capturedAmount: { amount: '60.00', currency: 'USD' }, failure: null });
  // what was refunded, as it was at each version
  expect(views[3]).toMatchObject({
    status: 'REFUND_PENDING',
    refundedAmount: { amount: '0.00' },
    failure: { code: 'PAYOUT_PAYOUTREJECTED' },
  });
  expect(views[4]).toMatchObject({ status: 'REFUNDED', refundedAmount: { amount: '60.00' } });
  await client.dispose();
});

test('myTransfers(changedSince) replays and follows app-visible changes only: a platform fact sends nothing', async () => {
  const since = new Date();
  const tr = await insertTransfer(t.app.db.prisma, { ownerId: 'alice' });
  await repo().transition({ transferId: tr.id, to: 'AUTHORIZED', cause: 'worker', actor: 'worker' });
  const quiet = await insertTransfer(t.app.db.prisma, { ownerId: 'alice', createdAt: new Date(since.getTime() - 60_000) });
  await fact(quiet.id, { complianceStatus: 'Pending' }); // changed nothing an app shows since `since`
  const { client } = wsClient(t.wsUrl, alice);
  const sub = collect<any>(client, MY, { since: since.toISOString() });
  await sub.next(1);
  await fact(tr.id, { complianceStatus: 'Pending' });
  await fact(quiet.id, { upstreamTransactionStatus: 'PaymentPending' });
  await repo().transition({ transferId: tr.id, to: 'CAPTURED', cause: 'worker', actor: 'worker', patch: { capturedAmount: '100.00' } });
  await sub.next(2);
  await new Promise((r) => setTimeout(r, 200));
  expect(
    sub.results.map(
      (r) => `${r.data.myTransfers.id === tr.id ? 'tr' : 'quiet'}:${r.data.myTransfers.version}:${r.data.myTransfers.status}`,
    ),
  ).toEqual(['tr:2:AUTHORIZED', 'tr:3:CAPTURED']);
  await client.dispose();
});

it('transferUpdated with an afterVersion the transfer never had is BAD_USER_INPUT (it would silently skip versions)', async () => {
  const { client } = wsClient(t.wsUrl, await t.token('alice', 'customer'));
  try {
    const tr = await insertTransfer(t.app.db.prisma, { ownerId: 'alice' });
    const sub = collect<{ transferUpdated: { id: string } }>(
      client,
      'subscription($id: ID!, $v: Int) { transferUpdated(transferId: $id, afterVersion: $v) { id version } }',
      { id: tr.id, v: 5 },
    );
    await sub.next(1, 5000).catch(() => undefined);
    const text = JSON.stringify({ r: sub.results, e: sub.error });
    expect(text).toContain('BAD_USER_INPUT');
    expect(sub.results.some((x) => x.data?.transferUpdated)).toBe(false);
  } finally {
    await client.dispose();
  }
});
