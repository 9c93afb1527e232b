/**
 * Price before commitment and the receipt: a quote shows the fee, the total and the delivery estimate (TRANSFER_FEES,
 * TRANSFER_DELIVERY_TIMES); the corridor queries show them without quoting; a transfer keeps exactly what was quoted
 * and the gateway pulls the total; the receipt shows the same figures as the transfer, with a reference a person can
 * read out and the operator's support contact.
 */
import { gql, startTestApp, type TestApp } from '../helpers/app';
import { createTransfer, newPerson, RECIPIENT, transferInput, waitForStatus } from '../e2e/transfer-helpers';
import { checkFundingAs } from '../helpers/funding';
import { cardToken } from '../helpers/sandbox';

let t: TestApp;
let alice: string;
beforeAll(async () => {
  t = await startTestApp({
    TRANSFER_FEES: 'USD>BRL:CARD=2.99+1%,USD>BRL:BANK_ACCOUNT=0.99,JPY>*=1.5%,KWD>*=0.125+0.5%,*=0',
    TRANSFER_DELIVERY_TIMES: 'USD>BRL:PIX=..1h,USD>BRL:WALLET=5m..10m,*=1h..3d',
    SUPPORT_NAME: 'Acme Remit',
    SUPPORT_EMAIL: 'help@acme.example',
    SUPPORT_PHONE: '+18005550100',
  });
  alice = await t.token('price-alice', 'customer');
}, 60_000);
afterAll(() => t?.close());

const QUOTE = `mutation($i: CreateQuoteInput!) { createQuote(input: $i) {
  id rate source { amount currency } destination { amount currency } fee { amount currency } total { amount currency }
  deliveryEstimate { earliest latest } destinationType } }`;
const quote = async (i: Record<string, unknown>) => {
  const r = await gql<any>(t.url, QUOTE, {
    token: alice,
    variables: { i: { sourceCurrency: 'USD', destinationCurrency: 'BRL', paymentMethod: 'CARD', ...i } },
  });
  if (!r.body.data) throw new Error(JSON.stringify(r.body.errors));
  return r.body.data.createQuote;
};
const hours = (a: string, b: string) => (Date.parse(b) - Date.parse(a)) / 3_600_000;

it('a quote shows the fee, the total (source + fee, exactly) and when the money should arrive', async () => {
  const before = Date.now();
  const card = await quote({ sourceAmount: '100.00' });
  expect(card.fee).toEqual({ amount: '3.99', currency: 'USD' });
  expect(card.total).toEqual({ amount: '103.99', currency: 'USD' });
  expect(card.destinationType).toBeNull();
  // no destination type: the widest window over PIX (..1h) and WALLET (5m..10m)
  expect(Date.parse(card.deliveryEstimate.earliest)).toBeGreaterThanOrEqual(before - 1000);
  expect(hours(card.deliveryEstimate.earliest, card.deliveryEstimate.latest)).toBeCloseTo(1, 5);
  const bank = await quote({ sourceAmount: '100.00', paymentMethod: 'ACH', destinationType: 'WALLET' });
  expect([bank.fee.amount, bank.total.amount, bank.destinationType]).toEqual(['0.99', '100.99', 'WALLET']);
  expect(hours(bank.deliveryEstimate.earliest, bank.deliveryEstimate.latest) * 60).toBeCloseTo(5, 5);
  // no amount: no fee, no total — still an estimate
  const rateOnly = await quote({});
  expect([rateOnly.fee, rateOnly.total]).toEqual([null, null]);
  expect(rateOnly.deliveryEstimate.latest).toEqual(expect.any(String));
});

