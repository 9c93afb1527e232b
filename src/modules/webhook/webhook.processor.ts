/**
 * Processes the webhook inbox after the deliveries were acknowledged (at least once; the effects are idempotent):
 * how a pass claims, reads, applies and finishes streams, retries and dead letters are in docs/webhooks.md.
 */
import { InboxStreamRepository, type InboxRow } from './webhook.streams.repository';
import { describeRefusal } from '../../db/db.errors';
import type { RawSql } from '../../db/raw-sql';
import { randomUUID } from 'node:crypto';
import type { Clock } from '../../shared/clock';
import type { Logger } from '../../shared/logger';
import type { Metrics } from '../../shared/metrics';
import { PollLoop } from '../../shared/poll-loop';
import { withQueryPhase } from '../../db/instrument';
import type {
  ApplyOutcome,
  DeliveryReceipt,
  PlatformTransactionEvent,
  ReceiptOutcome,
  TransferEventSink,
} from '../transfer/transfer.ports';
import type { PreparedDelivery } from './webhook.inbox.repository';
import { normalizeEvent } from './webhook.normalize';
import type { PlatformStateStore } from './webhook.platform-state.repository';
import { backoffDelay } from '../../shared/backoff';

export interface WebhookProcessorOptions {
  pollIntervalMs: number;
  /** How long a stream lease lasts without renewal. */
  leaseMs?: number;
  /** Streams applied concurrently by this instance (each holds a pool connection while applying; the pool also serves acknowledgements). */
  concurrency?: number;
  /** Streams claimed per pass (one statement). */
  batchSize?: number;
  /** Events of one stream read per pass. */
  perStream?: number;
  /** How long an event of an unknown transfer is retried before the outcome is recorded. */
  unknownTransferGraceMs?: number;
  maxBackoffMs?: number;
  /** Attempts of an event whose processing keeps throwing before it is dead-lettered. */
  maxAttempts?: number;
  /** Our tenant at the platform: events of any other tenant (or none) have no effect (outcome mismatch). */
  tenantId: string;
}

export const DEAD_LETTER = 'dead_letter';

/** What the inbox records of an event's outcome: applied, why it changed nothing, or a mismatch and its reason. */
function inboxOutcome(o: ReceiptOutcome): { outcome: string; reason: string | null } {
  if (o.applied) return { outcome: 'applied', reason: null };
  if (o.reason === 'mismatch') return { outcome: MISMATCH, reason: o.mismatch };
  return { outcome: o.reason, reason: null };
}
/** The outcome of an event that contradicts what we know (its reason in outcome_reason). */
export const MISMATCH = 'mismatch';

/** What applying one event concluded (reason: only for a mismatch). */
interface Applied {
  outcome: string;
  reason?: string | null;
}

/** What processing one row concluded: an outcome (the row is finished) or a retry at retryAt. */
interface RowResult {
  row: InboxRow;
  outcome: string | null;
  /** Why, for a mismatch. */
  reason: string | null;
  attempts: number;
  error: string | null;
  at: Date;
  retry: 'error' | 'unknown_transfer' | null;
}

interface ProcessorStats {
  processed: number;
  retried: number;
  deadLettered: number;
}

/**
 * What is kept of a failure to apply an event — logged, stored in webhook_inbox.last_error, shown to the back office
 * with the dead letters: a database's refusal as describeRefusal keeps it, anything else by its message.
 */
const failureText = (err: unknown): string => (describeRefusal(err) ?? String((err as Error)?.message ?? err)).slice(0, 500);

export class WebhookProcessor {
  readonly instanceId = randomUUID();
  private readonly streams: InboxStreamRepository;
  readonly stats: ProcessorStats = { processed: 0, retried: 0, deadLettered: 0 };
  /** A beat every pollIntervalMs (nudges coalesce with it); a pass that throws is retried at the next one. */
  private readonly loop: PollLoop;
  private readonly leaseMs: number;
  private readonly concurrency: number;
  private readonly batchSize: number;
  private readonly perStream: number;
  private readonly graceMs: number;
  private readonly maxBackoffMs: number;
  readonly maxAttempts: number;

  constructor(
    /** Raw statements outside transactions (db.sql): claiming streams, reading and settling deliveries. */
    sql: RawSql,
    private readonly sink: TransferEventSink | null,
    private readonly state: PlatformStateStore,
    private readonly clock: Clock,
    private readonly logger: Logger,
    private readonly opts: WebhookProcessorOptions,
    private readonly metrics: Metrics | null = null,
  ) {
    this.streams = new InboxStreamRepository(sql, this.instanceId);
    this.leaseMs = opts.leaseMs ?? 30_000;
    this.concurrency = opts.concurrency ?? 4;
    this.batchSize = opts.batchSize ?? 64;
    this.perStream = opts.perStream ?? 16;
    this.graceMs = opts.unknownTransferGraceMs ?? 30_000;
    this.maxBackoffMs = opts.maxBackoffMs ?? 60_000;
    this.maxAttempts = opts.maxAttempts ?? 12;
    this.loop = new PollLoop(() => withQueryPhase('webhook.apply', () => this.drain()), {
      intervalMs: opts.pollIntervalMs,
      cadence: 'steady',
      onError: (err) =>
        this.logger.warn({ err: { message: (err as Error).message } }, 'webhook processor pass failed; retrying at the next poll'),
    });
  }

