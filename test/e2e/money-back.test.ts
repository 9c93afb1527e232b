/**
 * Money back, end to end against the sandbox over GraphQL and graphql-ws: every cent taken from a sender ends with
 * the recipient or back with the sender, exactly once.
 * - a payout the platform rejects after the capture → REFUND_PENDING → REFUNDED on its own (one refund at the gateway);
 * - the owner cancels before the capture → VOIDED (the authorization released, nothing captured or refunded);
 * - the owner cancels after the capture, inside the window → the platform stops the payout → REFUND_PENDING → REFUNDED;
 * - too late (paid out, or past the window) → INVALID_STATE, no upstream call;
 * - back-office partial refunds up to what was captured, one beyond it refused; customers cannot refund; another
 *   customer cannot cancel;
 * - a transfer funded by a linked bank account before that funding stopped being offered (no recipient can be paid
 *   from it) → FAILED / VOIDED / REFUNDED, as far as it had gone.
 */
import { gql, startTestApp, type TestApp } from '../helpers/app';
import { collect, wsClient } from '../helpers/ws';
import { waitFor } from '../helpers/wait';
import { decideReview, platformTransactionStatus, setFaults } from '../helpers/sandbox';
import { randomUUID } from 'node:crypto';
import { senderOf, type Sender } from '../../src/modules/kyc/kyc.ports';
import { newTransferDetails, tokenPullPaymentRequest, totalOf } from '../../src/modules/transfer/transfer.requests';
import { stepKey } from '../../src/modules/transfer/transfer.steps';
import { formatAmount } from '../../src/shared/money';
import { createTransfer, newPerson, newQuote, RECIPIENT, transferInput, waitForStatus } from './transfer-helpers';

jest.setTimeout(60_000);

let t: TestApp;
let alice: string;
let bob: string;
let staff: string;
let personId: string;
let keySeq = 0;
const key = (what: string) => `${what}-key-${++keySeq}`;

beforeAll(async () => {
  t = await startTestApp({ SAGA_POLL_INTERVAL_MS: '100', SAGA_RECONCILE_AFTER_MS: '2000' });
  alice = await t.token('money-back-alice', 'customer');
  bob = await t.token('money-back-bob', 'customer');
  staff = await t.token('money-back-staff', 'backoffice');
  personId = await newPerson(t.url, alice);
}, 60_000);
afterAll(() => t?.close());

const MONEY = `status version failure { code message } capturedAmount { amount currency } refundedAmount { amount currency }
  cancellableUntil refunds { id amount { amount currency } status kind reason requestedBy }`;
const READ = `query($id: ID!) { transfer(id: $id) { ${MONEY} events(first: 100) { edges { node { toStatus cause actor action } } } } }`;
const read = async (id: string, token = alice) => (await gql<any>(t.url, READ, { token, variables: { id } })).body.data.transfer;
const calls = async (path: string) =>
  ((await (await fetch(`${t.app.sandbox!.url}/__sandbox/calls?path=/gateway${path}`)).json()) as { path: string; status: number }[]).filter(
    (c) => c.status === 200,
  );
/** The sandbox calls since `since` made for transfer `id` (other transfers' background work keeps calling meanwhile). */
async function callsFor(id: string, since: number) {
  const ext = (await t.app.db.prisma.transfer.findUniqueOrThrow({ where: { id } })).externalPaymentId;
  return t.app.sandbox!.ctx.calls.slice(since).filter((c) => c.path.includes(ext) || c.idempotencyKey?.startsWith(ext));
}
const cancel = (id: string, token = alice, idempotencyKey = key('cancel')) =>
  gql<any>(t.url, `mutation($i: CancelTransferInput!) { cancelTransfer(input: $i) { ${MONEY} } }`, {
    token,
    variables: { i: { transferId: id, idempotencyKey } },
  });
const refund = (id: string, input: { amount?: string; reason?: string }, token = staff, idempotencyKey = key('refund')) =>
  gql<any>(t.url, `mutation($i: RefundTransferInput!) { refundTransfer(input: $i) { ${MONEY} } }`, {
    token,
    variables: { i: { transferId: id, idempotencyKey, reason: 'goodwill after a late delivery', ...input } },
  });

