/**
 * Dead letters end to end, over real HTTP against the whole service: an event whose processing keeps
 * failing (a real database error: a CHECK constraint this test adds) is dead-lettered after
 * WEBHOOK_MAX_ATTEMPTS attempts and its stream goes on; the back-office lists and requeues it
 * (customers: FORBIDDEN); /metrics reports what the processor did.
 */
import { gql, startTestApp, type TestApp } from '../helpers/app';
import { ownSubscription, documentEvent, postSigned } from './webhook.helpers';
import { waitFor } from '../helpers/wait';

let t: TestApp;
let secret: string;

beforeAll(async () => {
  t = await startTestApp({ WEBHOOK_POLL_INTERVAL_MS: '50', WEBHOOK_MAX_ATTEMPTS: '3' });
  secret = (await ownSubscription(t)).signingSecret!;
}, 60_000);
afterAll(async () => t?.close());

const LIST =
  '{ deadLetteredWebhookEvents(first: 10) { totalCount edges { node { id eventName kind streamKey outcome attempts lastError processedAt transferId payload } } } }';
const REQUEUE = 'mutation($id: ID!) { requeueWebhookEvent(id: $id) { id outcome attempts processedAt } }';
const metric = (text: string, line: string) => {
  const found = text.split('\n').find((l) => l.startsWith(`${line} `));
  return found === undefined ? null : Number(found.slice(line.length + 1));
};

it('an event that keeps failing is dead-lettered and its stream goes on; the back-office requeues it; /metrics tells', async () => {
  const prisma = t.app.db.prisma;
  const staff = await t.token('ops', 'backoffice');
  const customer = await t.token('alice', 'customer');
  await prisma.$executeRawUnsafe(`ALTER TABLE platform_documents ADD CONSTRAINT test_no_expired CHECK (verification_status <> 'EXPIRED')`);
  const id = `dl-doc-${Math.random()}`;
  // the head fails (constraint), the later event of the same document must not wait for it forever
  await postSigned(t.url, secret, documentEvent(id, 'EXPIRED', '2026-03-01T00:00:02Z'));
  await postSigned(t.url, secret, documentEvent(id, 'VERIFIED', '2026-03-01T00:00:01Z'));
  const rows = await prisma.webhookInbox.findMany({ where: { streamKey: `doc:${id}` }, orderBy: { seq: 'asc' } });
  expect(rows).toHaveLength(2);
  await waitFor(async () => (await prisma.webhookInbox.count({ where: { streamKey: `doc:${id}`, processedAt: null } })) === 0, {
    timeoutMs: 30_000,
    intervalMs: 25,
    what: 'dead letter',
  });
  const [dead, later] = await prisma.webhookInbox.findMany({ where: { streamKey: `doc:${id}` }, orderBy: { seq: 'asc' } });
  expect(dead).toMatchObject({ id: rows[0]!.id, outcome: 'dead_letter', attempts: 3 });
  expect(dead!.lastError).toMatch(/test_no_expired/);
  expect(dead!.lastError).toContain('(SQLSTATE 23514)'); // PostgreSQL's code and message, not the row its detail shows
  expect(dead!.lastError).not.toMatch(/Failing row|EXPIRED|Raw query failed/);
  expect(later).toMatchObject({ outcome: 'applied', attempts: 1 });
  expect(later!.processedAt!.getTime()).toBeGreaterThanOrEqual(dead!.processedAt!.getTime()); // in order: after the head was given up
  expect(await prisma.platformDocument.findUnique({ where: { id } })).toMatchObject({ verificationStatus: 'VERIFIED' });

  // the back-office lists it; customers may neither list nor requeue
  const list = await gql<{ deadLetteredWebhookEvents: { totalCount: number; edges: { node: Record<string, unknown> }[] } }>(t.url, LIST, {
    token: staff,
  });
  expect(list.body.errors).toBeUndefined();
  expect(list.body.data!.deadLetteredWebhookEvents.totalCount).toBe(1);
  expect(list.body.data!.deadLetteredWebhookEvents.edges[0]!.node).toMatchObject({
    id: dead!.id,
    eventName: 'DocumentUpdatedEvents',
    kind: 'document',
    streamKey: `doc:${id}`,
    outcome: 'dead_letter',
    attempts: 3,
    transferId: null, // a document's event concerns no transfer
  });
  // its payload, as received but redacted: the ids and statuses stay
  expect(JSON.stringify(list.body.data!.deadLetteredWebhookEvents.edges[0]!.node.payload)).toContain(id);
  expect((await gql(t.url, LIST, { token: customer })).body.errors![0]!.extensions!.code).toBe('FORBIDDEN');
  expect((await gql(t.url, REQUEUE, { token: customer, variables: { id: dead!.id } })).body.errors![0]!.extensions!.code).toBe('FORBIDDEN');
  expect(await prisma.webhookInbox.findUnique({ where: { id: dead!.id } })).toMatchObject({ outcome: 'dead_letter' });

  // fixed, requeued: processed again, first in its stream
  await prisma.$executeRawUnsafe('ALTER TABLE platform_documents DROP CONSTRAINT test_no_expired');
  const requeued = await gql<{ requeueWebhookEvent: Record<string, unknown> }>(t.url, REQUEUE, {
    token: staff,
    variables: { id: dead!.id },
  });
  expect(requeued.body.errors).toBeUndefined();
  expect(requeued.body.data!.requeueWebhookEvent).toEqual({ id: dead!.id, outcome: null, attempts: 0, processedAt: null });
  await waitFor(async () => (await prisma.webhookInbox.findUnique({ where: { id: dead!.id } }))?.outcome === 'applied', {
    timeoutMs: 10_000,
    intervalMs: 25,
    what: 'requeued event applied',
  });
  expect(await prisma.platformDocument.findUnique({ where: { id } })).toMatchObject({ verificationStatus: 'EXPIRED' }); // the greatest occurredAt
  const after = await gql<{ deadLetteredWebhookEvents: { totalCount: number } }>(t.url, LIST, { token: staff });
  expect(after.body.data!.deadLetteredWebhookEvents.totalCount).toBe(0);
  expect((await gql(t.url, REQUEUE, { token: staff, variables: { id: dead!.id } })).body.errors![0]!.extensions!.code).toBe(
    'INVALID_STATE',
  );
  expect((await gql(t.url, REQUEUE, { token: staff, variables: { id: 'no-such-event' } })).body.errors![0]!.extensions!.code).toBe(
    'NOT_FOUND',
  );

  const text = await (await fetch(`${t.url}/metrics`)).text();
  expect(metric(text, 'webhook_events_processed_total{outcome="dead_letter"}')).toBe(1);
  expect(metric(text, 'webhook_events_processed_total{outcome="applied"}')).toBeGreaterThanOrEqual(2);
  expect(metric(text, 'webhook_events_dead_lettered_total')).toBe(1);
  expect(metric(text, 'webhook_event_retries_total{reason="error"}')).toBe(2);
  expect(metric(text, 'webhook_event_processing_lag_seconds_count')).toBeGreaterThanOrEqual(3);
  expect(metric(text, 'webhook_inbox_backlog')).toBe(0);
}, 60_000);

it('the backlog gauge counts due unprocessed events when scraped', async () => {
  await t.app.webhooks.processor.stop();
  for (let i = 0; i < 3; i++)
    await postSigned(t.url, secret, documentEvent(`backlog-${i}-${Math.random()}`, 'PENDING', '2026-03-02T00:00:00Z'));
  const text = await (await fetch(`${t.url}/metrics`)).text();
  expect(metric(text, 'webhook_inbox_backlog')).toBe(3);
});
