/** GraphQL calls the scenarios make, tolerant of a dead service (status 0) so a kill storm can retry. */
import { createHash } from 'node:crypto';
import { personInput, transferInput } from '../../e2e/transfer-helpers';
import { cardOf, checkFundingAs, withSenderLastName } from '../../helpers/funding';
import type { TransferView } from './ledger';

export interface GqlResult<T = any> {
  status: number; // 0: no answer (connection refused/reset)
  body: { data?: T | null; errors?: { message: string; extensions?: Record<string, unknown> }[] } | null;
  text: string;
}

/**
 * A card funds only the transfers of the customer who checked it, and the first to check a card owns it: every
 * caller gets cards of their own — the input's card with a prefix derived from the caller's token (the sandbox's
 * magic suffix kept, the same card for the same caller, so a repeated request stays the same request).
 */
function ownCard(input: unknown, token: string): unknown {
  const card = cardOf(input);
  if (!card) return input;
  const h = createHash('sha256').update(token).digest('hex');
  const cardToken = `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-8${h.slice(17, 20)}-${card.slice(-12)}`;
  return withSenderLastName(
    { ...(input as object), funding: { ...(input as { funding: object }).funding, cardToken } },
    (input as { senderLastName?: string }).senderLastName,
  );
}

/** createTransfer (CREATE) is funded with the caller's own card (ownCard), checked as the caller first. */
export async function gqlRaw<T = any>(
  url: string,
  query: string,
  variables?: Record<string, unknown>,
  token?: string,
  timeoutMs = 30_000,
): Promise<GqlResult<T>> {
  if (query === CREATE && token && variables?.i) {
    variables = { ...variables, i: ownCard(variables.i, token) };
    // its sender could not be created (the service is down): answer as a dead service would, so the caller retries
    if (!(await checkFundingAs(url, token, variables.i))) return { status: 0, body: null, text: '' };
  }
  try {
    const res = await fetch(`${url}/graphql`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/graphql-response+json, application/json',
        ...(token ? { authorization: `Bearer ${token}` } : {}),
      },
      body: JSON.stringify({ query, variables }),
      signal: AbortSignal.timeout(timeoutMs),
    });
    const text = await res.text();
    let body: GqlResult['body'] = null;
    try {
      body = JSON.parse(text);
    } catch {
      /* not JSON */
    }
    return { status: res.status, body, text };
  } catch {
    return { status: 0, body: null, text: '' };
  }
}

export const code = (r: GqlResult) => (r.body?.errors?.[0]?.extensions?.code as string | undefined) ?? null;

export const VIEW_FIELDS =
  'id status version sendAmount { amount currency } fee { amount currency } total { amount currency } capturedAmount { amount currency } refundedAmount { amount currency } complianceStatus';

export async function newPerson(url: string, token: string, lastName = 'Doe'): Promise<string> {
  const r = await gqlRaw(url, 'mutation($i: PersonInput!) { createPerson(input: $i) { id status } }', { i: personInput(lastName) }, token);
  const id = r.body?.data?.createPerson?.id;
  if (!id) throw new Error(`createPerson: ${r.status} ${r.text.slice(0, 300)}`);
  return id;
}

/** Every quote newQuote obtained: id → expiresAt (ms). A transfer still waiting for its customer once its quote
 * expired is EXPIRED by the saga's watchdog — the oracle needs to know when that became legitimate. */
export const quoteExpiry = new Map<string, number>();

export async function newQuote(url: string, token: string, amount = '100.00', paymentMethod = 'CARD'): Promise<string> {
  const r = await gqlRaw(
    url,
    'mutation($i: CreateQuoteInput!) { createQuote(input: $i) { id expiresAt } }',
    {
      i: { sourceCurrency: 'USD', destinationCurrency: 'BRL', paymentMethod, sourceAmount: amount },
    },
    token,
  );
  const id = r.body?.data?.createQuote?.id;
  if (!id) throw new Error(`createQuote: ${r.status} ${r.text.slice(0, 300)}`);
  quoteExpiry.set(id, Date.parse(r.body?.data?.createQuote?.expiresAt));
  return id;
}

export type Kind = 'happy' | 'reject' | 'declined' | 'review' | 'threeds' | 'payoutReject';

export const kindInput = (kind: Kind, quoteId: string, personId: string, key: string) => {
  const input = transferInput({
    quoteId,
    personId,
    key,
    ...(kind === 'reject' ? { lastName: 'Compliance-Reject' } : kind === 'review' ? { lastName: 'Compliance-Review' } : {}),
    ...(kind === 'declined' ? { card: '0004' } : kind === 'threeds' ? { card: '0002' } : {}),
  });
  // the platform rejects the payout after the capture: the money must go back
  if (kind === 'payoutReject')
    input.recipient = { ...input.recipient, customer: { ...input.recipient.customer, lastName: 'Payout-Reject' } };
  return input;
};

/** What in-order delivery of the platform's events gives each kind (test/e2e: happy/magic-value paths). */
export const IN_ORDER: Record<Kind, string[]> = {
  happy: ['COMPLETED'],
  reject: ['VOIDED'],
  declined: ['DECLINED'],
  review: ['AUTHORIZED'], // waits for the manual compliance decision (legitimately waiting)
  threeds: ['ACTION_REQUIRED'], // waits for the customer's 3DS challenge (legitimately waiting)
  payoutReject: ['REFUNDED'], // captured, the payout rejected, every cent back with the sender
};

export const CREATE = `mutation($i: CreateTransferInput!) { createTransfer(input: $i) { ${VIEW_FIELDS} } }`;

export async function readTransfers(url: string, token: string, ids: readonly string[]): Promise<TransferView[]> {
  const out: TransferView[] = [];
  for (let i = 0; i < ids.length; i += 20) {
    const chunk = ids.slice(i, i + 20);
    const res = await Promise.all(
      chunk.map(async (id) => {
        const r = await gqlRaw(url, `query($id: ID!) { transfer(id: $id) { ${VIEW_FIELDS} } }`, { id }, token);
        const t = r.body?.data?.transfer;
        if (!t) throw new Error(`transfer ${id}: ${r.status} ${r.text.slice(0, 300)}`);
        return t as TransferView;
      }),
    );
    out.push(...res);
  }
  return out;
}
