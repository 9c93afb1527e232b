/**
 * Who caused each audit event: back-office sees the subject (user id, worker, webhook); the customer sees a
 * role-like label — `you`, `support`, `system` — and never a staff member's identity: not over HTTP, not in the
 * transfer's stream over graphql-ws, not as the one who asked for a refund.
 */
import { gql, startTestApp, type TestApp } from '../helpers/app';
import { waitFor } from '../helpers/wait';
import { createTransfer, newPerson, newQuote, transferInput, waitForStatus } from '../e2e/transfer-helpers';
import { decideReview } from '../helpers/sandbox';
import { collect, wsClient } from '../helpers/ws';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
}, 60_000);
afterAll(() => t?.close());

const EVENTS = 'query($id: ID!) { transfer(id: $id) { status events(first: 50) { edges { node { cause actor action } } } } }';

it('customers see you / support / system; back-office sees the subjects', async () => {
  const alice = await t.token('actor-alice', 'customer');
  const staff = await t.token('staff-jane-7f3a', 'backoffice');
  const personId = await newPerson(t.url, alice);
  const quoteId = await newQuote(t.url, alice);
  // held for review: waits AUTHORIZED for a decision, which back-office takes by capturing
  const r = await createTransfer(t.url, alice, transferInput({ quoteId, personId, key: 'actor-key-1', lastName: 'Compliance-Review' }));
  if (!r.body.data) throw new Error(JSON.stringify(r.body.errors));
  const id: string = r.body.data.createTransfer.id;
  await waitFor(
    async () => (await gql<any>(t.url, EVENTS, { token: alice, variables: { id } })).body.data.transfer.status === 'AUTHORIZED',
    {
      timeoutMs: 15_000,
    },
  );
  // the customer follows the transfer over graphql-ws meanwhile: the stream shows the same labels
  const STREAM = `subscription($id: ID!) { transferUpdated(transferId: $id) { version status
    events(first: 50) { edges { node { cause actor } } } refunds { requestedBy reason } } }`;
  const { client } = wsClient(t.wsUrl, alice);
  const stream = collect<any>(client, STREAM, { id });
  await stream.next(1);
  const captured = await gql<any>(t.url, 'mutation($i: CaptureTransferInput!) { captureTransfer(input: $i) { status } }', {
    token: staff,
    variables: { i: { transferId: id, idempotencyKey: 'actor-capture-1' } },
  });
  expect(captured.body.errors).toBeUndefined();

  const asStaff = (await gql<any>(t.url, EVENTS, { token: staff, variables: { id } })).body.data.transfer.events.edges.map(
    (e: any) => e.node,
  );
  expect(asStaff).toContainEqual(expect.objectContaining({ cause: 'mutation', actor: 'actor-alice' }));
  expect(asStaff).toContainEqual(expect.objectContaining({ cause: 'mutation', actor: 'staff-jane-7f3a' }));
  expect(asStaff.some((e: any) => e.cause !== 'mutation' && ['worker', 'webhook'].includes(e.actor))).toBe(true);

  const res = await gql<any>(t.url, EVENTS, { token: alice, variables: { id } });
  const asCustomer = res.body.data.transfer.events.edges.map((e: any) => e.node);
  expect(JSON.stringify(res.body)).not.toContain('staff-jane-7f3a');
  expect(new Set(asCustomer.map((e: any) => e.actor))).toEqual(new Set(['you', 'support', 'system']));
  expect(asCustomer).toContainEqual(expect.objectContaining({ cause: 'mutation', actor: 'you' }));
  expect(asCustomer).toContainEqual(expect.objectContaining({ cause: 'mutation', actor: 'support' }));

  // a refund back-office asked for once the payout completed: the customer sees the reason, not who asked
  const ext = (await t.app.db.prisma.transfer.findUniqueOrThrow({ where: { id } })).externalPaymentId!;
  await decideReview(t.app.sandbox!.url, ext, 'Approved');
  await waitForStatus(t, alice, id, ['COMPLETED'], 20_000);
  const refunded = await gql<any>(t.url, 'mutation($i: RefundTransferInput!) { refundTransfer(input: $i) { refunds { requestedBy } } }', {
    token: staff,
    variables: { i: { transferId: id, amount: '10.00', reason: 'goodwill', idempotencyKey: 'actor-refund-1' } },
  });
  expect(refunded.body.errors).toBeUndefined();
  expect(refunded.body.data.refundTransfer.refunds).toEqual([{ requestedBy: 'staff-jane-7f3a' }]);
  const REFUNDS = 'query($id: ID!) { transfer(id: $id) { refunds { requestedBy reason } } }';
  expect((await gql<any>(t.url, REFUNDS, { token: alice, variables: { id } })).body.data.transfer.refunds).toEqual([
    { requestedBy: null, reason: 'goodwill' },
  ]);
  // the stream completed with the transfer (COMPLETED is terminal); a new subscription shows the refund as it stands
  await waitFor(async () => stream.completed);
  const again = collect<any>(client, STREAM, { id });
  try {
    await again.next(1);
    expect(again.results[0]!.data.transferUpdated.refunds).toEqual([{ requestedBy: null, reason: 'goodwill' }]);
    const streamed = JSON.stringify([...stream.results, ...again.results]);
    expect(streamed).not.toContain('staff-jane-7f3a');
    const actors = new Set(
      [...stream.results, ...again.results].flatMap((r) => r.data.transferUpdated.events.edges.map((e: any) => e.node.actor)),
    );
    expect(actors).toEqual(new Set(['you', 'support', 'system']));
  } finally {
    await client.dispose();
  }
});