async function newTransfer(opts: { recipientLastName?: string; senderLastName?: string } = {}): Promise<string> {
  const quoteId = await newQuote(t.url, alice);
  const input = transferInput({ quoteId, personId, key: key('create'), lastName: opts.senderLastName });
  if (opts.recipientLastName) input.recipient = { ...RECIPIENT, customer: { ...RECIPIENT.customer, lastName: opts.recipientLastName } };
  const r = await createTransfer(t.url, alice, input);
  if (!r.body.data) throw new Error(JSON.stringify(r.body.errors));
  return r.body.data.createTransfer.id as string;
}

it('a payout rejected after the capture is refunded on its own: REFUND_PENDING → REFUNDED over graphql-ws, one refund', async () => {
  const id = await newTransfer({ recipientLastName: 'Payout-Reject' });
  const { client } = wsClient(t.wsUrl, alice);
  try {
    const sub = collect<any>(client, `subscription($id: ID!) { transferUpdated(transferId: $id) { ${MONEY} } }`, { id });
    await waitFor(() => sub.completed, { timeoutMs: 30_000, what: 'the stream to complete' });
    const statuses = sub.results.map((r) => r.data.transferUpdated.status);
    expect(statuses.slice(-2)).toEqual(['REFUND_PENDING', 'REFUNDED']);
    expect(statuses).toContain('CAPTURED');
    const last = sub.results.at(-1)!.data.transferUpdated;
    // everything the sender paid goes back, the fee included: 100.00 + 3.99
    expect(last.refundedAmount).toEqual({ amount: '103.99', currency: 'USD' });
    expect(last.failure.code).toMatch(/^PAYOUT_/);
    expect(last.refunds).toEqual([
      expect.objectContaining({
        amount: { amount: '103.99', currency: 'USD' },
        status: 'SUCCEEDED',
        kind: 'PAYOUT_FAILED',
        requestedBy: null,
      }),
    ]);
    // every version once, in order
    const versions = sub.results.map((r) => r.data.transferUpdated.version);
    expect(versions).toEqual([...versions].sort((a, b) => a - b));
    expect(new Set(versions).size).toBe(versions.length);
  } finally {
    await client.dispose();
  }
  const done = await read(id);
  expect(done.status).toBe('REFUNDED');
  expect(done.cancellableUntil).toBeNull();
  expect(await calls(`/payments/${await extOf(id)}/refund`)).toHaveLength(1);
});

/** Back-office captures a held transfer; its status after the call. */
async function captureByStaff(id: string): Promise<string> {
  const captured = await gql<any>(t.url, 'mutation($i: CaptureTransferInput!) { captureTransfer(input: $i) { status } }', {
    token: staff,
    variables: { i: { transferId: id, idempotencyKey: key('capture') } },
  });
  return captured.body.data.captureTransfer.status;
}

/** Follows transfer `id` over graphql-ws as alice (from its current version) until its stream completes. */
async function follow(id: string) {
  const { client } = wsClient(t.wsUrl, alice);
  const sub = collect<any>(client, `subscription($id: ID!) { transferUpdated(transferId: $id) { ${MONEY} } }`, { id });
  await sub.next(1);
  return {
    async done(timeoutMs = 30_000) {
      try {
        await waitFor(() => sub.completed, { timeoutMs, what: 'the stream to complete' });
        return sub.results.map((r) => r.data.transferUpdated);
      } finally {
        await client.dispose();
      }
    },
  };
}

async function extOf(id: string): Promise<string> {
  return (await t.app.db.prisma.transfer.findUniqueOrThrow({ where: { id } })).externalPaymentId;
}

