import { FundingCredentials } from '../../src/modules/checks/checks.credentials.repository';
import { systemClock } from '../../src/shared/clock';
import { gql, type TestApp } from '../helpers/app';
import { checkFundingAs, personInput, RECIPIENT, withSenderLastName } from '../helpers/funding';
import { cardToken } from '../helpers/sandbox';
import { waitFor } from '../helpers/wait';

export const TRANSFER_FIELDS = `id status version sendAmount { amount currency } receiveAmount { amount currency } rate capturedAmount { amount currency }
  nextAction { type redirectUrl } failure { code message } complianceStatus createdAt updatedAt`;

export { personInput, RECIPIENT };

/**
 * A createTransfer input. `lastName` asks for a sender of that name (sandbox magic such as Compliance-Review):
 * createTransfer (the helper) then creates that person first and uses it instead of `personId`.
 */
export function transferInput(opts: {
  quoteId: string;
  personId: string;
  key: string;
  card?: string;
  lastName?: string;
  funding?: Record<string, unknown>;
}) {
  return withSenderLastName(
    {
      idempotencyKey: opts.key,
      quoteId: opts.quoteId,
      personId: opts.personId,
      recipient: RECIPIENT,
      funding: opts.funding ?? { type: 'CARD', cardToken: cardToken(opts.card ?? '1234') },
    },
    opts.lastName,
  );
}

/** A quote for `paymentMethod` (CARD by default, as transferInput funds with a card). */
export async function newQuote(url: string, token: string, amount = '100.00', paymentMethod = 'CARD'): Promise<string> {
  const r = await gql<any>(url, `mutation($i: CreateQuoteInput!) { createQuote(input: $i) { id } }`, {
    token,
    variables: { i: { sourceCurrency: 'USD', destinationCurrency: 'BRL', paymentMethod, sourceAmount: amount } },
  });
  if (!r.body.data) throw new Error(JSON.stringify(r.body.errors));
  return r.body.data.createQuote.id;
}

export async function newPerson(url: string, token: string, lastName = 'Doe'): Promise<string> {
  const r = await gql<any>(url, `mutation($i: PersonInput!) { createPerson(input: $i) { id status } }`, {
    token,
    variables: { i: personInput(lastName) },
  });
  return r.body.data.createPerson.id;
}

/**
 * Binds the sandbox card ending `card` to `ownerId` as an accepted checkCard does. For a card whose own check
 * fails (0003): the API binds only cards the gateway accepted, so a transfer funded with it is what a card that
 * passed checkCard and fails the saga's check later (the gateway's answer changed) looks like.
 */
export async function bindCheckedCard(t: TestApp, ownerId: string, card: string): Promise<void> {
  await new FundingCredentials(t.app.db.sql, systemClock, {
    cardCheckMaxAgeMs: t.app.config.cardCheckMaxAgeMs,
    cardCheckReuseMs: t.app.config.cardCheckReuseMs,
  }).bind('card', cardToken(card), ownerId);
}

/** createTransfer as `token`, after checking its card as that customer (a card funds only its checker's transfers). */
export async function createTransfer(url: string, token: string, input: unknown) {
  await checkFundingAs(url, token, input);
  return gql<any>(url, `mutation($i: CreateTransferInput!) { createTransfer(input: $i) { ${TRANSFER_FIELDS} } }`, {
    token,
    variables: { i: input },
  });
}

export async function getTransfer(url: string, token: string, id: string) {
  const r = await gql<any>(
    url,
    `query($id: ID!) { transfer(id: $id) { ${TRANSFER_FIELDS} events(first: 50) { edges { node { seq fromStatus toStatus cause actor action } } } } }`,
    { token, variables: { id } },
  );
  return r.body.data?.transfer ?? null;
}

/** Polls until the transfer is in one of `statuses` (the worker runs in the background). */
export async function waitForStatus(t: TestApp, token: string, id: string, statuses: string[], timeoutMs = 10_000) {
  let seen: string | undefined;
  return waitFor(
    async () => {
      const tr = await getTransfer(t.url, token, id);
      seen = tr?.status;
      return tr && statuses.includes(tr.status) ? tr : null;
    },
    { timeoutMs, intervalMs: 50, what: () => `transfer ${id} to be ${statuses.join('|')} (it is ${seen})` },
  );
}

/**
 * Feeds a platform event the way the webhook inbox will (source: test), about the platform transaction recorded
 * for the transfer (the sandbox's own deliveries may have recorded it already; else a made-up one is bound).
 */
/**
 * Feeds one platform event as the platform would send it: with the platform transaction id recorded for the
 * transfer, else the one the (sandbox) platform holds for it — events naming another id are rightly mismatches —
 * else (a transfer the platform never saw, e.g. a fixture) a made-up one.
 */
export async function platformEvent(t: TestApp, externalPaymentId: string, change: any) {
  const recorded = await t.app.db.prisma.transfer.findUnique({ where: { externalPaymentId }, select: { externalTransactionId: true } });
  let transactionId = recorded?.externalTransactionId ?? null;
  const sandbox = t.app.sandbox;
  if (!transactionId && sandbox) {
    const o = sandbox.ctx.options;
    const res = await fetch(`${sandbox.url}/remittances/organizations/${o.remittancesTenantId}/fx/transactions/${externalPaymentId}`, {
      headers: { 'x-api-key': o.remittancesApiKey, 'x-agent-id': o.remittancesAgentId, 'x-agent-api-key': o.remittancesAgentApiKey },
    }).catch(() => null);
    if (res?.ok) transactionId = ((await res.json()) as { transactionId?: string }).transactionId ?? null;
    else await res?.body?.cancel();
  }
  return t.app.transfers.service.applyPlatformEvent({
    source: { kind: 'test' },
    transactionId: transactionId ?? `tx-${externalPaymentId}`,
    externalTransactionId: externalPaymentId,
    tenantId: 'sandbox-tenant',
    occurredAt: new Date(),
    change,
    messages: [],
  });
}
