/**
 * The inbox processor against a real (PGlite or PostgreSQL) database with a recording fake sink:
 * ordering per transaction, leases across two processors, retries, documents and agents.
 */
import pino from 'pino';
import { ManualClock } from '../../src/shared/clock';
import type { ApplyOutcome, PlatformTransactionEvent, TransferEventSink } from '../../src/modules/transfers/transfer.ports';
import { WebhookInbox } from '../../src/modules/webhooks/webhook.inbox';
import { PlatformStateStore } from '../../src/modules/webhooks/webhook.platform-state';
import { WebhookProcessor } from '../../src/modules/webhooks/webhook.processor';
import { createTestDatabase, type TestDatabase } from '../helpers/db';

const logger = pino({ level: 'silent' });

class RecordingSink implements TransferEventSink {
  readonly events: PlatformTransactionEvent[] = [];
  active = new Map<string, number>();
  maxConcurrentPerTx = 0;
  failNext = 0;
  outcome: (e: PlatformTransactionEvent) => ApplyOutcome = () => ({ applied: true, transferId: 't', version: 1 });
  async applyPlatformEvent(e: PlatformTransactionEvent): Promise<ApplyOutcome> {
    const n = (this.active.get(e.transactionId) ?? 0) + 1;
    this.active.set(e.transactionId, n);
    this.maxConcurrentPerTx = Math.max(this.maxConcurrentPerTx, n);
    try {
      await new Promise((r) => setTimeout(r, Math.random() * 3));
      if (this.failNext > 0) {
        this.failNext--;
        throw new Error('database unavailable');
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

async function until(fn: () => Promise<boolean> | boolean, ms = 10_000) {
  const end = Date.now() + ms;
  while (!(await fn())) {
    if (Date.now() > end) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 10));
  }
}

let db: TestDatabase;
let clock: ManualClock;
let inbox: WebhookInbox;
const processors: WebhookProcessor[] = [];
const make = (sink: TransferEventSink | null, opts: Partial<ConstructorParameters<typeof WebhookProcessor>[5]> = {}) => {
  const p = new WebhookProcessor(db.prisma, sink, new PlatformStateStore(db.prisma), clock, logger, { pollIntervalMs: 20, ...opts });
  processors.push(p);
  return p;
};
const store = (payload: Record<string, unknown>) => inbox.store({ eventName: String(payload.event), payload, signed: true, receivedAt: clock.now() });
const pending = () => db.prisma.webhookInbox.count({ where: { processedAt: null } });

beforeEach(async () => {
  db = await createTestDatabase();
  clock = new ManualClock(Date.now());
  inbox = new WebhookInbox(db.prisma);
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
  await until(async () => (await pending()) === 0);
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
  await until(async () => (await db.prisma.webhookInbox.findFirst({ where: { attempts: 1, processedAt: null } })) !== null);
  await new Promise((r) => setTimeout(r, 100));
  expect(sink.events).toHaveLength(0); // the second event did not overtake the first
  const row = await db.prisma.webhookInbox.findFirst({ where: { attempts: 1 } });
  expect(row!.lastError).toBe('database unavailable');
  clock.advance(1_000);
  await until(async () => (await pending()) === 0);
  expect(sink.events.map((e) => (e.change as { newStatus: string }).newStatus)).toEqual(['Created', 'PaymentProcessing']);
});

it('unknown_transfer is retried during the grace period, then recorded', async () => {
  const sink = new RecordingSink();
  sink.outcome = () => ({ applied: false, transferId: null, reason: 'unknown_transfer' });
  await store(txEvent('00000000-0000-4000-8000-0000000000bb', null, 'Created'));
  const p = make(sink, { unknownTransferGraceMs: 5_000 });
  p.start();
  await until(() => sink.events.length === 1);
  expect(await pending()).toBe(1);
  clock.advance(6_000);
  await until(async () => (await pending()) === 0);
  expect(sink.events.length).toBeGreaterThanOrEqual(2);
  expect((await db.prisma.webhookInbox.findFirst())!.outcome).toBe('unknown_transfer');
});

it('documents keep the greatest occurredAt (equal = retry); unknown statuses recorded and ignored; agents never go back to pending', async () => {
  const doc = (status: string, occurredAt: string, extra: Record<string, unknown> = {}) => ({
    event: 'DocumentUpdatedEvents', id: 'doc-1', entityId: 'person-1', entityType: 'Participant', documentType: 'PASSPORT', verificationStatus: status, occurredAt, tenantId: 't', version: 1, ...extra,
  });
  await store(doc('VERIFIED', '2026-01-01T00:00:02Z'));
  await store(doc('PENDING', '2026-01-01T00:00:01Z')); // older, arrives later
  await store(doc('REJECTED', '2026-01-01T00:00:02Z')); // same occurredAt: a retry, no effect
  await store(doc('FROZEN', '2026-01-01T00:00:09Z')); // unknown status
  await store({ event: 'agentUpdatedEvents', id: 'ag-1', before: { status: 'PENDING_APPROVAL' }, after: { id: 'ag-1', email: 'a@x', businessName: 'A', externalId: null, status: 'ACTIVE', createdAt: '2026-01-01T00:00:00Z' }, tenantId: 't', version: 1 });
  await store({ event: 'AgentUpdatedEvents', id: 'ag-1', before: null, after: { id: 'ag-1', email: 'a@x', businessName: 'A', externalId: null, status: 'PENDING_APPROVAL', createdAt: '2026-01-01T00:00:00Z' }, tenantId: 't', version: 1 });
  await store({ event: 'SomethingElse', x: 1 });
  const p = make(null);
  p.start();
  await until(async () => (await pending()) === 0);
  expect(await db.prisma.platformDocument.findUnique({ where: { id: 'doc-1' } })).toMatchObject({ verificationStatus: 'VERIFIED', occurredAt: new Date('2026-01-01T00:00:02Z'), entityId: 'person-1' });
  expect(await db.prisma.platformAgent.findUnique({ where: { id: 'ag-1' } })).toMatchObject({ status: 'ACTIVE', businessName: 'A' });
  const outcomes = (await db.prisma.webhookInbox.findMany({ orderBy: { seq: 'asc' } })).map((r) => r.outcome);
  expect(outcomes).toEqual(['applied', 'stale', 'no_change', 'unknown_value', 'applied', 'stale', 'ignored']);
});
