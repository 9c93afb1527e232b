import { gql, type TestApp } from '../helpers/app';
import { checkFundingAs } from '../helpers/funding';
import { cardToken } from '../helpers/sandbox';

export const TRANSFER_FIELDS = `id status version sendAmount { amount currency } receiveAmount { amount currency } rate capturedAmount { amount currency }
  nextAction { type redirectUrl } failure { code message } complianceStatus createdAt updatedAt`;

export const personInput = (lastName = 'Doe') => ({
  type: 'INDIVIDUAL',
  firstName: 'Jane',
  lastName,
  identificationType: 'SSN',
  identification: '123-45-6789',
  address: { addressLine1: '1 Main St', city: 'Springfield', state: 'CA', postalCode: '94105', countryCode: 'US', phoneNumber: '+14155550100', emailAddress: 'jane@example.com' },
});

export function transferInput(opts: { quoteId: string; personId: string; key: string; card?: string; lastName?: string; funding?: Record<string, unknown> }) {
  return {
    idempotencyKey: opts.key,
    quoteId: opts.quoteId,
    personId: opts.personId,
    ipAddress: '203.0.113.7',
    sender: {
      customer: { firstName: 'Jane', lastName: opts.lastName ?? 'Doe', email: 'jane@example.com', phoneNumber: '+14155550100', documentNumber: 'X1234567', documentType: 'PASSPORT', countryCode: 'US' },
      address: { line1: '1 Main St', city: 'Springfield', state: 'California', stateCode: 'CA', zipCode: '94105', countryCode: 'US' },
    },
    recipient: {
      customer: { firstName: 'Maria', lastName: 'Silva', countryCode: 'BR' },
      address: { line1: 'Rua A 1', city: 'Sao Paulo', state: 'Sao Paulo', stateCode: 'SP', zipCode: '01000-000', countryCode: 'BR' },
      destination: { type: 'PIX', pixKeyType: 'EMAIL', pixKey: 'maria@example.com' },
    },
    funding: opts.funding ?? { type: 'CARD', cardTokenId: cardToken(opts.card ?? '1234') },
  };
}

export async function newQuote(url: string, token: string, amount = '100.00'): Promise<string> {
  const r = await gql<any>(url, `mutation($i: CreateQuoteInput!) { createQuote(input: $i) { id } }`, {
    token,
    variables: { i: { sourceCurrency: 'USD', destinationCurrency: 'BRL', paymentMethod: 'BANK_ACCOUNT', sourceAmount: amount } },
  });
  if (!r.body.data) throw new Error(JSON.stringify(r.body.errors));
  return r.body.data.createQuote.id;
}

export async function newPerson(url: string, token: string, lastName = 'Doe'): Promise<string> {
  const r = await gql<any>(url, `mutation($i: PersonInput!) { createPerson(input: $i) { id status } }`, { token, variables: { i: personInput(lastName) } });
  return r.body.data.createPerson.id;
}

/** createTransfer as `token`, after checking its card as that customer (a card funds only its checker's transfers). */
export async function createTransfer(url: string, token: string, input: unknown) {
  await checkFundingAs(url, token, input);
  return gql<any>(url, `mutation($i: CreateTransferInput!) { createTransfer(input: $i) { ${TRANSFER_FIELDS} } }`, { token, variables: { i: input } });
}

export async function getTransfer(url: string, token: string, id: string) {
  const r = await gql<any>(url, `query($id: ID!) { transfer(id: $id) { ${TRANSFER_FIELDS} events(first: 50) { edges { node { seq fromStatus toStatus cause actor action } } } } }`, { token, variables: { id } });
  return r.body.data?.transfer ?? null;
}

/** Polls until the transfer is in one of `statuses` (the worker runs in the background). */
export async function waitForStatus(t: TestApp, token: string, id: string, statuses: string[], timeoutMs = 10_000) {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const tr = await getTransfer(t.url, token, id);
    if (tr && statuses.includes(tr.status)) return tr;
    if (Date.now() > end) throw new Error(`transfer ${id} is ${tr?.status}, expected ${statuses.join('|')}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/**
 * Feeds a platform event the way the webhook inbox will (source: test), about the platform transaction recorded
 * for the transfer (the sandbox's own deliveries may have recorded it already; else a made-up one is bound).
 */
export async function platformEvent(t: TestApp, externalPaymentId: string, change: any) {
  const recorded = await t.app.db.prisma.transfer.findUnique({ where: { externalPaymentId }, select: { externalTransactionId: true } });
  return t.app.transfers.service.applyPlatformEvent({
    source: { kind: 'test' },
    transactionId: recorded?.externalTransactionId ?? `tx-${externalPaymentId}`,
    externalTransactionId: externalPaymentId,
    tenantId: 'sandbox-tenant',
    occurredAt: new Date(),
    change,
    messages: [],
  });
}