it('the owner cancels before the capture: VOIDED, the authorization released, nothing captured or refunded', async () => {
  const id = await newTransfer({ senderLastName: 'Compliance-Review' }); // held AUTHORIZED until a decision
  await waitForStatus(t, alice, id, ['AUTHORIZED'], 15_000);
  const before = await read(id);
  // cancellable until TRANSFER_CANCEL_WINDOW_S (30 minutes by default) after its creation
  const created = (await t.app.db.prisma.transfer.findUniqueOrThrow({ where: { id } })).createdAt;
  expect(Date.parse(before.cancellableUntil)).toBe(created.getTime() + 30 * 60_000);
  const stream = await follow(id);
  const firstKey = key('cancel');
  const r = await cancel(id, alice, firstKey);
  expect(r.body.errors).toBeUndefined();
  const done = await waitForStatus(t, alice, id, ['VOIDED']);
  expect(done.failure.code).toBe('CANCELLED_BY_CUSTOMER');
  // the app following the transfer sees the request (cancelRequestedAt), then VOIDED, and the stream ends
  const seen = await stream.done();
  expect(seen.at(-1)).toMatchObject({ status: 'VOIDED', failure: { code: 'CANCELLED_BY_CUSTOMER' }, cancellableUntil: null });
  expect(seen.map((v) => v.status)).toEqual(['AUTHORIZED', 'AUTHORIZED', 'VOIDED']);
  expect(seen[1].cancelRequestedAt).not.toBeNull(); // the request is a version of its own
  const ext = await extOf(id);
  expect((await calls(`/payments/${ext}/void`)).length).toBe(1);
  expect(await calls(`/payments/${ext}/capture`)).toEqual([]);
  expect(await calls(`/payments/${ext}/refund`)).toEqual([]);
  // idempotent: the same key again answers the transfer; another cancel is refused (it is over)
  expect((await cancel(id, alice, firstKey)).body.data.cancelTransfer.status).toBe('VOIDED');
  expect((await cancel(id, alice, 'cancel-key-again-1')).body.errors?.[0]?.extensions).toMatchObject({
    code: 'INVALID_STATE',
    reason: 'CANCEL_NOT_POSSIBLE',
  });
});

it('the owner cancels after the capture, inside the window: the payout is stopped and the money goes back', async () => {
  const id = await newTransfer({ senderLastName: 'Compliance-Review' });
  await waitForStatus(t, alice, id, ['AUTHORIZED'], 15_000);
  const sandbox = t.app.sandbox!;
  const step = sandbox.ctx.options.lifecycleStepMs;
  sandbox.ctx.options.lifecycleStepMs = 1_500; // the payout takes its time: the cancellation reaches it first
  try {
    expect(await captureByStaff(id)).toBe('CAPTURED');
    const stream = await follow(id);
    const r = await cancel(id);
    expect(r.body.errors).toBeUndefined();
    expect(r.body.data.cancelTransfer.status).toBe('REFUND_PENDING');
    expect(r.body.data.cancelTransfer.cancellableUntil).toBeNull();
    // a second cancellation (a new key) while the first is under way: refused, saying so
    expect((await cancel(id, alice, key('cancel-again'))).body.errors?.[0]).toMatchObject({
      message: 'This transfer is already being cancelled.',
      extensions: { code: 'INVALID_STATE', reason: 'CANCEL_ALREADY_REQUESTED' },
    });
    await waitForStatus(t, alice, id, ['REFUNDED', 'COMPLETED'], 30_000);
    const done = await read(id);
    expect(done.status).toBe('REFUNDED');
    expect(done.failure.code).toBe('CANCELLED_BY_CUSTOMER');
    expect(done.refundedAmount).toEqual(done.capturedAmount);
    expect(done.refunds).toEqual([expect.objectContaining({ status: 'SUCCEEDED', kind: 'CANCELLED' })]);
    // over graphql-ws: REFUND_PENDING, then REFUNDED with the refund in the last message
    const seen = await stream.done();
    expect(seen.map((v) => v.status).slice(-2)).toEqual(['REFUND_PENDING', 'REFUNDED']);
    expect(seen.at(-1)).toMatchObject({ refundedAmount: done.capturedAmount, refunds: [expect.objectContaining({ status: 'SUCCEEDED' })] });
  } finally {
    sandbox.ctx.options.lifecycleStepMs = step;
  }
  const ext = await extOf(id);
  expect((await calls(`/payments/${ext}/refund`)).length).toBe(1);
  // this transfer's transaction was cancelled at the platform, and never paid out
  const platformCalls = (await (await fetch(`${t.app.sandbox!.url}/__sandbox/calls?path=/remittances`)).json()) as { path: string }[];
  expect(platformCalls.some((c) => c.path.endsWith(`/${ext}/cancel`))).toBe(true);
  expect(await platformTransactionStatus(t.app.sandbox!, ext)).toBe('Cancelled');
});

