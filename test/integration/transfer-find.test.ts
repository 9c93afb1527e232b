/**
 * Back-office finds a transfer by what a customer says on the phone (TransferFilter.search): the receipt reference,
 * the sender's or the recipient's name (words, accents and case ignored), an e-mail, a PIX key (as typed or as
 * digits), the last four digits of the card, the platform's transaction id. A customer's search stays within its own
 * transfers.
 */
import { gql, startTestApp, type TestApp } from '../helpers/app';
import { createTransfer, newPerson, newQuote, RECIPIENT, transferInput, waitForStatus } from '../e2e/transfer-helpers';
import { cardToken } from '../helpers/sandbox';

let t: TestApp;
let alice: string;
let bob: string;
let staff: string;
let pix: string; // a transfer to Joana Conceição by CPF key
let other: string; // bob's transfer to the default recipient
let pixRow: { externalTransactionId: string | null; id: string };
beforeAll(async () => {
  t = await startTestApp();
  alice = await t.token('find-alice', 'customer');
  bob = await t.token('find-bob', 'customer');
  staff = await t.token('find-staff', 'backoffice');
  const recipient = {
    ...RECIPIENT,
    customer: { ...RECIPIENT.customer, firstName: 'Joana', lastName: 'Conceição', email: 'Joana.C@Example.com' },
    destination: { type: 'PIX', pixKeyType: 'CPF', pixKey: '12345678909' },
  };
  const a = await createTransfer(t.url, alice, {
    ...transferInput({ quoteId: await newQuote(t.url, alice), personId: await newPerson(t.url, alice), key: 'find-key-1', card: '4242' }),
    recipient,
  });
  if (!a.body.data) throw new Error(JSON.stringify(a.body.errors));
  pix = a.body.data.createTransfer.id;
  const b = await createTransfer(
    t.url,
    bob,
    transferInput({ quoteId: await newQuote(t.url, bob), personId: await newPerson(t.url, bob), key: 'find-key-2', card: '1234' }),
  );
  other = b.body.data.createTransfer.id;
  const done = await waitForStatus(t, alice, pix, ['COMPLETED', 'FAILED'], 20_000);
  if (done.status !== 'COMPLETED') throw new Error(JSON.stringify(done.failure));
  await waitForStatus(t, bob, other, ['COMPLETED'], 20_000);
  pixRow = await t.app.db.prisma.transfer.findUniqueOrThrow({ where: { id: pix }, select: { id: true, externalTransactionId: true } });
}, 90_000);
afterAll(() => t?.close());

const FIND = `query($s: String!) { transfers(first: 20, filter: { search: $s }) { edges { node { id receipt { reference } } } } }`;
const find = async (s: string, token = staff): Promise<string[]> => {
  const r = await gql<any>(t.url, FIND, { token, variables: { s } });
  if (!r.body.data) throw new Error(JSON.stringify(r.body.errors));
  return r.body.data.transfers.edges.map((e: any) => e.node.id).sort();
};

it('by the receipt reference, with or without dashes, in any case', async () => {
  const r = await gql<any>(t.url, `query($id: ID!) { transfer(id: $id) { receipt { reference } } }`, {
    token: alice,
    variables: { id: pix },
  });
  const reference: string = r.body.data.transfer.receipt.reference;
  expect(await find(reference)).toEqual([pix]);
  expect(await find(reference.replace(/-/g, '').toLowerCase())).toEqual([pix]);
});

it('by the names of the parties: whole words, all of them, accents and case ignored', async () => {
  expect(await find('joana conceicao')).toEqual([pix]);
  expect(await find('CONCEIÇÃO')).toEqual([pix]);
  expect(await find('Jane Doe')).toEqual([pix, other].sort()); // the sender of both
  expect(await find('maria silva')).toEqual([other]); // the default recipient
  expect(await find('joana silva')).toEqual([]); // both words must match one transfer
  expect(await find('conce')).toEqual([]); // whole words
});

it('by e-mail, PIX key (as typed or as digits), card last four and platform transaction id', async () => {
  expect(await find('joana.c@example.com')).toEqual([pix]);
  expect(await find('123.456.789-09')).toEqual([pix]); // typed with punctuation: matched as digits
  expect(await find('12345678909')).toEqual([pix]);
  expect(await find(RECIPIENT.destination.pixKey!)).toEqual([other]);
  const lastFour = async (card: string, token: string) =>
    (
      await gql<any>(t.url, `mutation($i: CheckCardInput!) { checkCard(input: $i) { lastFour } }`, {
        token,
        variables: { i: { cardToken: cardToken(card), personId: await newPerson(t.url, token) } },
      })
    ).body.data.checkCard.lastFour as string;
  expect(await find(await lastFour('4242', alice))).toEqual([pix]);
  expect(pixRow.externalTransactionId).toEqual(expect.any(String));
  expect(await find(pixRow.externalTransactionId!)).toEqual([pix]);
});

it("a customer's search finds only its own transfers; an empty search is refused", async () => {
  expect(await find('Jane Doe', alice)).toEqual([pix]);
  expect(await find('Jane Doe', bob)).toEqual([other]);
  expect(await find('joana', bob)).toEqual([]);
  const empty = await gql<any>(t.url, FIND, { token: staff, variables: { s: ' ... ' } });
  expect(empty.body.errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
  expect(JSON.stringify(empty.body.errors)).not.toContain('...');
});

it('the search terms are GIN-indexed (the benchmark measures a search at a million transfers)', async () => {
  const rows = await t.app.db.prisma.$queryRawUnsafe<{ indexdef: string }[]>(
    `SELECT indexdef FROM pg_indexes WHERE tablename = 'transfers' AND indexname = 'transfers_search_terms_idx'`,
  );
  expect(rows[0]?.indexdef).toMatch(/USING gin \(search_terms\)/);
});
