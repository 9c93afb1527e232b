import { print } from 'graphql';
import { gql, startTestApp, type TestApp } from '../helpers/app';
import { cardToken, http } from '../helpers/sandbox';
import { collect, wsClient } from '../helpers/ws';
import { waitFor } from '../helpers/wait';
import { CATALOGS } from '../../src/shared/messages';
import { execute } from '../operations/request';
import {
  CaptureTransferDocument,
  CheckBankAccountDocument,
  CheckCardDocument,
  CreatePersonDocument,
  CreateQuoteDocument,
  CreateTransferDocument,
  TransferDocument,
  TransfersDocument,
  TransferUpdatedDocument,
  type CreateTransferInput,
  type PersonInput,
  type TransferUpdatedSubscription,
} from '../generated/graphql';
import {
  bindCheckedCard,
  createTransfer,
  getTransfer,
  newPerson,
  newQuote,
  personInput,
  platformEvent,
  transferInput,
  waitForStatus,
  TRANSFER_FIELDS,
} from './transfer-helpers';

let t: TestApp;
let alice: string;
let staff: string;
let personId: string;
let sandboxUrl: string;

const calls = async (prefix: string) => (await http<any[]>('GET', `${sandboxUrl}/__sandbox/calls?path=${encodeURIComponent(prefix)}`)).body;

beforeAll(async () => {
  t = await startTestApp({
    SAGA_POLL_INTERVAL_MS: '50',
    SAGA_RETRY_BASE_MS: '50',
    SAGA_RETRY_MAX_MS: '200',
    RATE_LIMIT_MUTATIONS_PER_MINUTE: '100000',
    RATE_LIMIT_UPSTREAM_POINTS_PER_MINUTE: '100000',
  });
  alice = await t.token('alice', 'customer');
  staff = await t.token('bo', 'backoffice');
  personId = await newPerson(t.url, alice);
  sandboxUrl = t.app.sandbox!.url;
}, 60_000);
afterAll(() => t.close());

/** Polls `transfer` (typed) until its status is one of `statuses`. */
async function waitTyped(token: string, id: string, statuses: string[], timeoutMs = 20_000) {
  let seen: string | undefined;
  return waitFor(
    async () => {
      const tr = (await execute(t.url, TransferDocument, { token, variables: { id } })).data?.transfer;
      seen = tr?.status;
      return tr && statuses.includes(tr.status) ? tr : null;
    },
    { timeoutMs, intervalMs: 50, what: () => `transfer ${id} to be ${statuses.join('|')} (it is ${seen})` },
  );
}

