/**
 * The inbox processor against a real (PGlite or PostgreSQL) database with a recording fake sink:
 * ordering per transaction, leases across two processors, retries, dead letters, takeover of an expired
 * lease, documents and agents, statements per event (batching).
 */
import pg from 'pg';
import pino from 'pino';
import { StatementError } from '../../src/db/raw-sql';
import { ManualClock } from '../../src/shared/clock';
import type { ApplyOutcome, PlatformTransactionEvent, TransferEventSink } from '../../src/modules/transfer/transfer.ports';
import { WebhookInbox } from '../../src/modules/webhook/webhook.inbox.repository';
import { PlatformStateStore } from '../../src/modules/webhook/webhook.platform-state.repository';
import { WebhookProcessor } from '../../src/modules/webhook/webhook.processor';
import { Metrics } from '../../src/shared/metrics';
import { createTestDatabase, type TestDatabase } from '../helpers/db';
import { waitFor } from '../helpers/wait';

const logger = pino({ level: 'silent' });

class RecordingSink implements TransferEventSink {
  readonly events: PlatformTransactionEvent[] = [];
  active = new Map<string, number>();
  maxConcurrentPerTx = 0;
  failNext = 0;
  failWith: Error | null = null;
  outcome: (e: PlatformTransactionEvent) => ApplyOutcome = () => ({ applied: true, transferId: 't', version: 1 });
  async applyPlatformEvent(e: PlatformTransactionEvent): Promise<ApplyOutcome> {
    const n = (this.active.get(e.transactionId) ?? 0) + 1;
    this.active.set(e.transactionId, n);
    this.maxConcurrentPerTx = Math.max(this.maxConcurrentPerTx, n);
    try {
      await new Promise((r) => setTimeout(r, Math.random() * 3));
      if (this.failNext > 0) {
        this.failNext--;
        throw this.failWith ?? new Error('database unavailable');
      }
      this.events.push(e);
      return this.outcome(e);
    } finally {
      this.active.set(e.transactionId, (this.active.get(e.transactionId) ?? 1) - 1);
    }
  }
}

const txEvent = (txId: string, oldStatus: string | null, newStatus: string) => ({
  event: 'TransactionStatusChanged',
  transactionId: txId,
  externalTransactionId: `ext-${txId}`,
  tenantId: 'sandbox-tenant',
  oldStatus,
  newStatus,
  newStatusMessages: [],
});

let db: TestDatabase;
let clock: ManualClock;
let inbox: WebhookInbox;
const processors: WebhookProcessor[] = [];
const make = (
  sink: TransferEventSink | null,
  opts: Partial<ConstructorParameters<typeof WebhookProcessor>[5]> = {},
  metrics: Metrics | null = null,
) => {
  const p = new WebhookProcessor(
    db.sql,
    sink,
    new PlatformStateStore(db.prisma),
    clock,
    logger,
    { pollIntervalMs: 20, tenantId: 'sandbox-tenant', ...opts },
    metrics,
  );
  processors.push(p);
  return p;
};
const store = (payload: Record<string, unknown>) =>
  inbox.store({ eventName: String(payload.event), payload, signed: true, receivedAt: clock.now() });
const pending = () => db.prisma.webhookInbox.count({ where: { processedAt: null } });

beforeEach(async () => {
  db = await createTestDatabase();
  clock = new ManualClock(Date.now());
  inbox = new WebhookInbox(db.prisma, db.sql);
});
afterEach(async () => {
  for (const p of processors.splice(0)) await p.stop();
  await db.close();
});

