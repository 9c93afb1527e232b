/**
 * The app's own documents (schema/app, typed in schema/app/generated.ts) through the whole journey, the way an
 * app ships them: TRUSTED_DOCUMENTS=only, each operation named by its documentId over HTTP and graphql-ws.
 * Happy path and 3-D Secure path; counts what an app receives on transferUpdated / myTransfers (one message per
 * change it shows, none repeated) and reconnects mid-way with afterVersion (nothing skipped, nothing twice).
 */
import type { ResultOf, TypedDocumentNode, VariablesOf } from '@graphql-typed-document-node/core';
import { print } from 'graphql';
import { documentIdOf } from '../../src/graphql/trusted-documents';
import { startTestApp, type TestApp } from '../helpers/app';
import { NoticeService } from '../../src/modules/notice/notice.service';
import { NoticeSeverity } from '../../src/modules/notice/notice.types';
import { systemClock } from '../../src/shared/clock';
import { personInput } from '../helpers/funding';
import { cardToken } from '../helpers/sandbox';
import { wsClient } from '../helpers/ws';
import { waitFor } from '../helpers/wait';
import { platformEvent, RECIPIENT } from './transfer-helpers';
import {
  CheckBankAccountDocument,
  CheckCardDocument,
  CorridorDocument,
  CorridorsDocument,
  CreatePersonDocument,
  CreateQuoteDocument,
  CorridorPriceDocument,
  TransferReceiptDocument,
  CreateTransferDocument,
  MyTransfersDocument,
  ResumeTransferDocument,
  TransferDocument,
  TransferHistoryDocument,
  TransferUpdatedDocument,
  ViewerDocument,
  CancelTransferDocument,
  CreateRecipientDocument,
  DeleteRecipientDocument,
  PersonsDocument,
  RecipientsDocument,
  PersonRequirementsDocument,
  SystemNoticesDocument,
  ResolveAliasDocument,
  BanksDocument,
  type AppTransferFragment,
  type PersonInput,
} from '../../schema/app/generated';

let t: TestApp;
let token: string;

beforeAll(async () => {
  t = await startTestApp({ TRUSTED_DOCUMENTS: 'only', SAGA_POLL_INTERVAL_MS: '50', SAGA_RETRY_BASE_MS: '50', SAGA_RETRY_MAX_MS: '200' });
  token = await t.token('app-user', 'customer');
}, 90_000);
afterAll(() => t?.close());

const idOf = (doc: Parameters<typeof print>[0]) => documentIdOf(print(doc));