it('the corridor queries show fees, rounding and delivery times, and price an amount without quoting (0, 2 and 3 decimals)', async () => {
  const Q = `query($s: String!, $d: String!, $a: Decimal!) { corridor(sourceCurrency: $s, destinationCurrency: $d) {
    fees { fundingType fixed { amount currency } percent } feeRounding deliveryTimes { destinationType minSeconds maxSeconds }
    card: price(sendAmount: $a, fundingType: CARD) { fee { amount currency } total { amount currency } }
    bank: price(sendAmount: $a, fundingType: BANK_ACCOUNT) { fee { amount } total { amount } } } }`;
  const usd = (await gql<any>(t.url, Q, { token: alice, variables: { s: 'USD', d: 'BRL', a: '250.00' } })).body.data.corridor;
  expect(usd.fees).toEqual([
    { fundingType: 'CARD', fixed: { amount: '2.99', currency: 'USD' }, percent: '1' },
    { fundingType: 'BANK_ACCOUNT', fixed: { amount: '0.99', currency: 'USD' }, percent: '0' },
  ]);
  expect(usd.feeRounding).toBe('HALF_UP');
  expect(usd.deliveryTimes).toEqual([
    { destinationType: 'WALLET', minSeconds: 300, maxSeconds: 600 },
    { destinationType: 'PIX', minSeconds: 0, maxSeconds: 3600 },
  ]);
  expect(usd.card).toEqual({ fee: { amount: '5.49', currency: 'USD' }, total: { amount: '255.49', currency: 'USD' } });
  expect(usd.bank).toEqual({ fee: { amount: '0.99' }, total: { amount: '250.99' } });
  const jpy = (await gql<any>(t.url, Q, { token: alice, variables: { s: 'JPY', d: 'PHP', a: '9999' } })).body.data.corridor;
  expect(jpy.card).toEqual({ fee: { amount: '150', currency: 'JPY' }, total: { amount: '10149', currency: 'JPY' } }); // 149.985 → 150
  const kwd = (await gql<any>(t.url, Q, { token: alice, variables: { s: 'KWD', d: 'INR', a: '12.345' } })).body.data.corridor;
  expect(kwd.card).toEqual({ fee: { amount: '0.187', currency: 'KWD' }, total: { amount: '12.532', currency: 'KWD' } });
  // an amount no transfer may send is refused as createQuote refuses it
  const tooMuch = await gql<any>(t.url, Q, { token: alice, variables: { s: 'USD', d: 'BRL', a: '1000000.00' } });
  expect(tooMuch.body.errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
});

const READ = `query($id: ID!) { transfer(id: $id) { id status sendAmount { amount currency } fee { amount currency }
  total { amount currency } rate receiveAmount { amount currency } capturedAmount { amount currency } refundedAmount { amount currency }
  deliveryEstimate { earliest latest } cancellableUntil createdAt sender { personId name } recipient { name destinationType destination }
  receipt { reference createdAt status sender { personId name } recipient { name destinationType destination } funding { type lastFour }
    sendAmount { amount currency } fee { amount currency } total { amount currency } rate receiveAmount { amount currency }
    deliveryEstimate { earliest latest } cancellableUntil refundedAmount { amount currency } support { name email phone url } } } }`;

it('the transfer keeps exactly what was quoted, the gateway pulls the total, and the receipt shows the same figures', async () => {
  const personId = await newPerson(t.url, alice);
  const q = await quote({ sourceAmount: '100.00', destinationType: 'PIX' });
  // the fee configuration changed since the quote (here: the stored quote says 4.50): the quoted fee is what counts
  await t.app.db.prisma.quote.update({ where: { id: q.id }, data: { feeAmount: '4.5' } });
  // what the gateway was asked to authorize, as the simulated gateway publishes it
  const authorized: Array<{ amount: unknown; recipientAmount: unknown }> = [];
  const seen = (f: { amount: unknown; recipientAmount: unknown }) => authorized.push(f);
  t.app.sandbox!.ctx.bus.on('payment.authorized', seen);
  const r = await createTransfer(t.url, alice, transferInput({ quoteId: q.id, personId, key: 'price-receipt-1', card: '4242' }));
  expect(r.body.errors).toBeUndefined();
  const id: string = r.body.data.createTransfer.id;
  await waitForStatus(t, alice, id, ['COMPLETED'], 20_000);
  const tr = (await gql<any>(t.url, READ, { token: alice, variables: { id } })).body.data.transfer;
  expect(tr.sendAmount).toEqual({ amount: '100.00', currency: 'USD' });
  expect(tr.fee).toEqual({ amount: '4.50', currency: 'USD' });
  expect(tr.total).toEqual({ amount: '104.50', currency: 'USD' });
  expect(tr.capturedAmount).toEqual(tr.total);
  expect(tr.receiveAmount).toEqual(q.destination);
  expect(tr.deliveryEstimate).toEqual(q.deliveryEstimate);
  // the gateway was asked for the total, and the recipient's amount at the rate
  t.app.sandbox!.ctx.bus.off('payment.authorized', seen);
  expect(authorized).toEqual([
    expect.objectContaining({
      amount: { total: 104.5, currency: 'USD' },
      recipientAmount: { total: Number(q.destination.amount), currency: 'BRL' },
    }),
  ]);
  // the receipt: the transfer's own figures, the parties, the funding's last four, the support contact
  const rc = tr.receipt;
  expect(rc.reference).toMatch(/^[0-9A-F]{4}-[0-9A-F]{4}-[0-9A-F]{4}$/);
  expect(rc.reference.replace(/-/g, '').toLowerCase()).toBe(id.replace(/-/g, '').slice(0, 12));
  for (const k of ['createdAt', 'status', 'sender', 'recipient', 'sendAmount', 'fee', 'total', 'rate', 'receiveAmount', 'deliveryEstimate'])
    expect([k, rc[k]]).toEqual([k, tr[k]]);
  expect(rc.cancellableUntil).toBe(tr.cancellableUntil);
  expect(rc.refundedAmount).toEqual(tr.refundedAmount);
  // the last four digits the gateway answered for the card (the sandbox derives them from the token)
  const check = await gql<any>(t.url, `mutation($i: CheckCardInput!) { checkCard(input: $i) { lastFour } }`, {
    token: alice,
    variables: { i: { cardToken: cardToken('4242'), personId } },
  });
  expect(check.body.data.checkCard.lastFour).toMatch(/^\d{4}$/);
  expect(rc.funding).toEqual({ type: 'CARD', lastFour: check.body.data.checkCard.lastFour });
  expect(rc.support).toEqual({ name: 'Acme Remit', email: 'help@acme.example', phone: '+18005550100', url: null });
  expect(rc.recipient.destination).not.toContain(RECIPIENT.destination.pixKey);
});

it('a quote asked for one destination type is refused for another, before anything is written', async () => {
  const personId = await newPerson(t.url, alice);
  const q = await quote({ sourceAmount: '20.00', destinationType: 'WALLET' });
  const input = transferInput({ quoteId: q.id, personId, key: 'price-dest-mismatch' });
  await checkFundingAs(t.url, alice, input);
  const before = t.app.sandbox!.ctx.calls.length;
  const r = await gql<any>(t.url, `mutation($i: CreateTransferInput!) { createTransfer(input: $i) { id } }`, {
    token: alice,
    variables: { i: input },
  });
  expect(r.body.errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
  expect(r.body.errors?.[0]?.extensions?.detail).toMatch(/destinationType PIX/);
  expect(r.body.errors?.[0]?.extensions?.fields).toEqual([expect.objectContaining({ path: 'input.quoteId', code: 'MISMATCH' })]);
  expect(t.app.sandbox!.ctx.calls.length).toBe(before);
  expect(await t.app.db.prisma.quote.findUniqueOrThrow({ where: { id: q.id } })).toMatchObject({ usedByTransferId: null });
});
