/**
 * Who sends and who receives: Transfer.sender (the KYC person, by name) and Transfer.recipient (name and a masked
 * destination an app can display), a snapshot taken at creation — a later change of the person does not rewrite the
 * history. The audit trail names the value of each platform fact.
 */
import { gql, startTestApp, type TestApp } from '../helpers/app';
import { createTransfer, newPerson, newQuote, RECIPIENT, transferInput, waitForStatus } from '../e2e/transfer-helpers';
import { maskDestination } from '../../src/modules/transfer/transfer.view';

let t: TestApp;
let alice: string;
beforeAll(async () => {
  t = await startTestApp();
  alice = await t.token('parties-alice', 'customer');
}, 60_000);
afterAll(() => t?.close());

const READ = `query($id: ID!) { transfer(id: $id) { status sender { personId name } recipient { name destinationType destination }
  events(first: 50) { edges { node { action value } } } } }`;

it('shows the sender and the recipient as they were at creation, the destination masked', async () => {
  const personId = await newPerson(t.url, alice);
  const quoteId = await newQuote(t.url, alice);
  const r = await createTransfer(t.url, alice, transferInput({ quoteId, personId, key: 'parties-key-1' }));
  const id: string = r.body.data.createTransfer.id;
  await waitForStatus(t, alice, id, ['COMPLETED'], 20_000);
  const read = async () => (await gql<any>(t.url, READ, { token: alice, variables: { id } })).body.data.transfer;
  const before = await read();
  expect(before.sender).toEqual({ personId, name: 'Jane Doe' });
  expect(before.recipient).toEqual({ name: 'Maria Silva', destinationType: 'PIX', destination: 'm•••@example.com' });
  expect(JSON.stringify(before)).not.toContain(RECIPIENT.destination.pixKey);
  // the person changes later (a correction): the transfer's history does not
  const person = await t.app.db.prisma.person.findUniqueOrThrow({ where: { id: personId } });
  await t.app.db.prisma.person.update({
    where: { id: personId },
    data: { details: { ...(person.details as object), firstName: 'Janet', lastName: 'Other' } },
  });
  expect((await read()).sender).toEqual({ personId, name: 'Jane Doe' });
  // the platform's facts with their values
  const events = before.events.edges.map((e: any) => e.node);
  expect(events).toContainEqual({ action: 'platform status', value: 'Paid' });
  expect(events).toContainEqual({ action: 'platform compliance', value: 'Approved' });
  expect(events).toContainEqual({ action: 'platform payout', value: 'CAPTURED' });
});

it.each([
  [{ type: 'PIX' as const, pixKeyType: 'EMAIL', pixKey: 'maria@example.com' }, 'm•••@example.com'],
  [{ type: 'PIX' as const, pixKeyType: 'CPF', pixKey: '123.456.789-01' }, '•••• 8901'],
  [{ type: 'PIX' as const, pixKeyType: 'PHONE', pixKey: '+5511987654321' }, '•••• 4321'],
  [{ type: 'PIX' as const, pixKeyType: 'EVP', pixKey: '2d1f0c3a-9b7e-4c1d-8f2a-6e5b4a3c2d1e' }, '•••• 2d1e'],
  [{ type: 'WALLET' as const, walletId: 'wal_0011223344' }, '•••• 3344'],
])('masks %j as %s', (destination, masked) => {
  expect(maskDestination(destination)).toBe(masked);
});
