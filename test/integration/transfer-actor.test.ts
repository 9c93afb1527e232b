/**
 * Who caused each audit event: back-office sees the subject (user id, worker, webhook); the customer sees a
 * role-like label — `you`, `support`, `system` — and never a staff member's identity.
 */
import { gql, startTestApp, type TestApp } from '../helpers/app';
import { waitFor } from '../helpers/wait';
import { createTransfer, newPerson, newQuote, transferInput } from '../e2e/transfer-helpers';

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
});