it('applies each transaction’s events one at a time, in arrival order, exactly once — with two processors competing', async () => {
  const sink = new RecordingSink();
  const statuses = ['Created', 'PaymentProcessing', 'PaymentAuthorized', 'ProcessingPayout', 'PayoutAccepted'];
  const txs = Array.from({ length: 8 }, (_, i) => `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`);
  for (let s = 0; s < statuses.length; s++) for (const tx of txs) await store(txEvent(tx, statuses[s - 1] ?? null, statuses[s]!));
  expect((await store(txEvent(txs[0]!, null, 'Created'))).duplicate).toBe(true);
  const a = make(sink, { concurrency: 3 });
  const b = make(sink, { concurrency: 3 });
  expect(a.instanceId).not.toBe(b.instanceId);
  a.start();
  b.start();
  await waitFor(async () => (await pending()) === 0, { timeoutMs: 10_000, what: 'the inbox drained' });
  expect(sink.events).toHaveLength(txs.length * statuses.length);
  expect(sink.maxConcurrentPerTx).toBe(1);
  for (const tx of txs)
    expect(sink.events.filter((e) => e.transactionId === tx).map((e) => (e.change as { newStatus: string }).newStatus)).toEqual(statuses);
  expect(sink.events[0]!.source).toMatchObject({ kind: 'webhook', eventName: 'TransactionStatusChanged' });
  expect(await db.prisma.webhookInbox.count({ where: { outcome: 'applied' } })).toBe(txs.length * statuses.length);
  expect(await db.prisma.webhookStreamLease.count()).toBe(0);
});

it('a transient failure is retried with backoff; the transaction’s later events wait for it', async () => {
  const sink = new RecordingSink();
  sink.failNext = 1;
  const tx = '00000000-0000-4000-8000-0000000000aa';
  await store(txEvent(tx, null, 'Created'));
  await store(txEvent(tx, 'Created', 'PaymentProcessing'));
  const p = make(sink);
  p.start();
  await waitFor(() => db.prisma.webhookInbox.findFirst({ where: { attempts: 1, processedAt: null } }), {
    timeoutMs: 10_000,
    what: 'a row tried once and still unprocessed',
  });
  await new Promise((r) => setTimeout(r, 100));
  expect(sink.events).toHaveLength(0); // the second event did not overtake the first
  const row = await db.prisma.webhookInbox.findFirst({ where: { attempts: 1 } });
  expect(row!.lastError).toBe('database unavailable');
  clock.advance(1_000);
  await waitFor(async () => (await pending()) === 0, { timeoutMs: 10_000, what: 'the inbox drained' });
  expect(sink.events.map((e) => (e.change as { newStatus: string }).newStatus)).toEqual(['Created', 'PaymentProcessing']);
});

it('a database refusal is kept by its code, never with the value its message quoted', async () => {
  const sink = new RecordingSink();
  sink.failNext = 1;
  const refused = Object.assign(new pg.DatabaseError('invalid input syntax for type uuid: "x" payload-value-41"', 0, 'error'), {
    code: '22P02',
  });
  sink.failWith = new StatementError(refused);
  const tx = '00000000-0000-4000-8000-0000000000dd';
  await store(txEvent(tx, null, 'Created'));
  const p = make(sink, { maxAttempts: 1 });
  p.start();
  await waitFor(async () => (await pending()) === 0, { timeoutMs: 10_000, what: 'the event dead-lettered' });
  const row = await db.prisma.webhookInbox.findFirstOrThrow({ where: { outcome: 'dead_letter' } });
  expect(row.lastError).toBe('invalid input syntax for type uuid: "…" (SQLSTATE 22P02)');
  expect(sink.failWith.message).toBe('invalid input syntax for type uuid: "…"'); // a quote inside the value hides nothing
});

it('a refusal through Prisma is kept the same way: its SQLSTATE and message, without the value', async () => {
  const sink = new RecordingSink();
  sink.failNext = 1;
  // what Prisma's raw query throws (P2010), its driver adapter's error inside
  sink.failWith = Object.assign(
    new Error('Raw query failed. Code: `22P02`. Message: `invalid input syntax for type integer: "a" b-tail"`'),
    {
      code: 'P2010',
      meta: {
        driverAdapterError: { cause: { originalCode: '22P02', originalMessage: 'invalid input syntax for type integer: "a" b-tail"' } },
      },
    },
  );
  await store(txEvent('00000000-0000-4000-8000-0000000000ee', null, 'Created'));
  const p = make(sink, { maxAttempts: 1 });
  p.start();
  await waitFor(async () => (await pending()) === 0, { timeoutMs: 10_000, what: 'the event dead-lettered' });
  const row = await db.prisma.webhookInbox.findFirstOrThrow({ where: { outcome: 'dead_letter' } });
  expect(row.lastError).toBe('invalid input syntax for type integer: "…" (SQLSTATE 22P02)');
});