it('money back that stalls (the platform does not confirm the payout stopped) is listed for a person after 15 minutes', async () => {
  const id = await newTransfer({ senderLastName: 'Compliance-Review' });
  await waitForStatus(t, alice, id, ['AUTHORIZED'], 15_000);
  const sandbox = t.app.sandbox!;
  const step = sandbox.ctx.options.lifecycleStepMs;
  sandbox.ctx.options.lifecycleStepMs = 1_500;
  const LIST = '{ refundsNeedingAttention { reason transferId transferStatus refund { id } since } }';
  const listed = async () =>
    ((await gql<any>(t.url, LIST, { token: staff })).body.data.refundsNeedingAttention as any[]).filter((x) => x.transferId === id);
  try {
    expect(await captureByStaff(id)).toBe('CAPTURED');
    await setFaults(sandbox.url, { webhookDelayMs: 4_000 }); // the platform's Cancelled reaches us late
    expect((await cancel(id)).body.data.cancelTransfer.status).toBe('REFUND_PENDING');
    expect(await listed()).toEqual([]); // just asked: not stalled
    // nothing an app sees has changed for 20 minutes
    const since = new Date(Date.now() - 20 * 60_000);
    await t.app.db.prisma.transfer.update({ where: { id }, data: { updatedAt: since } });
    expect(await listed()).toEqual([
      { reason: 'MONEY_BACK_STALLED', transferId: id, transferStatus: 'REFUND_PENDING', refund: null, since: since.toISOString() },
    ]);
  } finally {
    await setFaults(sandbox.url, { webhookDelayMs: 0 });
    sandbox.ctx.options.lifecycleStepMs = step;
  }
  // once the platform's answer arrives, the money goes back and the entry is gone
  await waitForStatus(t, alice, id, ['REFUNDED'], 30_000);
  expect(await listed()).toEqual([]);
});

it('a payout that wins the race with a cancellation: COMPLETED, no refund — money never moves twice', async () => {
  const id = await newTransfer({ senderLastName: 'Compliance-Review' });
  await waitForStatus(t, alice, id, ['AUTHORIZED'], 15_000);
  const sandbox = t.app.sandbox!;
  // the platform pays out at once, but its webhooks reach us late: we accept the cancellation before we know
  await setFaults(sandbox.url, { webhookDelayMs: 2_000 });
  try {
    expect(await captureByStaff(id)).toBe('CAPTURED');
    const ext = await extOf(id);
    // the review ends: the platform goes on to pay out
    await decideReview(sandbox.url, ext, 'Approved');
    await waitFor(async () => ['Paid', 'Completed'].includes(await platformTransactionStatus(sandbox, ext)), {
      timeoutMs: 10_000,
      intervalMs: 25,
      what: 'the platform to pay out',
    });
    const r = await cancel(id);
    expect(r.body.errors).toBeUndefined(); // we did not know yet
    await waitForStatus(t, alice, id, ['COMPLETED', 'REFUNDED'], 30_000);
    const done = await read(id, staff);
    expect(done.status).toBe('COMPLETED');
    expect(done.failure).toBeNull();
    expect(done.refunds).toEqual([]);
    expect(done.refundedAmount).toEqual({ amount: '0.00', currency: 'USD' });
    expect(done.events.edges.map((e: any) => e.node.action)).toContain('cancel too late');
    expect(await calls(`/payments/${ext}/refund`)).toEqual([]);
  } finally {
    await setFaults(sandbox.url, { webhookDelayMs: 0 });
  }
});

/**
 * A transfer funded by a linked bank account (ACCOUNT_TOKEN) as one was stored before that funding stopped being
 * offered (a token PULL pays no recipient): its PULL made at the gateway by the service's own client, its row and steps
 * as the saga wrote them, due at once for the worker.
 */