test('happy path over GraphQL (typed documents): quote, person, card check, PENDING at once → AUTHORIZED → (compliance Approved) CAPTURED → PAYOUT_PENDING → COMPLETED; one authorization, one capture; transferUpdated follows it', async () => {
  const quote = await execute(t.url, CreateQuoteDocument, {
    token: alice,
    variables: { input: { sourceCurrency: 'USD', destinationCurrency: 'BRL', paymentMethod: 'CARD', sourceAmount: '100.00' } },
  });
  expect(quote.errors).toBeUndefined();
  const quoteId = quote.data!.createQuote.id;
  expect(quote.data!.createQuote.source).toEqual({ amount: '100.00', currency: 'USD' });
  const person = await execute(t.url, CreatePersonDocument, { token: alice, variables: { input: personInput() as PersonInput } });
  expect(person.data!.createPerson.status).toBe('APPROVED');
  const card = await execute(t.url, CheckCardDocument, {
    token: alice,
    variables: { input: { cardToken: cardToken('1234'), personId: person.data!.createPerson.id! } },
  });
  expect(card.data!.checkCard).toMatchObject({ status: 'APPROVED', reasons: [], canFund: true });

  const input = transferInput({ quoteId, personId: person.data!.createPerson.id!, key: 'happy-path-1' }) as unknown as CreateTransferInput;
  const created = await execute(t.url, CreateTransferDocument, { token: alice, variables: { input } });
  expect(created.errors).toBeUndefined();
  const tr = created.data!.createTransfer;
  expect(tr).toMatchObject({
    status: 'PENDING',
    version: 1,
    ownerId: 'alice',
    fundingType: 'CARD',
    destinationCountry: 'BR',
    sendAmount: { amount: '100.00', currency: 'USD' },
    receiveAmount: { amount: '501.23', currency: 'BRL' },
    rate: '5.0123',
  });

  // follow it over graphql-ws with the typed subscription document, from version 1
  const { client } = wsClient(t.wsUrl, alice);
  const updates = collect<TransferUpdatedSubscription>(client, print(TransferUpdatedDocument), { transferId: tr.id, afterVersion: 0 });

  // same key + same args → the same transfer; other args → IDEMPOTENCY_KEY_REUSED
  const again = await execute(t.url, CreateTransferDocument, { token: alice, variables: { input } });
  expect(again.data!.createTransfer.id).toBe(tr.id);
  // a nullable field sent as null is the same request as one that leaves it out: a replay too
  const recipient = input.recipient!;
  const withNulls = {
    ...input,
    recipient: { ...recipient, customer: { ...recipient.customer, documentType: null, documentNumber: null } },
  };
  expect(recipient.customer).not.toHaveProperty('documentType');
  const againWithNulls = await execute(t.url, CreateTransferDocument, { token: alice, variables: { input: withNulls } });
  expect(againWithNulls.errors).toBeUndefined();
  expect(againWithNulls.data!.createTransfer.id).toBe(tr.id);
  const reused = await execute(t.url, CreateTransferDocument, {
    token: alice,
    variables: { input: { ...input, recipient: { ...recipient, customer: { ...recipient.customer, lastName: 'Souza' } } } },
  });
  expect(reused.errors?.[0]?.extensions?.code).toBe('IDEMPOTENCY_KEY_REUSED');
  // the quote is single-use
  const second = await execute(t.url, CreateTransferDocument, {
    token: alice,
    variables: { input: { ...input, idempotencyKey: 'happy-path-2' } },
  });
  expect(second.errors?.[0]?.extensions?.code).toBe('QUOTE_ALREADY_USED');

  await waitTyped(alice, tr.id, ['AUTHORIZED', 'CAPTURED', 'PAYOUT_PENDING', 'COMPLETED']);
  // compliance Approved (the webhook inbox feeds it too; applying it twice is a no-op) → capture
  await platformEvent(t, tr.id, { type: 'compliance', oldStatus: 'Pending', newStatus: 'Approved' });
  await waitTyped(alice, tr.id, ['CAPTURED', 'PAYOUT_PENDING', 'COMPLETED']);
  await platformEvent(t, tr.id, { type: 'status', oldStatus: 'PaymentCaptured', newStatus: 'WaitingPayout' });
  expect((await getTransfer(t.url, alice, tr.id)).status).toMatch(/PAYOUT_PENDING|COMPLETED/);
  await platformEvent(t, tr.id, { type: 'status', oldStatus: 'Paid', newStatus: 'Completed' });
  const doneR = await execute(t.url, TransferDocument, { token: alice, variables: { id: tr.id } });
  const done = doneR.data!.transfer!;
  expect(done.status).toBe('COMPLETED');
  // the total is captured: 100.00 + the embedded USD>BRL card fee (2.99 + 1 %)
  expect(done.capturedAmount).toEqual({ amount: '103.99', currency: 'USD' });
  const trail = done.events.edges.map((e) => e.node);
  expect(trail[0]).toMatchObject({ seq: 1, fromStatus: null, toStatus: 'PENDING', cause: 'mutation', actor: 'you' }); // the customer's own request
  const path = trail.filter((e) => e.fromStatus !== e.toStatus).map((e) => e.toStatus);
  expect(path).toEqual(['PENDING', 'AUTHORIZED', 'CAPTURED', 'PAYOUT_PENDING', 'COMPLETED']);
  expect(trail.map((e) => e.seq)).toEqual(trail.map((_, i) => i + 1));
  expect(done.lastEventSeq).toBe(trail.length);
  // versions: the changes an app shows (here each a status change); the platform facts are in the trail without one
  const versioned = trail.filter((e) => e.version !== null);
  expect(versioned.map((e) => e.version)).toEqual(versioned.map((_, i) => i + 1));
  expect(versioned.map((e) => e.toStatus)).toEqual(['PENDING', 'AUTHORIZED', 'CAPTURED', 'PAYOUT_PENDING', 'COMPLETED']);
  expect(done.version).toBe(versioned.length);

  // the subscription saw every version in order and completed once terminal
  await updates.next(done.version, 30_000);
  await waitFor(() => updates.completed, { timeoutMs: 30_000, intervalMs: 20, what: 'the subscription to complete' });
  expect(updates.results.map((r) => r.data!.transferUpdated.version)).toEqual(versioned.map((e) => e.version));
  expect(updates.results.map((r) => r.data!.transferUpdated.status)).toEqual(versioned.map((e) => e.toStatus));
  await client.dispose();

  // the list (typed) shows it to its owner
  const list = await execute(t.url, TransfersDocument, {
    token: alice,
    variables: { first: 5, after: null, filter: { status: ['COMPLETED'], destinationCountry: 'BR' } },
  });
  expect(list.data!.transfers.edges.map((e) => e.node.id)).toContain(tr.id);

  // the sandbox saw one payment key and one capture for this transfer
  const payments = (await calls('/gateway/v2/payment')).filter((c) => c.idempotencyKey === tr.id);
  expect(new Set(payments.map((c) => c.idempotencyKey)).size).toBe(1);
  expect((await calls(`/gateway/payments/${tr.id}/capture`)).filter((c) => c.status === 200)).toHaveLength(1);
  expect(await calls(`/gateway/payments/${tr.id}/void`)).toHaveLength(0);

  // terminal: a late or repeated event changes nothing
  const late = await platformEvent(t, tr.id, { type: 'status', oldStatus: null, newStatus: 'Voided' });
  expect(late.applied).toBe(false);
  expect((await getTransfer(t.url, alice, tr.id)).version).toBe(done.version);
}, 60_000);

