/**
 * Corridor rules (TRANSFER_CORRIDORS): per source → destination currency (and optionally country) minimum and
 * maximum amounts, readable before quoting (`corridors`, `corridor`) and enforced by createQuote before any
 * upstream call: BAD_USER_INPUT with the bound in extensions, never the amount sent.
 */
import { gql, startTestApp, type TestApp } from '../helpers/app';

let t: TestApp;
let token: string;
beforeAll(async () => {
  t = await startTestApp({ TRANSFER_CORRIDORS: 'USD>BRL=1..10000, USD>MXN/MX=5..2500, *=..5000' });
  token = await t.token('corridor-user', 'customer');
}, 90_000);
afterAll(() => t?.close());

const CREATE_QUOTE = `mutation($input: CreateQuoteInput!) { createQuote(input: $input) { id } }`;
const quote = (sourceAmount: string, destinationCurrency = 'BRL', destinationCountry?: string) => ({
  sourceCurrency: 'USD',
  destinationCurrency,
  paymentMethod: 'WALLET',
  sourceAmount,
  ...(destinationCountry ? { destinationCountry } : {}),
});
const upstreamCalls = () => t.app.sandbox!.ctx.calls.length;

async function refused(input: ReturnType<typeof quote>) {
  const before = upstreamCalls();
  const r = await gql<any>(t.url, CREATE_QUOTE, { token, variables: { input } });
  expect(upstreamCalls()).toBe(before);
  expect(r.body.errors).toHaveLength(1);
  expect(JSON.stringify(r.body.errors![0]!)).not.toContain(input.sourceAmount);
  return r.body.errors![0]!;
}

it('corridors: the configured corridors with their bounds, readable before quoting', async () => {
  const r = await gql<any>(
    t.url,
    `{ corridors { sourceCurrency destinationCurrency destinationCountry minAmount { amount currency } maxAmount { amount currency } } }`,
    { token },
  );
  expect(r.body.errors).toBeUndefined();
  expect(r.body.data.corridors).toEqual([
    {
      sourceCurrency: 'USD',
      destinationCurrency: 'BRL',
      destinationCountry: null,
      minAmount: { amount: '1.00', currency: 'USD' },
      maxAmount: { amount: '10000.00', currency: 'USD' },
    },
    {
      sourceCurrency: 'USD',
      destinationCurrency: 'MXN',
      destinationCountry: 'MX',
      minAmount: { amount: '5.00', currency: 'USD' },
      maxAmount: { amount: '2500.00', currency: 'USD' },
    },
  ]);
});

it('corridor(…): the rule that applies to one corridor (a configured one, else the default)', async () => {
  const Q = `query($s: String!, $d: String!, $c: String) { corridor(sourceCurrency: $s, destinationCurrency: $d, destinationCountry: $c) { minAmount { amount } maxAmount { amount currency } } }`;
  const mx = await gql<any>(t.url, Q, { token, variables: { s: 'USD', d: 'MXN', c: 'MX' } });
  expect(mx.body.data.corridor).toEqual({ minAmount: { amount: '5.00' }, maxAmount: { amount: '2500.00', currency: 'USD' } });
  const other = await gql<any>(t.url, Q, { token, variables: { s: 'EUR', d: 'BRL' } });
  expect(other.body.data.corridor).toEqual({ minAmount: { amount: '0.01' }, maxAmount: { amount: '5000.00', currency: 'EUR' } });
});

it('createQuote below the corridor minimum → BAD_USER_INPUT with minAmount, no upstream call', async () => {
  const e = await refused(quote('0.50'));
  expect(e.extensions).toMatchObject({
    code: 'BAD_USER_INPUT',
    fields: [expect.objectContaining({ path: 'input.sourceAmount', code: 'BELOW_MINIMUM' })],
    minAmount: { amount: '1.00', currency: 'USD' },
  });
});

it('createQuote above the corridor maximum (9,999,999,999.99 USD) → BAD_USER_INPUT with maxAmount, no upstream call', async () => {
  const e = await refused(quote('9999999999.99'));
  expect(e.extensions).toMatchObject({
    code: 'BAD_USER_INPUT',
    fields: [expect.objectContaining({ path: 'input.sourceAmount', code: 'ABOVE_MAXIMUM' })],
    maxAmount: { amount: '10000.00', currency: 'USD' },
  });
  const mx = await refused(quote('2600', 'MXN', 'MX'));
  expect(mx.extensions).toMatchObject({ maxAmount: { amount: '2500.00', currency: 'USD' } });
});

it('within the bounds the quote is made', async () => {
  const r = await gql<any>(t.url, CREATE_QUOTE, { token, variables: { input: quote('10000.00') } });
  expect(r.body.errors).toBeUndefined();
});