async function legacyTokenTransfer(stage: 'PENDING' | 'AUTHORIZED' | 'CAPTURED'): Promise<string> {
  const n = ++keySeq;
  const link = await gql<any>(t.url, 'mutation($i: CheckBankAccountInput!) { checkBankAccount(input: $i) { accountToken } }', {
    token: alice,
    variables: { i: { linked: { accountCheckToken: `public-sandbox-money-back-${n}`, accountCheckId: `acc-${n}`, countryCode: 'US' } } },
  });
  const accountToken: string = link.body.data.checkBankAccount.accountToken;
  const prisma = t.app.db.prisma;
  const quote = await prisma.quote.findUniqueOrThrow({ where: { id: await newQuote(t.url, alice, '75.00', 'BANK_ACCOUNT') } });
  const sender = senderOf(await prisma.person.findUniqueOrThrow({ where: { id: personId } })) as Sender;
  const id = randomUUID();
  const details = newTransferDetails({
    clientIp: '203.0.113.9',
    sender,
    recipient: RECIPIENT as never,
    funding: { type: 'ACCOUNT_TOKEN', accountToken },
    quote,
  });
  const fields = {
    externalPaymentId: id,
    sendAmount: quote.sourceAmount!,
    feeAmount: quote.feeAmount!,
    sendCurrency: 'USD',
    receiveAmount: quote.destinationAmount!,
    receiveCurrency: 'BRL',
    rate: quote.rate,
  };
  const total = formatAmount(totalOf(fields), 'USD');
  const steps = [];
  if (stage !== 'PENDING') {
    const pull = await t.app.upstream.gateway.createTokenPullPayment({
      ...tokenPullPaymentRequest(fields, details),
      capture: stage === 'CAPTURED',
    });
    if (pull.kind !== 'completed') throw new Error('the PULL had no answer');
    const outcome = { paymentId: pull.value.paymentId, status: 'AUTHORIZED', approved: true, message: null };
    steps.push({
      step: 'authorize',
      idempotencyKey: stepKey(fields, 'authorize'),
      state: 'SUCCEEDED' as const,
      attempts: 1,
      response: outcome,
    });
    if (stage === 'CAPTURED')
      steps.push({
        step: 'capture',
        idempotencyKey: stepKey(fields, 'capture'),
        state: 'SUCCEEDED' as const,
        attempts: 1,
        request: { amount: null, requestedBy: 'bo' },
        response: { status: 'CAPTURED' },
      });
  }
  const path = ['PENDING', 'AUTHORIZED', 'CAPTURED'].slice(0, ['PENDING', 'AUTHORIZED', 'CAPTURED'].indexOf(stage) + 1);
  const now = new Date();
  await prisma.transfer.create({
    data: {
      id,
      ownerId: 'money-back-alice',
      status: stage,
      version: path.length,
      eventSeq: path.length,
      quoteId: quote.id,
      personId,
      ...fields,
      destinationCountry: 'BR',
      fundingType: 'account_token',
      details: details as never,
      authorizedAt: stage === 'PENDING' ? null : now,
      capturedAmount: stage === 'CAPTURED' ? total : null,
      nextRunAt: now,
      events: {
        create: path.map((to, i) => ({
          seq: i + 1,
          version: i + 1,
          shown: {
            status: to,
            nextAction: null,
            capturedAmount: to === 'CAPTURED' ? total : null,
            refundedAmount: '0',
            failureCode: null,
            failureMessage: null,
          },
          fromStatus: i === 0 ? null : (path[i - 1] as never),
          toStatus: to as never,
          cause: i === 0 ? 'mutation' : 'worker',
          actor: i === 0 ? 'money-back-alice' : 'worker',
          at: now,
        })),
      },
      steps: { create: steps },
    },
  });
  await prisma.quote.update({ where: { id: quote.id }, data: { usedByTransferId: id } });
  t.app.transfers.service.nudge();
  return id;
}

describe('transfers funded by a linked bank account before that funding stopped (nothing can pay their recipient): the sender gets everything back', () => {
  it('not authorized yet: FAILED, no upstream call (nothing was taken)', async () => {
    const before = t.app.sandbox!.ctx.calls.length;
    const id = await legacyTokenTransfer('PENDING');
    await waitForStatus(t, alice, id, ['FAILED'], 15_000);
    expect((await read(id)).failure.code).toBe('FUNDING_NOT_OFFERED');
    expect(await callsFor(id, before)).toEqual([]);
  });

  it('authorized: the authorization is released (VOIDED), never captured', async () => {
    const id = await legacyTokenTransfer('AUTHORIZED');
    await waitForStatus(t, alice, id, ['VOIDED'], 15_000);
    const done = await read(id);
    expect(done).toMatchObject({ failure: { code: 'FUNDING_NOT_OFFERED' }, capturedAmount: null });
    expect(await calls(`/payments/${id}/void`)).toHaveLength(1);
    expect(await calls(`/payments/${id}/capture`)).toHaveLength(0);
  });

  it('captured (it used to stay CAPTURED for ever): REFUND_PENDING → REFUNDED, all of it, one refund', async () => {
    const id = await legacyTokenTransfer('CAPTURED');
    await waitForStatus(t, alice, id, ['REFUNDED'], 20_000);
    const done = await read(id);
    expect(done.refundedAmount).toEqual({ amount: '75.99', currency: 'USD' }); // 75.00 + the 0.99 bank fee
    expect(done.refunds).toEqual([expect.objectContaining({ status: 'SUCCEEDED', amount: { amount: '75.99', currency: 'USD' } })]);
    expect(await calls(`/payments/${id}/refund`)).toHaveLength(1);
  });
});

