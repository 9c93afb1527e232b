import { print } from 'graphql';
import { gql, startTestApp, type TestApp } from '../helpers/app';
import { cardToken, http } from '../helpers/sandbox';
import { collect, wsClient } from '../helpers/ws';
import { waitFor } from '../helpers/wait';
import { CATALOGS } from '../../src/shared/messages';
import { execute } from '../operations/request';
import {
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
/** Checks and payments asked of the gateway since `since` (an index in the call log; earlier transfers' captures and the platform's traffic aside). */
const fundingCallsSince = (since: number) => t.app.sandbox!.ctx.calls.slice(since).filter((c) => /^\/gateway\/(v2\/|check-)/.test(c.path));

beforeAll(async () => {
  t = await startTestApp({
    SAGA_POLL_INTERVAL_MS: '50',
    SAGA_RETRY_BASE_MS: '50',
    SAGA_RETRY_MAX_MS: '200',
    RATE_LIMIT_MUTATIONS_PER_MINUTE: '100000',
    RATE_LIMIT_UPSTREAM_POINTS_PER_MINUTE: '100000',
    THREE_DS_RETURN_URL_HOSTS: 'app.example.com',
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

test('bank accounts: a linked account verifies only with a token of the sandbox widget (a made-up one is DECLINED) and funds no transfer (ACCOUNT_TOKEN refused before anything); raw details (BANK_ACCOUNT) pay out end to end', async () => {
  const link = (accountCheckToken: string, accountCheckId: string) =>
    gql<any>(t.url, 'mutation($i: CheckBankAccountInput!) { checkBankAccount(input: $i) { status accountToken message } }', {
      token: alice,
      variables: { i: { linked: { accountCheckToken, accountCheckId, countryCode: 'US' } } },
    });
  const verified = (await link('public-sandbox-transfer', 'acc-transfer-1')).body.data.checkBankAccount;
  expect(verified).toMatchObject({ status: 'VERIFIED', accountToken: expect.any(String), message: null });
  const declined = (await link('made-up-widget-token', 'acc-transfer-2')).body.data.checkBankAccount;
  expect(declined).toEqual({ status: 'DECLINED', accountToken: null, message: expect.any(String) });

  // a linked account's token cannot pay a recipient (a PULL names none): refused before any database or upstream call
  const quoteId = await newQuote(t.url, alice, '75.00', 'BANK_ACCOUNT');
  const before = t.app.sandbox!.ctx.calls.length;
  const transfersBefore = await t.app.db.prisma.transfer.count();
  const refused = await gql<any>(t.url, `mutation($i: CreateTransferInput!) { createTransfer(input: $i) { id } }`, {
    token: alice,
    variables: {
      i: transferInput({
        quoteId,
        personId,
        key: 'account-token-1',
        funding: { type: 'ACCOUNT_TOKEN', accountToken: verified.accountToken },
      }),
    },
  });
  expect(refused.body.errors?.[0]?.extensions).toMatchObject({
    code: 'BAD_USER_INPUT',
    fields: [expect.objectContaining({ path: 'input.funding.type', code: 'INVALID_CHOICE' })],
    reason: 'FUNDING_NOT_OFFERED',
  });
  expect(JSON.stringify(refused.body.errors)).not.toContain(verified.accountToken);
  expect(fundingCallsSince(before)).toEqual([]);
  expect(await t.app.db.prisma.transfer.count()).toBe(transfersBefore);
  expect(await t.app.db.prisma.quote.findUnique({ where: { id: quoteId } })).toMatchObject({ usedByTransferId: null });

  // the same quote funds a BANK_ACCOUNT transfer, which reaches COMPLETED on the platform's own webhooks
  const bank = { accountType: 'CHECKING', accountNumber: '000123456789', routingNumber: '011000015', countryCode: 'US' };
  const created = await createTransfer(
    t.url,
    alice,
    transferInput({ quoteId, personId, key: 'bank-account-1', funding: { type: 'BANK_ACCOUNT', bankAccount: bank } }),
  );
  expect(created.body.errors).toBeUndefined();
  const id: string = created.body.data.createTransfer.id;
  const done = await waitTyped(alice, id, ['COMPLETED', 'DECLINED', 'FAILED', 'VOIDED', 'REFUNDED'], 30_000);
  expect(done).toMatchObject({ status: 'COMPLETED', capturedAmount: { amount: '75.99', currency: 'USD' } }); // 75.00 + the 0.99 bank fee
  expect((await calls(`/gateway/payments/${id}/capture`)).filter((c) => c.status === 200)).toHaveLength(1);
}, 60_000);

test('card ending 0002: ACTION_REQUIRED with the 3DS URL carrying the app return URL; an early resume is refused and changes nothing; the page sends the browser back; then resumeTransfer → AUTHORIZED', async () => {
  const card = cardToken('0002');
  const check = await gql<any>(t.url, `mutation($i: CheckCardInput!) { checkCard(input: $i) { status lastFour redirectUrl } }`, {
    token: alice,
    variables: { i: { cardToken: card, personId, threeDSReturnUrl: 'https://app.example.com/3ds-done?from=check' } },
  });
  // the card digits agree: the check, the page and the receipt name the card ending 0002
  expect(check.body.data.checkCard).toMatchObject({ status: 'CHALLENGE', lastFour: '0002' });
  expect(new URL(check.body.data.checkCard.redirectUrl).searchParams.get('returnUrl')).toBe('https://app.example.com/3ds-done?from=check');
  expect((await http('GET', check.body.data.checkCard.redirectUrl)).text).toContain('card ending 0002');

  const quoteId = await newQuote(t.url, alice);
  const returnUrl = 'https://app.example.com/3ds-done?transfer=1';
  const input = { ...transferInput({ quoteId, personId, key: '3ds-transfer-1', card: '0002' }), threeDSReturnUrl: returnUrl };
  const tr = (await createTransfer(t.url, alice, input)).body.data.createTransfer;
  const waiting = await waitForStatus(t, alice, tr.id, ['ACTION_REQUIRED']);
  expect(waiting.nextAction.type).toBe('THREE_DS_CHALLENGE');
  const page = new URL(waiting.nextAction.redirectUrl);
  expect(page.pathname).toMatch(/^\/gateway\/3ds\//);
  expect(page.searchParams.get('returnUrl')).toBe(returnUrl);

  // resumed before the challenge is done: INVALID_STATE (CHALLENGE_NOT_COMPLETED), no new version, no churn; the only
  // upstream call is the one read of the challenge (the card check), no payment
  await http('DELETE', `${sandboxUrl}/__sandbox/calls`);
  for (const [token, key] of [
    [staff, 'resume-0'],
    [alice, 'resume-00'],
  ] as const) {
    const early = await gql<any>(t.url, `mutation($i: ResumeTransferInput!) { resumeTransfer(input: $i) { status } }`, {
      token,
      variables: { i: { transferId: tr.id, idempotencyKey: key } },
    });
    expect(early.body.errors?.[0]?.extensions).toMatchObject({ code: 'INVALID_STATE', reason: 'CHALLENGE_NOT_COMPLETED' });
  }
  const still = await getTransfer(t.url, alice, tr.id);
  expect(still).toMatchObject({ status: 'ACTION_REQUIRED', version: waiting.version });
  expect((await calls('/gateway/')).map((c) => c.path)).toEqual(['/gateway/v2/check-card-account', '/gateway/v2/check-card-account']);

  // the cardholder authenticates: the page sends the browser back to the app (303 to the return URL)
  const form = /<form method="post" action="([^"]+)">([\s\S]*?)<\/form>/.exec((await http('GET', page.toString())).text)!;
  const fields = [...form[2].matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g)].map((m): [string, string] => [
    m[1]!,
    m[2]!,
  ]);
  const back = await http('POST', new URL(form[1]!.replace(/&amp;/g, '&'), page).toString(), {
    body: new URLSearchParams(fields).toString(),
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
  });
  expect([back.status, back.headers.location]).toEqual([303, returnUrl]);

  const resumed = await gql<any>(t.url, `mutation($i: ResumeTransferInput!) { resumeTransfer(input: $i) { ${TRANSFER_FIELDS} } }`, {
    token: alice,
    variables: { i: { transferId: tr.id, idempotencyKey: 'resume-1' } },
  });
  expect(resumed.body.errors).toBeUndefined();
  // (with the webhook inbox live, the platform's approval may capture it right after)
  const final = await waitForStatus(t, alice, tr.id, ['AUTHORIZED', 'CAPTURED', 'PAYOUT_PENDING', 'COMPLETED']);
  expect(final.nextAction).toBeNull();
  // the resume's check is the check step's result: the card was checked once more (the resume's read), not twice
  const checks = (await calls('/gateway/v2/check-card-account')).length;
  expect(checks).toBe(3);
  // versions: PENDING, ACTION_REQUIRED, PENDING (resumed), AUTHORIZED… — the refused resumes added none
  const trail = (await getTransfer(t.url, staff, tr.id)).events.edges.map((e: any) => e.node);
  expect(
    trail
      .filter((e: any) => e.fromStatus !== e.toStatus)
      .map((e: any) => e.toStatus)
      .slice(0, 4),
  ).toEqual(['PENDING', 'ACTION_REQUIRED', 'PENDING', 'AUTHORIZED']);
}, 30_000);

test('threeDSReturnUrl: only https on an accepted host (or loopback outside production); anything else is BAD_USER_INPUT before any upstream call, never echoed', async () => {
  const quoteId = await newQuote(t.url, alice);
  const before = t.app.sandbox!.ctx.calls.length;
  const transfersBefore = await t.app.db.prisma.transfer.count();
  for (const bad of [
    'https://evil.example/steal',
    'http://app.example.com/3ds-done',
    'https://app.example.com.evil.example/',
    'https://user:pw@app.example.com/',
    'javascript:alert(1)',
    'not a url',
  ]) {
    const created = await gql<any>(t.url, `mutation($i: CreateTransferInput!) { createTransfer(input: $i) { id } }`, {
      token: alice,
      variables: {
        i: { ...transferInput({ quoteId, personId, key: `3ds-bad-return-${bad.length}`, card: '0002' }), threeDSReturnUrl: bad },
      },
    });
    expect([bad, created.body.errors?.[0]?.extensions]).toEqual([
      bad,
      expect.objectContaining({ code: 'BAD_USER_INPUT', fields: [expect.objectContaining({ path: 'input.threeDSReturnUrl' })] }),
    ]);
    expect(JSON.stringify(created.body.errors)).not.toContain(bad);
    const checked = await gql<any>(t.url, `mutation($i: CheckCardInput!) { checkCard(input: $i) { status } }`, {
      token: alice,
      variables: { i: { cardToken: cardToken('0002'), personId, threeDSReturnUrl: bad } },
    });
    expect([bad, checked.body.errors?.[0]?.extensions]).toEqual([
      bad,
      expect.objectContaining({ code: 'BAD_USER_INPUT', fields: [expect.objectContaining({ path: 'input.threeDSReturnUrl' })] }),
    ]);
  }
  expect(fundingCallsSince(before)).toEqual([]);
  expect(await t.app.db.prisma.transfer.count()).toBe(transfersBefore);
  // a loopback return URL passes outside production (an app on the developer's machine)
  const local = await gql<any>(t.url, `mutation($i: CheckCardInput!) { checkCard(input: $i) { status redirectUrl } }`, {
    token: alice,
    variables: { i: { cardToken: cardToken('0002', 'cdcdcdcd-bbbb-4ccc-8ddd'), personId, threeDSReturnUrl: 'http://localhost:3000/done' } },
  });
  expect(local.body.data.checkCard.status).toBe('CHALLENGE');
  expect(new URL(local.body.data.checkCard.redirectUrl).searchParams.get('returnUrl')).toBe('http://localhost:3000/done');
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