test('ACCOUNT_TOKEN funding: check-account form A gives an accountToken; the token PULL is authorized, no platform transaction → waits for back-office capture, which completes the funding leg', async () => {
  const check = await execute(t.url, CheckBankAccountDocument, {
    token: alice,
    variables: { input: { linked: { accountCheckToken: 'public-sandbox-transfer', accountCheckId: 'acc-transfer-1', countryCode: 'US' } } },
  });
  expect(check.errors).toBeUndefined();
  const accountToken = check.data!.checkBankAccount.accountToken!;
  expect(accountToken).toEqual(expect.any(String));
  const quoteId = await newQuote(t.url, alice, '75.00', 'BANK_ACCOUNT');
  const input = transferInput({
    quoteId,
    personId,
    key: 'account-token-1',
    funding: { type: 'ACCOUNT_TOKEN', accountToken },
  }) as unknown as CreateTransferInput;
  const created = await execute(t.url, CreateTransferDocument, { token: alice, variables: { input } });
  expect(created.errors).toBeUndefined();
  const id = created.data!.createTransfer.id;
  expect(created.data!.createTransfer.fundingType).toBe('ACCOUNT_TOKEN');
  const authorized = await waitTyped(alice, id, ['AUTHORIZED', 'CAPTURED', 'DECLINED', 'FAILED']);
  expect(authorized.status).toBe('AUTHORIZED');
  // no funding check step for a token (the check was form A); one PULL by token, no capture yet
  const pulls = (await calls('/gateway/v2/payment')).filter((c) => c.idempotencyKey === id);
  expect(pulls.length).toBeGreaterThanOrEqual(1);
  expect(await calls(`/gateway/payments/${id}/capture`)).toHaveLength(0);
  // the sandbox opens no platform transaction for a token PULL: no compliance decision will come; the worker waits
  await t.app.transfers.worker.tick();
  const waiting = (await execute(t.url, TransferDocument, { token: alice, variables: { id } })).data!.transfer!;
  expect(waiting).toMatchObject({ status: 'AUTHORIZED', complianceStatus: null, platformStatus: null });
  // back-office captures by hand → CAPTURED, one upstream capture
  const cap = await execute(t.url, CaptureTransferDocument, {
    token: staff,
    variables: { input: { transferId: id, idempotencyKey: 'cap-account-token-1' } },
  });
  expect(cap.errors).toBeUndefined();
  // 75.00 + the embedded USD>BRL bank fee (0.99)
  expect(cap.data!.captureTransfer).toMatchObject({ status: 'CAPTURED', capturedAmount: { amount: '75.99', currency: 'USD' } });
  const replay = await execute(t.url, CaptureTransferDocument, {
    token: staff,
    variables: { input: { transferId: id, idempotencyKey: 'cap-account-token-1' } },
  });
  expect(replay.data!.captureTransfer.status).toBe('CAPTURED');
  expect((await calls(`/gateway/payments/${id}/capture`)).filter((c) => c.status === 200)).toHaveLength(1);
  const trail = (await execute(t.url, TransferDocument, { token: staff, variables: { id } })).data!.transfer!.events.edges.map(
    (e) => e.node,
  );
  expect(trail.filter((e) => e.fromStatus !== e.toStatus).map((e) => `${e.toStatus}:${e.cause}`)).toEqual([
    'PENDING:mutation',
    'AUTHORIZED:worker',
    'CAPTURED:mutation',
  ]);
}, 60_000);