describe('too late, and who may', () => {
  let completed: string;
  beforeAll(async () => {
    completed = await newTransfer();
    await waitForStatus(t, alice, completed, ['COMPLETED'], 20_000);
  });

  it('once paid out: INVALID_STATE with a reason and a message an app can show, and no upstream call', async () => {
    const before = t.app.sandbox!.ctx.calls.length;
    const r = await cancel(completed);
    expect(r.body.errors?.[0]).toMatchObject({
      message: 'This transfer can no longer be cancelled: it has been paid out or has already ended.',
      extensions: { code: 'INVALID_STATE', reason: 'CANCEL_NOT_POSSIBLE', cancellable: false },
    });
    expect(r.body.errors?.[0]?.extensions?.detail).toMatch(/can no longer be cancelled/);
    // in the customer's language
    const es = await gql<any>(t.url, `mutation($i: CancelTransferInput!) { cancelTransfer(input: $i) { id } }`, {
      token: alice,
      variables: { i: { transferId: completed, idempotencyKey: key('cancel-es') } },
      headers: { 'accept-language': 'es' },
    });
    expect(es.body.errors?.[0]?.message).toBe('Esta transferencia ya no se puede cancelar: ya se pagó o ya terminó.');
    expect(await callsFor(completed, before)).toEqual([]);
    expect((await read(completed)).cancellableUntil).toBeNull();
    // the refused request is recorded among the transfer's refusals (back-office reads them), and changed nothing
    const refusals = (
      await gql<any>(t.url, `query($id: ID!) { transfer(id: $id) { status refusals { fromStatus toStatus cause actor action reason } } }`, {
        token: staff,
        variables: { id: completed },
      })
    ).body.data.transfer;
    expect(refusals.status).toBe('COMPLETED');
    expect(refusals.refusals).toContainEqual({
      fromStatus: 'COMPLETED',
      toStatus: 'REFUND_PENDING',
      cause: 'mutation',
      actor: 'money-back-alice',
      action: 'cancelTransfer',
      reason: expect.stringMatching(/can no longer be cancelled/),
    });
  });

  it('past the window: INVALID_STATE, no upstream call', async () => {
    const id = await newTransfer({ senderLastName: 'Compliance-Review' });
    await waitForStatus(t, alice, id, ['AUTHORIZED'], 15_000);
    await t.app.db.prisma.transfer.update({ where: { id }, data: { createdAt: new Date(Date.now() - 31 * 60_000) } });
    expect((await read(id)).cancellableUntil).toBeNull();
    const before = t.app.sandbox!.ctx.calls.length;
    const r = await cancel(id);
    expect(r.body.errors?.[0]).toMatchObject({
      message: 'This transfer can no longer be cancelled: the time to cancel it has passed.',
      extensions: { code: 'INVALID_STATE', reason: 'CANCEL_WINDOW_PASSED', cancellable: false },
    });
    expect(r.body.errors?.[0]?.extensions?.detail).toMatch(/time to cancel/);
    expect(await callsFor(id, before)).toEqual([]);
  });

  it.each([
    ['too short', 'ab'],
    ['blank', '     '],
    ['too long', 'x'.repeat(501)],
  ])('a refund whose reason is %s is BAD_USER_INPUT about reason, before any upstream call', async (_label, reason) => {
    const before = t.app.sandbox!.ctx.calls.length;
    const r = await refund(completed, { amount: '1.00', reason });
    expect(r.body.errors?.[0]?.extensions).toMatchObject({
      code: 'BAD_USER_INPUT',
      fields: [expect.objectContaining({ path: 'input.reason' })],
    });
    expect(await callsFor(completed, before)).toEqual([]);
  });

  it("another customer's cancel is NOT_FOUND; a customer's refund is FORBIDDEN", async () => {
    expect((await cancel(completed, bob)).body.errors?.[0]?.extensions?.code).toBe('NOT_FOUND');
    expect((await refund(completed, { amount: '1.00' }, alice)).body.errors?.[0]?.extensions?.code).toBe('FORBIDDEN');
  });

  it('back-office partial refunds up to what was captured; one beyond it is refused; the audit trail says who and why', async () => {
    const first = await refund(completed, { amount: '30.00', reason: 'goodwill: late delivery' });
    expect(first.body.errors).toBeUndefined();
    expect(first.body.data.refundTransfer).toMatchObject({ status: 'COMPLETED', refundedAmount: { amount: '30.00', currency: 'USD' } });
    // captured: the total, 103.99 (100.00 + 3.99 fee)
    const beyond = await refund(completed, { amount: '74.00' });
    expect(beyond.body.errors?.[0]?.extensions).toMatchObject({
      code: 'BAD_USER_INPUT',
      maxAmount: '73.99',
      fields: [expect.objectContaining({ path: 'input.amount', code: 'ABOVE_MAXIMUM' })],
    });
    const rest = await refund(completed, { reason: 'dispute settled in the sender’s favour' });
    expect(rest.body.data.refundTransfer.refundedAmount).toEqual({ amount: '103.99', currency: 'USD' });
    const none = await refund(completed, { amount: '0.01' });
    expect(none.body.errors?.[0]?.extensions?.code).toBe('INVALID_STATE');
    const asStaff = await read(completed, staff);
    expect(asStaff.status).toBe('COMPLETED');
    expect(asStaff.refunds).toEqual([
      expect.objectContaining({
        amount: { amount: '30.00', currency: 'USD' },
        status: 'SUCCEEDED',
        kind: 'BACKOFFICE',
        requestedBy: 'money-back-staff',
        reason: 'goodwill: late delivery',
      }),
      expect.objectContaining({ amount: { amount: '73.99', currency: 'USD' }, status: 'SUCCEEDED', kind: 'BACKOFFICE' }),
    ]);
    const trail = asStaff.events.edges.map((e: any) => e.node);
    expect(trail.filter((e: any) => e.action === 'refundTransfer' || e.action === 'refund').length).toBeGreaterThanOrEqual(2);
    expect(trail).toContainEqual(expect.objectContaining({ action: 'refund', actor: 'money-back-staff', cause: 'mutation' }));
    // who asked and why, kept with the audit event
    const events = await t.app.db.prisma.transferEvent.findMany({ where: { transferId: completed } });
    expect(
      events.some((e) => {
        const d = e.detail as { action?: string; reason?: string; requestedBy?: string } | null;
        return d?.action === 'refund' && d.reason === 'goodwill: late delivery' && d.requestedBy === 'money-back-staff';
      }),
    ).toBe(true);
    // the customer sees the refunds, not who made them
    const asOwner = await read(completed);
    expect(asOwner.refunds.map((r: any) => r.requestedBy)).toEqual([null, null]);
    expect(asOwner.refundedAmount).toEqual({ amount: '103.99', currency: 'USD' });
    // two refunds at the gateway, never more
    expect((await calls(`/payments/${await extOf(completed)}/refund`)).length).toBe(2);
  });

  it('a retried refund (same key) refunds once', async () => {
    const id = await newTransfer();
    await waitForStatus(t, alice, id, ['COMPLETED'], 20_000);
    const k = key('refund-retry');
    const [a, b] = await Promise.all([refund(id, { amount: '10.00' }, staff, k), refund(id, { amount: '10.00' }, staff, k)]);
    const ok = [a, b].filter((r) => !r.body.errors);
    expect(ok.length).toBeGreaterThanOrEqual(1);
    const again = await refund(id, { amount: '10.00' }, staff, k);
    expect(again.body.data.refundTransfer.refundedAmount).toEqual({ amount: '10.00', currency: 'USD' });
    expect((await read(id, staff)).refunds).toHaveLength(1);
    expect((await calls(`/payments/${await extOf(id)}/refund`)).length).toBe(1);
  });
});

