/**
 * Transaction events applied as they are received: a fact that changes nothing an app sees is recorded with its
 * delivery in ONE statement; a delivery whose stream is busy is only stored (the processor applies it in order);
 * a redelivery changes nothing; a decision is applied at receipt and runs the saga on. (Sender "Compliance-Review"
 * parks the sandbox's own lifecycle in ManualReview: the events that matter here are the ones this test sends.)
 */
import { randomUUID } from 'node:crypto';
import { startTestApp, type TestApp } from '../helpers/app';
import { countQueries } from '../helpers/db';
import { createTransfer, newPerson, newQuote, transferInput, waitForStatus } from '../e2e/transfer-helpers';
import { END_TO_END_ENV, ownSubscription, postSigned } from './webhook.helpers';

let t: TestApp;
let alice: string;
let personId: string;
let secret: string;

beforeAll(async () => {
  t = await startTestApp(END_TO_END_ENV);
  alice = await t.token('alice-receipt', 'customer');
  personId = await newPerson(t.url, alice);
  secret = (await ownSubscription(t)).signingSecret!;
}, 90_000);
afterAll(async () => t?.close());

/** An AUTHORIZED transfer linked to its platform transaction (the sandbox's own first events did it). */
async function linked(key: string) {
  const quoteId = await newQuote(t.url, alice);
  const r = await createTransfer(t.url, alice, transferInput({ quoteId, personId, key, lastName: 'Compliance-Review' }));
  if (!r.body.data) throw new Error(JSON.stringify(r.body.errors));
  const id = r.body.data.createTransfer.id as string;
  await waitForStatus(t, alice, id, ['AUTHORIZED'], 30_000);
  for (let i = 0; i < 300; i++) {
    const row = await t.app.db.prisma.transfer.findUniqueOrThrow({ where: { id } });
    // parked: the sandbox reported ManualReview (its last event until a decision)
    if (row.upstreamTransactionStatus === 'ManualReview') return row;
    await new Promise((res) => setTimeout(res, 50));
  }
  throw new Error('the sandbox never parked the transaction in ManualReview');
}

const statusEvent = (row: { externalTransactionId: string | null; externalPaymentId: string }, oldStatus: string, newStatus: string) => ({
  event: 'TransactionStatusChanged',
  transactionId: row.externalTransactionId,
  externalTransactionId: row.externalPaymentId,
  tenantId: 'sandbox-tenant',
  oldStatus,
  newStatus,
  newStatusMessages: [randomUUID() as string],
});

const inboxRow = (transactionId: string, newStatus: string) =>
  t.app.db.prisma.webhookInbox.findFirst({
    where: { streamKey: { contains: transactionId }, payload: { path: ['newStatus'], equals: newStatus } },
  });

test('the sandbox lifecycle events were applied at receipt, each with its inbox row processed', async () => {
  const row = await linked('receipt-key-1');
  const rows = await t.app.db.prisma.webhookInbox.findMany({ where: { streamKey: { contains: row.externalTransactionId! } } });
  expect(rows.length).toBeGreaterThanOrEqual(6);
  expect(rows.every((r) => r.processedAt !== null && r.outcome === 'applied')).toBe(true);
  // every fact is in the audit trail, with the delivery that carried it
  const events = await t.app.db.prisma.transferEvent.findMany({ where: { transferId: row.id, cause: 'webhook' } });
  expect(new Set(events.map((e) => e.upstreamRef))).toEqual(new Set(rows.map((r) => r.id)));
}, 90_000);