/** An operation by its documentId over HTTP, typed by its document; fails the test on errors. */
async function send<D extends TypedDocumentNode<any, any>>(doc: D, variables?: VariablesOf<D>): Promise<ResultOf<D>> {
  const res = await fetch(`${t.url}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/graphql-response+json', authorization: `Bearer ${token}` },
    body: JSON.stringify({ documentId: idOf(doc), variables: variables ?? {} }),
  });
  const body = (await res.json()) as { data?: ResultOf<D>; errors?: unknown[] };
  if (body.errors || !body.data) throw new Error(`${res.status} ${JSON.stringify(body.errors)}`);
  return body.data;
}

/** A subscription by its documentId over one graphql-ws connection: what arrived, and whether it completed. */
function follow<D extends TypedDocumentNode<any, any>>(doc: D, variables: VariablesOf<D>) {
  const { client } = wsClient(t.wsUrl, token);
  const state = { messages: [] as ResultOf<D>[], completed: false, error: undefined as unknown };
  client.subscribe({ query: '', documentId: idOf(doc), variables } as never, {
    next: (v) => state.messages.push((v as { data: ResultOf<D> }).data),
    error: (e) => (state.error = e),
    complete: () => (state.completed = true),
  });
  return Object.assign(state, { close: () => client.dispose() });
}

/** One message per version, in order, and no two messages showing the same state. */
function expectQuiet(transfers: AppTransferFragment[], max: number) {
  expect(transfers.length).toBeLessThanOrEqual(max);
  expect(transfers.map((x) => x.version)).toEqual(transfers.map((_, i) => transfers[0]!.version + i));
  const shown = transfers.map(({ status, nextAction, capturedAmount, failure }) =>
    JSON.stringify({ status, nextAction, capturedAmount, failure }),
  );
  for (let i = 1; i < shown.length; i++) expect(shown[i]).not.toBe(shown[i - 1]);
}

async function quoteAndSender(amount: string) {
  const { corridor } = await send(CorridorDocument, { sourceCurrency: 'USD', destinationCurrency: 'BRL', destinationCountry: 'BR' });
  expect(Number(corridor.minAmount.amount)).toBeLessThanOrEqual(Number(amount));
  expect(Number(corridor.maxAmount.amount)).toBeGreaterThanOrEqual(Number(amount));
  // the calculator: the fee and the total before any quote, as the quote will price them
  const price = (
    await send(CorridorPriceDocument, {
      sourceCurrency: 'USD',
      destinationCurrency: 'BRL',
      destinationCountry: 'BR',
      sendAmount: amount,
      fundingType: 'CARD',
    })
  ).corridor.price;
  const { createQuote } = await send(CreateQuoteDocument, {
    input: { sourceCurrency: 'USD', destinationCurrency: 'BRL', destinationCountry: 'BR', paymentMethod: 'CARD', sourceAmount: amount },
  });
  expect(createQuote.source).toEqual({ amount, currency: 'USD', __typename: 'Money' }); // __typename: what a normalized cache keys on
  // the quote screen: the embedded fee on this corridor is visible, and the total is what the card will be charged
  expect(createQuote.fee).toEqual(price.fee);
  expect(createQuote.total).toEqual(price.total);
  expect(Number(createQuote.fee!.amount)).toBeGreaterThan(0);
  expect(Date.parse(createQuote.deliveryEstimate.latest)).toBeGreaterThan(Date.now());
  const { createPerson } = await send(CreatePersonDocument, { input: personInput() as PersonInput });
  expect(createPerson.status).toBe('APPROVED');
  return { quoteId: createQuote.id, personId: createPerson.id! };
}

/** The platform's side (the webhook inbox feeds the same events): compliance approved, paid out. */
async function platformCompletes(id: string) {
  await platformEvent(t, id, { type: 'compliance', oldStatus: 'Pending', newStatus: 'Approved' });
  await platformEvent(t, id, { type: 'status', oldStatus: 'PaymentCaptured', newStatus: 'WaitingPayout' });
  await platformEvent(t, id, { type: 'status', oldStatus: 'Paid', newStatus: 'Completed' });
}

test('happy path: corridors → quote → person → card and bank checks → transfer, followed live, reconnecting with afterVersion', async () => {
  expect((await send(ViewerDocument)).viewer).toEqual({ id: 'app-user', role: 'CUSTOMER', __typename: 'Viewer' });
  expect((await send(CorridorsDocument)).corridors.length).toBeGreaterThan(0);
  const list = follow(MyTransfersDocument, { changedSince: null });
  const { quoteId, personId } = await quoteAndSender('100.00');
  const card = cardToken('1234');
  expect((await send(CheckCardDocument, { input: { cardToken: card, personId } })).checkCard).toMatchObject({
    status: 'APPROVED',
    canFund: true,
  });
  const bank = await send(CheckBankAccountDocument, {
    input: { linked: { accountCheckToken: 'public-sandbox-transfer', accountCheckId: 'acc-app-journey', countryCode: 'US' } },
  });
  expect(bank.checkBankAccount.accountToken).toEqual(expect.any(String));

  const { createTransfer: created } = await send(CreateTransferDocument, {
    input: {
      idempotencyKey: 'app-journey-1',
      quoteId,
      personId,
      recipient: RECIPIENT as never,
      funding: { type: 'CARD', cardToken: card },
    },
  });
  expect(created).toMatchObject({ status: 'PENDING', version: 1, fundingType: 'CARD', sendAmount: { amount: '100.00', currency: 'USD' } });

  // first connection: the current state, then live; dropped after the second version
  const first = follow(TransferUpdatedDocument, { transferId: created.id, afterVersion: null });
  await waitFor(() => first.messages.some((m) => m.transferUpdated.status !== 'PENDING'), {
    timeoutMs: 20_000,
    intervalMs: 20,
    what: 'AUTHORIZED on the first connection',
  });
  await first.close();
  const seen = first.messages.map((m) => m.transferUpdated);
  await platformCompletes(created.id);
  // reconnect: everything after the last version received, then completion (the transfer is terminal)
  const second = follow(TransferUpdatedDocument, { transferId: created.id, afterVersion: seen.at(-1)!.version });
  await waitFor(() => second.completed, { timeoutMs: 20_000, intervalMs: 20, what: 'the resumed stream to complete' });
  expect(second.error).toBeUndefined();
  const received = [...seen, ...second.messages.map((m) => m.transferUpdated)];
  expectQuiet(received, 6);
  // with createTransfer's answer (version 1), the app holds every version once, none skipped
  const all = received[0]!.version === created.version ? received : [created, ...received];
  expectQuiet(all, 6);
  expect(all[0]!.version).toBe(1);
  // PAYOUT_PENDING shows only when the platform's WaitingPayout is applied before its Completed (both may arrive at once)
  expect(all.map((x) => x.status).filter((s) => s !== 'PAYOUT_PENDING')).toEqual(['PENDING', 'AUTHORIZED', 'CAPTURED', 'COMPLETED']);

  const { transfer } = await send(TransferDocument, { id: created.id });
  expect(transfer).toMatchObject({
    status: 'COMPLETED',
    version: all.at(-1)!.version,
    capturedAmount: { amount: '103.99', currency: 'USD' }, // the total: 100.00 + the 3.99 fee
  });
  const history = await send(TransferHistoryDocument, { first: 10 }); // optional variables may be left out
  expect(history.transfers.edges.map((e) => e.node.id)).toContain(created.id);
  // the receipt screen: the same figures as the transfer, a reference to read out, the support contact
  const { receipt } = (await send(TransferReceiptDocument, { id: created.id })).transfer!;
  expect(receipt).toMatchObject({
    status: 'COMPLETED',
    sendAmount: transfer!.sendAmount,
    fee: transfer!.fee,
    total: transfer!.total,
    rate: transfer!.rate,
    receiveAmount: transfer!.receiveAmount,
    deliveryEstimate: transfer!.deliveryEstimate,
    sender: transfer!.sender,
    recipient: transfer!.recipient,
  });
  expect(receipt.reference).toMatch(/^[0-9A-F]{4}-[0-9A-F]{4}-[0-9A-F]{4}$/);
  expect(receipt.support.email ?? receipt.support.phone ?? receipt.support.url).toBeTruthy();

  // the list stream: the same versions, once each
  await waitFor(() => list.messages.some((m) => m.myTransfers.id === created.id && m.myTransfers.status === 'COMPLETED'), {
    timeoutMs: 20_000,
    intervalMs: 20,
    what: 'myTransfers to reach COMPLETED',
  });
  // the list stream sends the current state on each change, each version at most once and never an older one: two
  // changes committed before it reads (the platform's WaitingPayout and Completed together) are one message
  const listed = list.messages.map((m) => m.myTransfers).filter((x) => x.id === created.id);
  const listedVersions = listed.map((x) => x.version);
  expect(listedVersions).toEqual([...new Set(listedVersions)].sort((a, b) => a - b));
  expect(listedVersions.every((v) => all.some((x) => x.version === v))).toBe(true);
  expect(listed.at(-1)).toMatchObject({ status: 'COMPLETED', version: all.at(-1)!.version });
  await list.close();
}, 90_000);

test('3-D Secure path (card ending 0002): ACTION_REQUIRED with the challenge URL, the challenge, resumeTransfer, then on to COMPLETED', async () => {
  const { quoteId, personId } = await quoteAndSender('50.00');
  const card = cardToken('0002');
  const check = await send(CheckCardDocument, { input: { cardToken: card, personId } });
  expect(check.checkCard).toMatchObject({ status: 'CHALLENGE', redirectUrl: expect.any(String) });
  const { createTransfer: created } = await send(CreateTransferDocument, {
    input: {
      idempotencyKey: 'app-journey-3ds',
      quoteId,
      personId,
      recipient: RECIPIENT as never,
      funding: { type: 'CARD', cardToken: card },
    },
  });
  const stream = follow(TransferUpdatedDocument, { transferId: created.id, afterVersion: 0 });
  await waitFor(() => stream.messages.some((m) => m.transferUpdated.status === 'ACTION_REQUIRED'), {
    timeoutMs: 20_000,
    intervalMs: 20,
    what: 'ACTION_REQUIRED',
  });
  const waiting = stream.messages.find((m) => m.transferUpdated.status === 'ACTION_REQUIRED')!.transferUpdated;
  expect(waiting.nextAction).toMatchObject({ type: 'THREE_DS_CHALLENGE', redirectUrl: expect.stringMatching(/\/gateway\/3ds\//) });

  // the customer completes the challenge in a browser at redirectUrl; the app then resumes
  const page = await fetch(waiting.nextAction!.redirectUrl!, {
    method: 'POST',
    body: new URLSearchParams({}),
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
  });
  expect(page.status).toBeLessThan(400);
  await page.text();
  const { resumeTransfer } = await send(ResumeTransferDocument, {
    input: { transferId: created.id, idempotencyKey: 'app-journey-3ds-resume' },
  });
  expect(resumeTransfer.id).toBe(created.id);
  await waitFor(() => stream.messages.some((m) => m.transferUpdated.status === 'AUTHORIZED'), {
    timeoutMs: 20_000,
    intervalMs: 20,
    what: 'AUTHORIZED',
  });
  await platformCompletes(created.id);
  await waitFor(() => stream.completed, { timeoutMs: 20_000, intervalMs: 20, what: 'the stream to complete' });
  const all = stream.messages.map((m) => m.transferUpdated);
  // two more changes to show than the happy path: the challenge, and back to PENDING once resumed
  expectQuiet(all, 7);
  expect(all.map((x) => x.status).filter((s) => s !== 'PAYOUT_PENDING')).toEqual([
    'PENDING',
    'ACTION_REQUIRED',
    'PENDING',
    'AUTHORIZED',
    'CAPTURED',
    'COMPLETED',
  ]);
  expect(all.at(-1)!.status).toBe('COMPLETED');
  expect(all.at(-1)!.nextAction).toBeNull();
  await stream.close();
}, 90_000);

test("the customer cancels before capture with the app's CancelTransfer (only mode): AUTHORIZED → VOIDED", async () => {
  const { createQuote } = await send(CreateQuoteDocument, {
    input: { sourceCurrency: 'USD', destinationCurrency: 'BRL', destinationCountry: 'BR', paymentMethod: 'CARD', sourceAmount: '30.00' },
  });
  // held for the platform's manual compliance review: the money stays authorized until someone decides
  const { createPerson } = await send(CreatePersonDocument, { input: personInput('Compliance-Review') as PersonInput });
  const card = cardToken('1234', 'dddddddd-0000-4000-8000');
  await send(CheckCardDocument, { input: { cardToken: card, personId: createPerson.id! } });
  const { createTransfer: created } = await send(CreateTransferDocument, {
    input: {
      idempotencyKey: 'app-journey-void',
      quoteId: createQuote.id,
      personId: createPerson.id!,
      recipient: RECIPIENT as never,
      funding: { type: 'CARD', cardToken: card },
    },
  });
  let status = created.status;
  for (let i = 0; i < 200 && status !== 'AUTHORIZED'; i++) {
    await new Promise((r) => setTimeout(r, 50));
    status = (await send(TransferDocument, { id: created.id })).transfer!.status;
  }
  expect(status).toBe('AUTHORIZED');
  const before = (await send(TransferDocument, { id: created.id })).transfer!;
  expect(Date.parse(before.cancellableUntil as string)).toBeGreaterThan(Date.now());
  const { cancelTransfer } = await send(CancelTransferDocument, {
    input: { transferId: created.id, idempotencyKey: 'app-journey-cancel-1' },
  });
  expect(cancelTransfer).toMatchObject({
    status: 'VOIDED',
    cancellableUntil: null,
    refunds: [],
    failure: { code: 'CANCELLED_BY_CUSTOMER' },
  });
  expect(cancelTransfer.refundedAmount).toEqual({ amount: '0.00', currency: 'USD', __typename: 'Money' });
});

test('a saved recipient (only mode): CreateRecipient → Recipients → CreateTransfer with recipientId → DeleteRecipient; Persons says who can send', async () => {
  const { createRecipient: saved } = await send(CreateRecipientDocument, { input: RECIPIENT as never });
  expect(saved).toMatchObject({ name: 'Maria Silva', destinationType: 'PIX', destination: 'm•••@example.com', countryCode: 'BR' });
  expect(saved.holderName).toEqual(expect.any(String));
  const { recipients } = await send(RecipientsDocument, { first: 20, after: null });
  expect(recipients.edges.map((e) => e.node)).toContainEqual(saved);

  const { quoteId, personId } = await quoteAndSender('20.00');
  const { persons } = await send(PersonsDocument, { first: 1, after: null });
  expect(persons.edges[0]!.node).toMatchObject({ id: personId, requirements: [], canSend: true });
  const card = cardToken('1234', 'eeeeeeee-0000-4000-8000');
  await send(CheckCardDocument, { input: { cardToken: card, personId } });
  const { createTransfer: created } = await send(CreateTransferDocument, {
    input: { idempotencyKey: 'app-journey-saved', quoteId, personId, recipientId: saved.id, funding: { type: 'CARD', cardToken: card } },
  });
  expect(created.recipient).toEqual({
    __typename: 'TransferRecipient',
    name: 'Maria Silva',
    destinationType: 'PIX',
    destination: 'm•••@example.com',
    recipientId: saved.id,
  });

  expect((await send(DeleteRecipientDocument, { id: saved.id })).deleteRecipient).toBe(true);
  expect((await send(RecipientsDocument, { first: 20, after: null })).recipients.edges.map((e) => e.node.id)).not.toContain(saved.id);
  expect((await send(TransferDocument, { id: created.id })).transfer!.recipient).toEqual(created.recipient);
});

test('the forms an app needs before sending, in only mode: the KYC form (PersonRequirements), the PIX key check (ResolveAlias), a bank picker (Banks)', async () => {
  const { personRequirements } = await send(PersonRequirementsDocument, { countryCode: 'BR' });
  expect(personRequirements).toMatchObject({
    countryCode: 'BR',
    individual: { requiredFields: expect.arrayContaining([expect.any(String)]) },
  });
  const alias = (await send(ResolveAliasDocument, { countryCode: 'BR', keyType: 'EMAIL', key: 'maria@example.com' })).resolveAlias;
  expect(alias.__typename).toBe('AliasFound');
  if (alias.__typename === 'AliasFound') expect(alias.holder.displayName).toEqual(expect.any(String));
  const unknown = (await send(ResolveAliasDocument, { countryCode: 'BR', keyType: 'CPF', key: '00000000000' })).resolveAlias;
  expect(unknown).toMatchObject({ __typename: 'AliasNotFound', found: false });
  const { banks } = await send(BanksDocument, { countryCode: 'BR', first: 5 });
  expect(banks.edges.length).toBeGreaterThan(0);
  expect(banks.edges[0]!.node).toMatchObject({ __typename: 'Bank', countryCode: 'BR' });
});

test('a banner in only mode: SystemNotices by its documentId receives what the operator publishes', async () => {
  const notices = follow(SystemNoticesDocument, {});
  try {
    const service = new NoticeService(t.app.pubsub, systemClock);
    // published until the subscription is live (it starts asynchronously over the socket)
    await waitFor(
      async () => {
        await service.publish('Maintenance tonight', NoticeSeverity.INFO);
        return notices.messages.length > 0;
      },
      { timeoutMs: 10_000, intervalMs: 200, what: "a notice on the app's SystemNotices stream" },
    );
    expect(notices.error).toBeUndefined();
    expect(notices.messages[0]!.systemNotices).toMatchObject({ __typename: 'SystemNotice', message: 'Maintenance tonight' });
  } finally {
    await notices.close();
  }
});
