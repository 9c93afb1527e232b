/** Request bodies shared by the gateway contract tests (not a test file itself). */
import { cardToken, type TestSandbox } from '../helpers/sandbox';

let seq = 0;
export const uniqueId = (prefix = 'ext'): string => `${prefix}-${process.pid}-${Date.now()}-${++seq}`;

export function customer(lastName = 'Doe') {
  return {
    firstName: 'Jane',
    lastName,
    phoneNumber: '+14155550100',
    documentNumber: '123456789',
    documentType: 'PASSPORT',
    email: 'jane@example.com',
    countryCodeAlpha3: 'USA',
  };
}

export const address = { stateCode: 'CA', city: 'San Francisco', line1: '1 Market St', state: 'California', zipCode: '94105' };

export async function createWallet(sb: TestSandbox, accountAsset = 'BRL'): Promise<string> {
  const res = await sb.gateway('POST', '/wallets', { accountAsset, ownerId: 'owner-1', beneficiaryId: 'ben-1', type: 'PERSONAL' });
  if (res.status !== 200) throw new Error(res.text);
  return res.body.walletId;
}

export async function quote(sb: TestSandbox, sourceCurrencyAmount = 100, dst = 'BRL') {
  const res = await sb.gateway('POST', '/v2/foreign-exchange', {
    sourceCurrencyCode: 'USD',
    destinationCurrencyCode: dst,
    paymentMethod: 'WALLET',
    sourceCurrencyAmount,
  });
  if (res.status !== 200) throw new Error(res.text);
  return res.body as { fxId: string; conversionRate: number; destinationCurrencyAmount: number; quoteIdExpiryDateTime: string };
}

export interface PaymentOpts {
  externalPaymentId?: string;
  walletId?: string;
  token?: string;
  amount?: number;
  capture?: boolean;
  lastName?: string;
}

/** A PULLPUSH card → wallet body locked on a fresh v2 quote. */
export async function pullPushBody(sb: TestSandbox, o: PaymentOpts = {}) {
  const amount = o.amount ?? 100;
  const q = await quote(sb, amount);
  const walletId = o.walletId ?? (await createWallet(sb));
  const body: Record<string, unknown> = {
    externalPaymentId: o.externalPaymentId ?? uniqueId('pay'),
    ipAddress: '203.0.113.7',
    paymentType: 'PULLPUSH',
    amount: { total: amount, currency: 'USD' },
    recipientAmount: { total: q.destinationCurrencyAmount, currency: 'BRL' },
    exchangeRate: q.conversionRate,
    fxId: q.fxId,
    sender: {
      customer: customer(o.lastName),
      customerAddress: address,
      source: { type: 'CARD', card: { token: o.token ?? cardToken('1234') } },
    },
    recipient: { customer: customer('Silva'), customerAddress: address, destination: { type: 'WALLET', wallet: { walletId } } },
  };
  if (o.capture !== undefined) body.capture = o.capture;
  return { body, quote: q, walletId };
}