test('a fact that changes nothing shown: one statement stores the delivery, records the fact and its audit event', async () => {
  const row = await linked('receipt-key-2');
  const counter = countQueries(t.app.db);
  // the delivery's own statements (the worker's and the processor's polls may run meanwhile)
  const receiving = () => counter.events.filter((e) => e.phase === 'webhook.receive');
  const res = await postSigned(t.url, secret, statusEvent(row, 'ManualReview', 'PaymentCaptured'));
  expect(res).toMatchObject({ status: 200, body: { received: true, duplicate: false } });
  expect(receiving()).toHaveLength(1);
  const inbox = (await inboxRow(row.externalTransactionId!, 'PaymentCaptured'))!;
  expect(inbox).toMatchObject({ outcome: 'applied', attempts: 1 });
  expect(inbox.processedAt).not.toBeNull();
  const after = await t.app.db.prisma.transfer.findUniqueOrThrow({ where: { id: row.id } });
  expect(after).toMatchObject({
    status: 'AUTHORIZED',
    version: row.version,
    eventSeq: row.eventSeq + 1,
    upstreamTransactionStatus: 'PaymentCaptured',
  });
  const e = await t.app.db.prisma.transferEvent.findUniqueOrThrow({
    where: { transferId_seq: { transferId: row.id, seq: after.eventSeq } },
  });
  expect(e).toMatchObject({
    version: null,
    cause: 'webhook',
    upstreamRef: inbox.id,
    detail: { action: 'platform status', value: 'PaymentCaptured' },
  });

  // the same delivery again: a duplicate, nothing written
  counter.reset();
  const body = statusEvent(row, 'ManualReview', 'PaymentCaptured');
  body.newStatusMessages = (inbox.payload as { newStatusMessages: string[] }).newStatusMessages;
  expect(await postSigned(t.url, secret, body)).toMatchObject({ status: 200, body: { duplicate: true } });
  expect((await t.app.db.prisma.transfer.findUniqueOrThrow({ where: { id: row.id } })).eventSeq).toBe(after.eventSeq);

  // an older status: recorded as stale with its delivery, the transfer unchanged
  expect(await postSigned(t.url, secret, statusEvent(row, 'Created', 'PaymentProcessing'))).toMatchObject({ status: 200 });
  const stale = await t.app.db.prisma.webhookInbox.findMany({
    where: { streamKey: { contains: row.externalTransactionId! }, payload: { path: ['newStatus'], equals: 'PaymentProcessing' } },
  });
  expect(stale.map((r) => r.outcome).sort()).toEqual(['applied', 'stale']); // the sandbox's own, then ours
  expect((await t.app.db.prisma.transfer.findUniqueOrThrow({ where: { id: row.id } })).upstreamTransactionStatus).toBe('PaymentCaptured');
  counter.dispose();
}, 90_000);

test('a busy stream (an earlier event not applied yet): the delivery is only stored, and applied by the processor in order', async () => {
  const row = await linked('receipt-key-3');
  // an earlier event of the same stream, stored and due later (as if it were being retried)
  await t.app.db.prisma.webhookInbox.create({
    data: {
      dedupeKey: randomUUID(),
      eventName: 'TransactionStatusChanged',
      kind: 'transaction',
      streamKey: (await inboxRow(row.externalTransactionId!, 'ManualReview'))!.streamKey,
      payload: statusEvent(row, 'ManualReview', 'ReviewApproved'),
      signed: true,
      nextAttemptAt: new Date(Date.now() + 1_500),
    },
  });
  const res = await postSigned(t.url, secret, statusEvent(row, 'ReviewApproved', 'PaymentCaptured'));
  expect(res).toMatchObject({ status: 200, body: { duplicate: false } });
  const stored = (await inboxRow(row.externalTransactionId!, 'PaymentCaptured'))!;
  expect(stored.processedAt).toBeNull();
  expect((await t.app.db.prisma.transfer.findUniqueOrThrow({ where: { id: row.id } })).upstreamTransactionStatus).toBe('ManualReview');
  // once the head is due, the processor applies both, in order
  for (let i = 0; i < 200; i++) {
    const cur = await t.app.db.prisma.transfer.findUniqueOrThrow({ where: { id: row.id } });
    if (cur.upstreamTransactionStatus === 'PaymentCaptured') break;
    await new Promise((r) => setTimeout(r, 50));
  }
  const events = await t.app.db.prisma.transferEvent.findMany({
    where: { transferId: row.id, seq: { gt: row.eventSeq } },
    orderBy: { seq: 'asc' },
  });
  expect(events.map((e) => (e.detail as { value: string }).value)).toEqual(['ReviewApproved', 'PaymentCaptured']);
}, 90_000);

test('a compliance decision at receipt: applied with its delivery, and the saga captures', async () => {
  const row = await linked('receipt-key-4');
  const res = await postSigned(t.url, secret, {
    event: 'TransactionComplianceStatusChangedEvent',
    transactionId: row.externalTransactionId,
    externalTransactionId: row.externalPaymentId,
    tenantId: 'sandbox-tenant',
    oldComplianceStatus: 'Pending',
    newComplianceStatus: 'Approved',
    newStatusMessages: ['Compliance Approved'],
  });
  expect(res).toMatchObject({ status: 200, body: { duplicate: false } });
  const inbox = await t.app.db.prisma.webhookInbox.findFirst({
    where: { streamKey: { contains: row.externalTransactionId! }, payload: { path: ['newComplianceStatus'], equals: 'Approved' } },
  });
  expect(inbox).toMatchObject({ outcome: 'applied' });
  const done = await waitForStatus(t, alice, row.id, ['CAPTURED', 'PAYOUT_PENDING', 'COMPLETED'], 30_000);
  expect(done.status).toBe('CAPTURED');
}, 90_000);