  get isRunning(): boolean {
    return this.loop.isRunning;
  }

  start(): void {
    this.loop.start();
  }

  /** Run soon (coalesced). Called after each insert. */
  nudge(): void {
    this.loop.wake();
  }

  /** Resolves when the current pass (if any) is over. Tests use it with a due-work check. */
  idle(): Promise<void> {
    return this.loop.idle();
  }

  /** Stops polling and waits for the pass in flight (it stops at its next stream or row). */
  stop(): Promise<void> {
    return this.loop.stop();
  }

  /**
   * A delivery of one transaction event, applied as it is stored when the sink can (TransferEventSink.applyAtReceipt:
   * the same statement stores it and records what it changes, while nothing else of its stream waits). Null: not such
   * a delivery (another kind, several events, another tenant, or the processor not running) — store it for a pass.
   * 'queued': stored for a pass (its stream was busy, or it could not be applied at once).
   */
  async applyAtReceipt(
    d: PreparedDelivery,
    receipt: (result: { outcome: string; reason: string | null }) => DeliveryReceipt,
  ): Promise<'processed' | 'queued' | 'duplicate' | null> {
    const n = d.normalized;
    const sink = this.sink;
    if (!sink?.applyAtReceipt || !this.isRunning || n.kind !== 'transaction' || n.events.length !== 1) return null;
    const [body] = n.events;
    if (body!.tenantId !== this.opts.tenantId) return null; // recorded as a mismatch by a pass
    const event: PlatformTransactionEvent = { ...body!, source: { kind: 'webhook', inboxId: d.id, eventName: d.eventName } };
    const r = await sink.applyAtReceipt(event, (o) => receipt(inboxOutcome(o)));
    if (r.stored === 'queued') this.nudge();
    if (r.stored === 'processed') {
      const { outcome, reason } = inboxOutcome(r.outcome);
      if (outcome === MISMATCH)
        this.logger.warn({ inboxId: d.id, event: d.eventName, reason }, 'webhook event contradicts what we know: no effect');
      else this.logger.debug({ inboxId: d.id, event: d.eventName, outcome }, 'webhook event processed at receipt');
      this.record({
        row: {
          id: d.id,
          stream_key: d.streamKey,
          event_name: d.eventName,
          payload: d.payload,
          received_at: d.receivedAt,
          next_attempt_at: d.receivedAt,
          attempts: 0,
        },
        outcome,
        reason,
        attempts: 1,
        error: null,
        at: this.clock.now(),
        retry: null,
      });
    }
    return r.stored;
  }

  /** Unprocessed events that are due now (the metrics' backlog gauge, read on scrape). */
  backlog(): Promise<number> {
    return this.streams.backlog(this.clock.now());
  }

  /** Passes follow each other while there is work (at most 1000 in a row). */
  private async drain(): Promise<void> {
    for (let pass = 0; pass < 1000 && this.isRunning; pass++) if (!(await this.pass())) return;
  }

  /** One claim → read → apply → finish round. True when any row was processed or rescheduled. */
  private async pass(): Promise<boolean> {
    const keys = await this.claim();
    if (keys.length === 0) return false;
    const results: RowResult[] = [];
    try {
      const rows = await this.readStreams(keys);
      const byStream = new Map<string, InboxRow[]>();
      for (const r of rows) {
        const list = byStream.get(r.stream_key);
        if (list) list.push(r);
        else byStream.set(r.stream_key, [r]);
      }
      const queue = [...byStream.keys()];
      await Promise.all(
        Array.from({ length: Math.min(this.concurrency, queue.length) }, async () => {
          for (let key = queue.shift(); key !== undefined && this.isRunning; key = queue.shift())
            await this.runStream(key, byStream.get(key)!, results);
        }),
      );
    } finally {
      await this.finish(results, keys);
    }
    return results.length > 0;
  }

  /** Leases up to batchSize streams whose head is due (inserted in key order: no deadlock between instances). */
  private claim(): Promise<string[]> {
    const now = this.clock.now();
    return this.streams.claim(now, new Date(now.getTime() + this.leaseMs), this.batchSize);
  }

  /** The first perStream unprocessed events of each stream, in stream order. */
  private readStreams(keys: string[]): Promise<InboxRow[]> {
    return this.streams.read(keys, this.perStream);
  }

  private renew(streamKey: string): Promise<boolean> {
    return this.streams.renew(streamKey, new Date(this.clock.nowMs() + this.leaseMs));
  }

