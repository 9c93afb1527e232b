/** End to end inside the sandbox: a PULLPUSH payment through the simulated gateway drives the platform's events. */
import { cardToken, startTestSandbox, type TestSandbox } from '../helpers/sandbox';
import { agentHeaders, ALL_EVENTS, call, Receiver, subscribe, TENANT, waitFor } from './remittances.harness';

let sb: TestSandbox;
let rx: Receiver;

beforeAll(async () => {
  sb = await startTestSandbox({ options: { lifecycleStepMs: 5 } });
});
afterAll(async () => sb.close());
beforeEach(async () => {
  await sb.control.reset();
  rx = await new Receiver().start();
  await subscribe(sb.url, rx.url, ALL_EVENTS);
});
afterEach(async () => rx.close());

const customer = (lastName: string) => ({
  firstName: 'Ana',
  lastName,
  phoneNumber: '+15555550100',
  documentNumber: '123456789',
  documentType: 'PASSPORT',
  email: 'ana@example.com',
  countryCodeAlpha3: 'USA',
});
const address = { stateCode: 'FL', city: 'Miami', line1: '1 Main St', state: 'Florida', zipCode: '33101' };

async function pay(externalPaymentId: string, lastName: string) {
  const quote = await sb.gateway('POST', '/v2/foreign-exchange', {
    sourceCurrencyCode: 'USD',
    destinationCurrencyCode: 'BRL',
    paymentMethod: 'BANK_ACCOUNT',
    sourceCurrencyAmount: 100,
  });
  expect(quote.status).toBe(200);
  const res = await sb.gateway('POST', '/v2/payment', {
    externalPaymentId,
    ipAddress: '203.0.113.7',
    paymentType: 'PULLPUSH',
    fxId: quote.body.fxId,
    exchangeRate: quote.body.conversionRate,
    amount: { total: 100, currency: 'USD' },
    recipientAmount: { total: quote.body.destinationCurrencyAmount, currency: 'BRL' },
    sender: { customer: customer(lastName), customerAddress: address, source: { type: 'CARD', card: { token: cardToken('1234') } } },
    recipient: {
      customer: customer('Silva'),
      customerAddress: address,
      destination: { type: 'PIX', pix: { keyType: 'EMAIL', key: 'bia@example.com' } },
    },
  });
  if (res.status !== 200) throw new Error(`payment: ${res.status} ${res.text}`);
  return res.body;
}

const statuses = (ext: string) =>
  rx
    .events('TransactionStatusChanged')
    .filter((e) => e.externalTransactionId === ext)
    .map((e) => e.newStatus as string);

it('authorize → capture through the gateway → Completed, with the gateway payment id', async () => {
  const ext = `e2e-${Date.now()}`;
  const payment = await pay(ext, 'Doe');
  await waitFor(() => statuses(ext).includes('ReviewApproved'));
  const capture = await sb.gateway('POST', `/payments/${ext}/capture`, {});
  expect(capture.status).toBe(200);
  await waitFor(() => statuses(ext).includes('Completed'));
  expect(statuses(ext)).toEqual([
    'Created',
    'PaymentProcessing',
    'PaymentAuthorized',
    'ProcessingPayout',
    'PayoutAccepted',
    'ReviewApproved',
    'PaymentCaptured',
    'WaitingPayout',
    'Paid',
    'Completed',
  ]);
  const payout = rx.events('TransactionPayoutStatusChanged').find((e) => e.newPayoutStatus === 'CAPTURED');
  expect(payout).toMatchObject({ gatewayPaymentId: payment.paymentId, amount: { total: 100, currency: 'USD' } });
  const tx = await call(sb.url, 'GET', `/remittances/organizations/${TENANT}/fx/transactions/${ext}`, { headers: agentHeaders() });
  expect(tx.body.status).toBe('Completed');
});

it('Compliance-Reject → the caller voids → Voided', async () => {
  const ext = `e2e-rej-${Date.now()}`;
  await pay(ext, 'Compliance-Reject');
  await waitFor(() => statuses(ext).includes('ReviewRejected'));
  expect((await sb.gateway('POST', `/payments/${ext}/void`, {})).status).toBe(200);
  await waitFor(() => statuses(ext).includes('Voided'));
  expect(rx.events('TransactionComplianceStatusChangedEvent').map((e) => e.newComplianceStatus)).toEqual(['Pending', 'Rejected']);
});