it('a refund whose answer is lost is an unknown outcome: retried with the same refund id, never refunded twice', async () => {
  const id = await newTransfer();
  await waitForStatus(t, alice, id, ['COMPLETED'], 20_000);
  const sandbox = t.app.sandbox!;
  const faults = (f: Record<string, unknown>) => setFaults(sandbox.url, f);
  await faults({ dropResponseAfterCommitRate: 1 });
  let answered;
  try {
    answered = await refund(id, { amount: '25.00', reason: 'goodwill: answer lost' });
  } finally {
    await faults({ dropResponseAfterCommitRate: 0 });
  }
  // the mutation answers the transfer as it stands: the refund retried at once with the same id (SUCCEEDED), or its
  // outcome still unknown (PENDING: the worker retries it)
  expect(answered.body.errors).toBeUndefined();
  expect(answered.body.data.refundTransfer.refunds).toEqual([
    expect.objectContaining({ status: expect.stringMatching(/^(PENDING|SUCCEEDED)$/) }),
  ]);
  const settled = await waitFor(
    async () => {
      const tr = await read(id, staff);
      return tr.refunds[0]?.status === 'SUCCEEDED' ? tr : null;
    },
    { timeoutMs: 20_000, intervalMs: 100, what: 'the refund to be retried and settled' },
  );
  expect(settled.refundedAmount).toEqual({ amount: '25.00', currency: 'USD' });
  const ext = await extOf(id);
  const all = (await (await fetch(`${sandbox.url}/__sandbox/calls?path=/gateway/payments/${ext}/refund`)).json()) as {
    status: number;
    idempotencyKey: string;
  }[];
  expect(all.map((c) => c.status)).toEqual([0, 200]); // the dropped answer, then the same refund found again
  expect(all.map((c) => c.idempotencyKey)).toEqual([`${ext}:refund:1`, `${ext}:refund:1`]); // one refund id
  const step = await t.app.db.prisma.sagaStep.findFirstOrThrow({ where: { transferId: id, step: 'refund:1' } });
  expect(step.idempotencyKey).toBe(`${ext}:refund:1`); // the externalRefundId both calls carried
  // the lost answer was found again within the call (the same id answers the refund made): counted as succeeded
  const metrics = await (await fetch(`${t.url}/metrics`)).text();
  expect(metrics).toMatch(/^transfer_refunds_total\{outcome="succeeded"\} [1-9]/m);
});