it('an event that keeps throwing is dead-lettered after maxAttempts and its stream goes on; metrics count it', async () => {
  const sink = new RecordingSink();
  sink.failNext = 3;
  const metrics = new Metrics({ defaultMetrics: false });
  const tx = '00000000-0000-4000-8000-0000000000cc';
  await store(txEvent(tx, null, 'Created'));
  await store(txEvent(tx, 'Created', 'PaymentProcessing'));
  const p = make(sink, { maxAttempts: 3 }, metrics);
  p.start();
  for (const attempts of [1, 2]) {
    await waitFor(() => db.prisma.webhookInbox.findFirst({ where: { attempts, processedAt: null } }), {
      timeoutMs: 10_000,
      what: `a row tried ${attempts} times and still unprocessed`,
    });
    expect(sink.events).toHaveLength(0); // the head blocks its stream while it is retried
    clock.advance(60_000);
  }
  await waitFor(async () => (await pending()) === 0, { timeoutMs: 10_000, what: 'the inbox drained' });
  const rows = await db.prisma.webhookInbox.findMany({ orderBy: { seq: 'asc' } });
  expect(rows.map((r) => [r.outcome, r.attempts, r.lastError])).toEqual([
    ['dead_letter', 3, 'database unavailable'],
    ['applied', 1, null],
  ]);
  expect(sink.events.map((e) => (e.change as { newStatus: string }).newStatus)).toEqual(['PaymentProcessing']);
  expect(p.stats).toEqual({ processed: 2, retried: 2, deadLettered: 1 });
  const value = async (name: string, labels: Record<string, string> = {}) =>
    (await metrics.registry.getSingleMetric(name)!.get()).values.find((v) => Object.entries(labels).every(([k, l]) => v.labels[k] === l))
      ?.value;
  expect(await value('webhook_events_dead_lettered_total')).toBe(1);
  expect(await value('webhook_events_processed_total', { outcome: 'dead_letter' })).toBe(1);
  expect(await value('webhook_events_processed_total', { outcome: 'applied' })).toBe(1);
  expect(await value('webhook_event_retries_total', { reason: 'error' })).toBe(2);
  expect(await value('webhook_event_processing_lag_seconds', {})).toBeDefined();
});

it('a stream leased by a crashed instance is taken over once its lease expires', async () => {
  const sink = new RecordingSink();
  const tx = '00000000-0000-4000-8000-0000000000dd';
  await store(txEvent(tx, null, 'Created'));
  await db.prisma.webhookStreamLease.create({
    data: { streamKey: `tx:${tx}`, leaseOwner: 'crashed', leaseUntil: new Date(clock.nowMs() + 30_000) },
  });
  const p = make(sink);
  p.start();
  await new Promise((r) => setTimeout(r, 200));
  expect(sink.events).toHaveLength(0);
  clock.advance(31_000);
  await waitFor(async () => (await pending()) === 0, { timeoutMs: 10_000, what: 'the inbox drained' });
  expect(sink.events).toHaveLength(1);
  expect(await db.prisma.webhookStreamLease.count()).toBe(0);
});

it('batches: claiming, reading and finishing cost a few statements per pass, not per event', async () => {
  const doc = (id: string, status: string, second: number) => ({
    event: 'DocumentUpdatedEvents',
    id,
    entityId: 'person-1',
    entityType: 'Participant',
    documentType: 'PASSPORT',
    verificationStatus: status,
    occurredAt: `2026-01-01T00:00:0${second}Z`,
    tenantId: 'sandbox-tenant',
    version: 1,
  });
  for (let i = 0; i < 40; i++) await store(doc(`solo-${i}`, 'VERIFIED', 1)); // 40 streams of one event
  for (let i = 0; i < 5; i++) for (let k = 0; k < 4; k++) await store(doc(`multi-${i}`, k % 2 ? 'PENDING' : 'VERIFIED', k + 1)); // 5 streams of 4
  const p = make(null, { pollIntervalMs: 3_600_000 });
  const { statements } = await db.queries.measure(async () => {
    p.start();
    await waitFor(async () => (await pending()) === 0, { timeoutMs: 10_000, what: 'the inbox drained' });
    await p.idle();
  });
  const processing = statements.filter((q) => !q.includes('COUNT(')); // not this test's polling
  const applying = processing.filter((q) => q.includes('INSERT INTO platform_documents'));
  expect(applying).toHaveLength(60); // one upsert per event, each applied
  // claim + read + finish for the one pass, then an empty claim (a few more if a poll or nudge interleaves)
  expect(processing.length - applying.length).toBeLessThanOrEqual(8);
  expect(processing.length / 60).toBeLessThan(1.15); // was ≈ 7 statements per event with a lease round per event
  expect(await db.prisma.webhookInbox.count({ where: { outcome: 'applied' } })).toBe(60);
  for (let i = 0; i < 5; i++)
    expect(await db.prisma.platformDocument.findUnique({ where: { id: `multi-${i}` } })).toMatchObject({
      verificationStatus: 'PENDING',
      occurredAt: new Date('2026-01-01T00:00:04Z'),
    });
  expect(await db.prisma.webhookStreamLease.count()).toBe(0);
});