test('card ending 0002: ACTION_REQUIRED with the 3DS URL; after the challenge resumeTransfer → AUTHORIZED', async () => {
  const quoteId = await newQuote(t.url, alice);
  const tr = (await createTransfer(t.url, alice, transferInput({ quoteId, personId, key: '3ds-transfer-1', card: '0002' }))).body.data
    .createTransfer;
  const waiting = await waitForStatus(t, alice, tr.id, ['ACTION_REQUIRED']);
  expect(waiting.nextAction.type).toBe('THREE_DS_CHALLENGE');
  expect(waiting.nextAction.redirectUrl).toMatch(/\/gateway\/3ds\//);
  const early = await gql<any>(t.url, `mutation($i: ResumeTransferInput!) { resumeTransfer(input: $i) { status } }`, {
    token: staff,
    variables: { i: { transferId: tr.id, idempotencyKey: 'resume-0' } },
  });
  expect(early.body.errors).toBeUndefined(); // staff may resume; re-check still challenges
  await waitForStatus(t, alice, tr.id, ['ACTION_REQUIRED']);
  const page = await fetch(waiting.nextAction.redirectUrl, {
    method: 'POST',
    body: new URLSearchParams({}),
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
  });
  expect(page.status).toBeLessThan(400);
  const resumed = await gql<any>(t.url, `mutation($i: ResumeTransferInput!) { resumeTransfer(input: $i) { ${TRANSFER_FIELDS} } }`, {
    token: alice,
    variables: { i: { transferId: tr.id, idempotencyKey: 'resume-1' } },
  });
  expect(resumed.body.errors).toBeUndefined();
  // (with the webhook inbox live, the platform's approval may capture it right after)
  const final = await waitForStatus(t, alice, tr.id, ['AUTHORIZED', 'CAPTURED', 'PAYOUT_PENDING', 'COMPLETED']);
  expect(final.nextAction).toBeNull();
}, 30_000);

test('card ending 0003 (cvc FAILED) → DECLINED with the reason; 0004 → DECLINED at authorization', async () => {
  await bindCheckedCard(t, 'alice', '0003'); // checkCard binds only an accepted card: seed the earlier passing check
  const a = (
    await createTransfer(
      t.url,
      alice,
      transferInput({ quoteId: await newQuote(t.url, alice), personId, key: 'cvc-failed-1', card: '0003' }),
    )
  ).body.data.createTransfer;
  const b = (
    await createTransfer(t.url, alice, transferInput({ quoteId: await newQuote(t.url, alice), personId, key: 'declined-1', card: '0004' }))
  ).body.data.createTransfer;
  const da = await waitForStatus(t, alice, a.id, ['DECLINED']);
  expect(da.failure).toEqual({ code: 'CARD_CHECK_FAILED', message: CATALOGS.en.failures.CARD_CHECK_FAILED });
  // the reason the gateway gave stays a detail for the back-office
  const FAILURE = 'query($id: ID!) { transfer(id: $id) { failure { detail } } }';
  expect((await gql<any>(t.url, FAILURE, { token: staff, variables: { id: a.id } })).body.data.transfer.failure.detail).toContain(
    'cvc FAILED',
  );
  expect((await gql<any>(t.url, FAILURE, { token: alice, variables: { id: a.id } })).body.data.transfer.failure.detail).toBeNull();
  const db = await waitForStatus(t, alice, b.id, ['DECLINED']);
  expect(db.failure.code).toBe('PAYMENT_DECLINED');
  expect(await calls(`/gateway/payments/${a.id}`)).toHaveLength(0);
}, 30_000);

test('sender Compliance-Reject: compliance Rejected → the authorization is voided → VOIDED', async () => {
  const tr = (
    await createTransfer(
      t.url,
      alice,
      transferInput({ quoteId: await newQuote(t.url, alice), personId, key: 'compliance-reject-1', lastName: 'Compliance-Reject' }),
    )
  ).body.data.createTransfer;
  await waitForStatus(t, alice, tr.id, ['AUTHORIZED', 'VOIDED']);
  await platformEvent(t, tr.id, { type: 'compliance', oldStatus: 'Pending', newStatus: 'Rejected' });
  const v = await waitForStatus(t, alice, tr.id, ['VOIDED']);
  expect(v.failure.code).toBe('COMPLIANCE_REJECTED');
  expect((await calls(`/gateway/payments/${tr.id}/void`)).filter((c) => c.status === 200)).toHaveLength(1);
  expect(await calls(`/gateway/payments/${tr.id}/capture`)).toHaveLength(0);
}, 30_000);

test('sender Compliance-Review: held until the control API decides; Approved → CAPTURED', async () => {
  const tr = (
    await createTransfer(
      t.url,
      alice,
      transferInput({ quoteId: await newQuote(t.url, alice), personId, key: 'compliance-review-1', lastName: 'Compliance-Review' }),
    )
  ).body.data.createTransfer;
  await waitForStatus(t, alice, tr.id, ['AUTHORIZED']);
  // the platform holds it in ManualReview until decided
  for (let i = 0; i < 100; i++) {
    const r = await http('POST', `${sandboxUrl}/__sandbox/transactions/${tr.id}/compliance`, { body: { decision: 'Approved' } });
    if (r.status === 200) break;
    await new Promise((res) => setTimeout(res, 50));
  }
  await platformEvent(t, tr.id, { type: 'compliance', oldStatus: 'Pending', newStatus: 'Approved' });
  await waitForStatus(t, alice, tr.id, ['CAPTURED', 'PAYOUT_PENDING', 'COMPLETED']);
}, 30_000);

// Sender Compliance-Review below: no platform decision races the manual capture/void.
test('back-office partial capture (never more than authorized) and customer void; customers cannot capture', async () => {
  const a = (
    await createTransfer(
      t.url,
      alice,
      transferInput({ quoteId: await newQuote(t.url, alice, '50.00'), personId, key: 'partial-cap-1', lastName: 'Compliance-Review' }),
    )
  ).body.data.createTransfer;
  await waitForStatus(t, alice, a.id, ['AUTHORIZED']);
  const CAP = `mutation($i: CaptureTransferInput!) { captureTransfer(input: $i) { status capturedAmount { amount currency } } }`;
  // authorized: the total, 50.00 + 3.49 (2.99 + 1 %); one cent more is refused
  expect(
    (await gql<any>(t.url, CAP, { token: alice, variables: { i: { transferId: a.id, idempotencyKey: 'cap-by-customer' } } })).body
      .errors?.[0]?.extensions?.code,
  ).toBe('FORBIDDEN');
  expect(
    (await gql<any>(t.url, CAP, { token: staff, variables: { i: { transferId: a.id, idempotencyKey: 'cap-too-much', amount: '53.50' } } }))
      .body.errors?.[0]?.extensions?.code,
  ).toBe('BAD_USER_INPUT');
  const cap = await gql<any>(t.url, CAP, {
    token: staff,
    variables: { i: { transferId: a.id, idempotencyKey: 'cap-partial', amount: '20.5' } },
  });
  expect(cap.body.data.captureTransfer).toEqual({ status: 'CAPTURED', capturedAmount: { amount: '20.50', currency: 'USD' } });
  const VOID = `mutation($i: VoidTransferInput!) { voidTransfer(input: $i) { status } }`;
  expect(
    (await gql<any>(t.url, VOID, { token: staff, variables: { i: { transferId: a.id, idempotencyKey: 'void-after-cap' } } })).body
      .errors?.[0]?.extensions?.code,
  ).toBe('INVALID_STATE');

  const b = (
    await createTransfer(
      t.url,
      alice,
      transferInput({ quoteId: await newQuote(t.url, alice), personId, key: 'void-by-owner-1', lastName: 'Compliance-Review' }),
    )
  ).body.data.createTransfer;
  await waitForStatus(t, alice, b.id, ['AUTHORIZED']);
  const v = await gql<any>(t.url, VOID, { token: alice, variables: { i: { transferId: b.id, idempotencyKey: 'void-owner' } } });
  expect(v.body.data.voidTransfer.status).toBe('VOIDED');
}, 30_000);
