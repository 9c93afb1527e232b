/**
 * The corridor of a transfer is where the money goes: createTransfer applies the rule of the recipient's country,
 * whatever the quote was asked for, and refuses a quote priced for another country — before any upstream call.
 */
import { gql, startTestApp, type TestApp } from '../helpers/app';
import { checkFundingAs } from '../helpers/funding';
import { newPerson, RECIPIENT, transferInput } from '../e2e/transfer-helpers';

let t: TestApp;
let token: string;
let personId: string;
beforeAll(async () => {
  t = await startTestApp({ TRANSFER_CORRIDORS: 'USD>BRL=1..10000,USD>BRL/AR=1..20,*=..5000', SAGA_WORKER_ENABLED: 'false' });
  token = await t.token('corridor-recipient', 'customer');
  personId = await newPerson(t.url, token);
}, 90_000);
afterAll(() => t?.close());

const CREATE = 'mutation($i: CreateTransferInput!) { createTransfer(input: $i) { id } }';
async function quote(destinationCountry?: string): Promise<string> {
  const r = await gql<any>(t.url, 'mutation($i: CreateQuoteInput!) { createQuote(input: $i) { id } }', {
    token,
    variables: {
      i: {
        sourceCurrency: 'USD',
        destinationCurrency: 'BRL',
        paymentMethod: 'CARD',
        sourceAmount: '100.00',
        ...(destinationCountry ? { destinationCountry } : {}),
      },
    },
  });
  if (!r.body.data) throw new Error(JSON.stringify(r.body.errors));
  return r.body.data.createQuote.id;
}
async function transferTo(quoteId: string, countryCode: string, key: string) {
  const i = { ...transferInput({ quoteId, personId, key }), recipient: { ...RECIPIENT, address: { ...RECIPIENT.address, countryCode } } };
  await checkFundingAs(t.url, token, i);
  const before = t.app.sandbox!.ctx.calls.length;
  const r = await gql<any>(t.url, CREATE, { token, variables: { i } });
  return { r, calls: t.app.sandbox!.ctx.calls.length - before };
}

it("applies the rule of the recipient's country, not the quote's (a quote without a country cannot widen it)", async () => {
  const { r, calls } = await transferTo(await quote(), 'AR', 'corridor-ar-1');
  expect(calls).toBe(0);
  expect(r.body.errors?.[0]?.extensions).toMatchObject({ code: 'BAD_USER_INPUT', maxAmount: { amount: '20.00', currency: 'USD' } });
  expect(await t.app.db.prisma.transfer.count({ where: { ownerId: 'corridor-recipient' } })).toBe(0);
});

it('refuses a quote priced for another destination country, naming the field to change', async () => {
  const { r, calls } = await transferTo(await quote('BR'), 'AR', 'corridor-ar-2');
  expect(calls).toBe(0);
  expect(r.body.errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
  expect(r.body.errors?.[0]?.extensions?.detail).toMatch(/^quoteId: .*destinationCountry AR/);
  expect(r.body.errors?.[0]?.extensions?.fields).toEqual([expect.objectContaining({ path: 'input.quoteId', code: 'MISMATCH' })]);
});

it('within the rule of the recipient country the transfer is created', async () => {
  const { r } = await transferTo(await quote('BR'), 'BR', 'corridor-br-1');
  expect(r.body.errors).toBeUndefined();
  expect(r.body.data.createTransfer.id).toEqual(expect.any(String));
});