it('unknown_transfer is retried during the grace period, then recorded', async () => {
  const sink = new RecordingSink();
  sink.outcome = () => ({ applied: false, transferId: null, reason: 'unknown_transfer' });
  await store(txEvent('00000000-0000-4000-8000-0000000000bb', null, 'Created'));
  const p = make(sink, { unknownTransferGraceMs: 5_000 });
  p.start();
  await waitFor(() => sink.events.length === 1, { timeoutMs: 10_000, what: 'the event at the sink' });
  expect(await pending()).toBe(1);
  clock.advance(6_000);
  await waitFor(async () => (await pending()) === 0, { timeoutMs: 10_000, what: 'the inbox drained' });
  expect(sink.events.length).toBeGreaterThanOrEqual(2);
  expect((await db.prisma.webhookInbox.findFirst())!.outcome).toBe('unknown_transfer');
});

it('documents keep the greatest occurredAt (equal = retry); unknown statuses recorded and ignored; agents never go back to pending', async () => {
  const doc = (status: string, occurredAt: string, extra: Record<string, unknown> = {}) => ({
    event: 'DocumentUpdatedEvents',
    id: 'doc-1',
    entityId: 'person-1',
    entityType: 'Participant',
    documentType: 'PASSPORT',
    verificationStatus: status,
    occurredAt,
    tenantId: 'sandbox-tenant',
    version: 1,
    ...extra,
  });
  await store(doc('VERIFIED', '2026-01-01T00:00:02Z'));
  await store(doc('PENDING', '2026-01-01T00:00:01Z')); // older, arrives later
  await store(doc('REJECTED', '2026-01-01T00:00:02Z')); // same occurredAt: a retry, no effect
  await store(doc('FROZEN', '2026-01-01T00:00:09Z')); // unknown status
  await store({
    event: 'agentUpdatedEvents',
    id: 'ag-1',
    before: { status: 'PENDING_APPROVAL' },
    after: { id: 'ag-1', email: 'a@x', businessName: 'A', externalId: null, status: 'ACTIVE', createdAt: '2026-01-01T00:00:00Z' },
    tenantId: 'sandbox-tenant',
    version: 1,
  });
  await store({
    event: 'AgentUpdatedEvents',
    id: 'ag-1',
    before: null,
    after: { id: 'ag-1', email: 'a@x', businessName: 'A', externalId: null, status: 'PENDING_APPROVAL', createdAt: '2026-01-01T00:00:00Z' },
    tenantId: 'sandbox-tenant',
    version: 1,
  });
  await store({ event: 'SomethingElse', x: 1 });
  const p = make(null);
  p.start();
  await waitFor(async () => (await pending()) === 0, { timeoutMs: 10_000, what: 'the inbox drained' });
  expect(await db.prisma.platformDocument.findUnique({ where: { id: 'doc-1' } })).toMatchObject({
    verificationStatus: 'VERIFIED',
    occurredAt: new Date('2026-01-01T00:00:02Z'),
    entityId: 'person-1',
  });
  expect(await db.prisma.platformAgent.findUnique({ where: { id: 'ag-1' } })).toMatchObject({ status: 'ACTIVE', businessName: 'A' });
  const outcomes = (await db.prisma.webhookInbox.findMany({ orderBy: { seq: 'asc' } })).map((r) => r.outcome);
  expect(outcomes).toEqual(['applied', 'stale', 'no_change', 'unknown_value', 'applied', 'stale', 'ignored']);
});