it('a refund the gateway refuses is FAILED, listed for a person (refundsNeedingAttention) and counted', async () => {
  const id = await newTransfer();
  await waitForStatus(t, alice, id, ['COMPLETED'], 20_000);
  const ext = await extOf(id);
  // the whole capture was refunded outside the service (at the gateway directly): the service's refund is refused
  const sandbox = t.app.sandbox!;
  const token = (
    (await await fetch(`${sandbox.url}/gateway/oauth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ clientId: sandbox.ctx.options.gatewayClientId, secretID: sandbox.ctx.options.gatewayClientSecret }),
    }).then((r) => r.json())) as { access_token: string }
  ).access_token;
  const outside = await fetch(`${sandbox.url}/gateway/payments/${ext}/refund`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    body: JSON.stringify({ externalRefundId: 'out-of-band-1' }),
  });
  expect(outside.status).toBe(200);
  const r = await refund(id, { amount: '10.00', reason: 'goodwill, refused upstream' });
  expect(r.body.data.refundTransfer.refunds).toEqual([expect.objectContaining({ status: 'FAILED' })]);
  const listed = await gql<any>(
    t.url,
    '{ refundsNeedingAttention { reason transferId transferStatus attempts lastError refund { status amount { amount } } } }',
    { token: staff },
  );
  expect(listed.body.data.refundsNeedingAttention).toContainEqual(
    expect.objectContaining({
      reason: 'REFUND_FAILED',
      transferId: id,
      transferStatus: 'COMPLETED',
      refund: { status: 'FAILED', amount: { amount: '10.00' } },
    }),
  );
  expect((await gql<any>(t.url, '{ refundsNeedingAttention { transferId } }', { token: alice })).body.errors?.[0]?.extensions?.code).toBe(
    'FORBIDDEN',
  );
  const metrics = await (await fetch(`${t.url}/metrics`)).text();
  expect(metrics).toMatch(/^transfer_refunds_total\{outcome="failed"\} [1-9]/m);
  expect(metrics).toMatch(/^transfer_refunds_total\{outcome="requested"\} [1-9]/m);
});