  /** Applies one stream's due events in order until one must wait (retry) or the lease is lost. */
  private async runStream(streamKey: string, rows: InboxRow[], results: RowResult[]): Promise<void> {
    let leasedAt = this.clock.nowMs();
    for (const row of rows) {
      if (!this.isRunning || row.next_attempt_at.getTime() > this.clock.nowMs()) return;
      if (this.clock.nowMs() - leasedAt > this.leaseMs / 2) {
        if (!(await this.renew(streamKey))) return; // taken over after our lease expired
        leasedAt = this.clock.nowMs();
      }
      const result = await this.processRow(row);
      results.push(result);
      if (result.retry) return; // the stream waits for its head
    }
  }

  private async processRow(row: InboxRow): Promise<RowResult> {
    const now = this.clock.now();
    const attempts = row.attempts + 1;
    let applied: Applied;
    try {
      applied = await this.apply(row, now);
    } catch (err) {
      const error = failureText(err);
      if (attempts >= this.maxAttempts) {
        this.logger.error(
          { inboxId: row.id, event: row.event_name, attempts, err: { message: error } },
          'webhook event dead-lettered; its stream goes on',
        );
        return { row, outcome: DEAD_LETTER, reason: null, attempts, error, at: now, retry: null };
      }
      const delay = backoffDelay({ baseMs: 500, maxMs: this.maxBackoffMs, attempt: attempts - 1, maxExponent: 16 });
      this.logger.warn(
        { inboxId: row.id, event: row.event_name, attempts, retryInMs: delay, err: { message: error } },
        'webhook event processing failed; will retry',
      );
      return { row, outcome: null, reason: null, attempts, error, at: new Date(now.getTime() + delay), retry: 'error' };
    }
    const { outcome, reason = null } = applied;
    if (outcome === 'unknown_transfer' && now.getTime() - row.received_at.getTime() < this.graceMs) {
      const delay = backoffDelay({ baseMs: 250, maxMs: this.graceMs, attempt: attempts - 1, maxExponent: 10 });
      return {
        row,
        outcome: null,
        reason: null,
        attempts,
        error: 'unknown transfer',
        at: new Date(now.getTime() + delay),
        retry: 'unknown_transfer',
      };
    }
    if (outcome === MISMATCH)
      this.logger.warn({ inboxId: row.id, event: row.event_name, reason }, 'webhook event contradicts what we know: no effect');
    else this.logger.debug({ inboxId: row.id, event: row.event_name, outcome }, 'webhook event processed');
    return { row, outcome, reason, attempts, error: null, at: now, retry: null };
  }

  /**
   * One statement: every row's result (finished: processed_at + outcome; retry: next_attempt_at), and the
   * leases released. Rows another holder finished meanwhile are left alone.
   */
  private async finish(results: RowResult[], keys: string[]): Promise<void> {
    await this.streams.finish(
      results.map((r) => ({ id: r.row.id, outcome: r.outcome, reason: r.reason, attempts: r.attempts, error: r.error, at: r.at })),
      keys,
    );
    for (const r of results) this.record(r);
  }

  private record(r: RowResult): void {
    if (r.retry) {
      this.stats.retried++;
      this.metrics?.webhookRetries.inc({ reason: r.retry });
      return;
    }
    this.stats.processed++;
    if (r.outcome === DEAD_LETTER) {
      this.stats.deadLettered++;
      this.metrics?.webhookDeadLettered.inc();
    }
    if (r.outcome === MISMATCH) this.metrics?.webhookEventsRejected.inc({ reason: r.reason ?? 'unknown' });
    this.metrics?.webhookEventsProcessed.inc({ outcome: r.outcome! });
    this.metrics?.webhookProcessingLag.observe(Math.max(0, r.at.getTime() - r.row.received_at.getTime()) / 1000);
  }

  private async apply(row: InboxRow, now: Date): Promise<Applied> {
    const n = normalizeEvent(row.payload, row.received_at);
    switch (n.kind) {
      case 'unknown':
        return { outcome: 'ignored' };
      case 'invalid':
        this.logger.warn(
          { inboxId: row.id, event: row.event_name, problem: n.problem },
          'webhook event not understood; recorded and ignored',
        );
        return { outcome: 'invalid' };
      case 'document':
        if (n.document.tenantId !== this.opts.tenantId) return { outcome: MISMATCH, reason: 'tenant' };
        return { outcome: await this.state.applyDocument(n.document, now) };
      case 'agent':
        if (n.agent.tenantId !== this.opts.tenantId) return { outcome: MISMATCH, reason: 'tenant' };
        return { outcome: await this.state.applyAgent(n.agent, now) };
      case 'transaction': {
        if (n.events.some((e) => e.tenantId !== this.opts.tenantId)) return { outcome: MISMATCH, reason: 'tenant' };
        if (!this.sink) return { outcome: 'no_sink' };
        const outcomes: ApplyOutcome[] = [];
        for (const e of n.events) {
          const out = await this.sink.applyPlatformEvent({ ...e, source: { kind: 'webhook', inboxId: row.id, eventName: row.event_name } });
          // a contradiction stops the event: none of its (earlier-generation) changes go further
          if (!out.applied && out.reason === 'mismatch') return inboxOutcome(out);
          outcomes.push(out);
        }
        return inboxOutcome(outcomes.find((o) => o.applied) ?? outcomes[0]!);
      }
    }
  }
}
