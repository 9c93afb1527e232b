/**
 * Processes the webhook inbox after the deliveries were acknowledged. At least once; the effects are
 * idempotent (the saga's sink by contract, documents/agents by their conditional upserts).
 *
 * Several instances run this loop against one database:
 * - Work is claimed per stream (one transaction, one document, one agent): a row in webhook_stream_leases
 *   taken with an atomic INSERT … ON CONFLICT DO UPDATE … WHERE lease_until < now. Only the holder
 *   processes that stream, so the events of one transaction are applied one at a time, in arrival order
 *   (seq). A crashed holder's lease expires (leaseMs) and another instance takes over.
 * - A stream's head blocks it: when applying fails transiently (the sink throws), the row is retried
 *   with exponential backoff (nextAttemptAt) and later events of that transaction wait for it.
 * - "unknown_transfer" is retried for a short grace period (the saga may not have committed the
 *   transaction's correlation yet), then recorded as the outcome.
 * - The loop runs every pollIntervalMs and at once when nudged (after each insert), so the latency is
 *   small and nothing stored is ever forgotten, including events stored before a crash or restart.
 */
import { randomUUID } from 'node:crypto';
import type { PrismaClient } from '../../generated/prisma/client';
import type { Clock } from '../../shared/clock';
import type { Logger } from '../../shared/logger';
import type { ApplyOutcome, TransferEventSink } from '../transfers/transfer.ports';
import { normalizeEvent } from './webhook.normalize';
import type { PlatformStateStore } from './webhook.platform-state';

export interface WebhookProcessorOptions {
  pollIntervalMs: number;
  /** How long a stream lease lasts without renewal (renewed after every event). */
  leaseMs?: number;
  /** Streams processed concurrently by this instance. */
  concurrency?: number;
  /** How long an event of an unknown transfer is retried before the outcome is recorded. */
  unknownTransferGraceMs?: number;
  maxBackoffMs?: number;
}

interface InboxRow {
  id: string;
  event_name: string;
  payload: unknown;
  received_at: Date;
  next_attempt_at: Date;
  attempts: number;
}

export interface ProcessorStats {
  processed: number;
  retried: number;
}

export class WebhookProcessor {
  readonly instanceId = randomUUID();
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;
  private again = false;
  private started = false;
  private stopped = false;
  readonly stats: ProcessorStats = { processed: 0, retried: 0 };
  private readonly leaseMs: number;
  private readonly concurrency: number;
  private readonly graceMs: number;
  private readonly maxBackoffMs: number;
  private idleWaiters: (() => void)[] = [];

  constructor(
    private readonly prisma: PrismaClient,
    private readonly sink: TransferEventSink | null,
    private readonly state: PlatformStateStore,
    private readonly clock: Clock,
    private readonly logger: Logger,
    private readonly opts: WebhookProcessorOptions,
  ) {
    this.leaseMs = opts.leaseMs ?? 30_000;
    this.concurrency = opts.concurrency ?? 4;
    this.graceMs = opts.unknownTransferGraceMs ?? 30_000;
    this.maxBackoffMs = opts.maxBackoffMs ?? 60_000;
  }

  get isRunning(): boolean {
    return this.started && !this.stopped;
  }

  start(): void {
    if (this.started || this.stopped) return;
    this.started = true;
    this.timer = setInterval(() => this.nudge(), this.opts.pollIntervalMs);
    this.timer.unref();
    this.nudge();
  }

  /** Run soon (coalesced). Called after each insert. */
  nudge(): void {
    if (!this.isRunning) return;
    if (this.running) {
      this.again = true;
      return;
    }
    this.running = this.loop().finally(() => {
      this.running = null;
      if (this.again && this.isRunning) {
        this.again = false;
        this.nudge();
      } else {
        for (const w of this.idleWaiters.splice(0)) w();
      }
    });
  }

  /** Resolves when the current pass (if any) is over. Tests use it with a due-work check. */
  async idle(): Promise<void> {
    if (!this.running) return;
    await new Promise<void>((r) => this.idleWaiters.push(r));
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.running?.catch(() => undefined);
    for (const w of this.idleWaiters.splice(0)) w();
  }

  private async loop(): Promise<void> {
    try {
      for (let pass = 0; pass < 1000 && this.isRunning; pass++) {
        const streams = await this.dueStreams(this.concurrency * 4);
        if (streams.length === 0) return;
        let progressed = false;
        const queue = [...streams];
        await Promise.all(
          Array.from({ length: Math.min(this.concurrency, queue.length) }, async () => {
            for (let key = queue.shift(); key !== undefined && this.isRunning; key = queue.shift()) {
              if (await this.runStream(key)) progressed = true;
            }
          }),
        );
        if (!progressed) return;
      }
    } catch (err) {
      this.logger.warn({ err: { message: (err as Error).message } }, 'webhook processor pass failed; retrying at the next poll');
    }
  }

  private async dueStreams(limit: number): Promise<string[]> {
    const now = this.clock.now();
    const rows = await this.prisma.$queryRaw<{ stream_key: string }[]>`
      SELECT i.stream_key FROM webhook_inbox i
      WHERE i.processed_at IS NULL AND i.next_attempt_at <= ${now}
        AND NOT EXISTS (SELECT 1 FROM webhook_stream_leases l WHERE l.stream_key = i.stream_key AND l.lease_until >= ${now})
      GROUP BY i.stream_key
      ORDER BY min(i.seq)
      LIMIT ${limit}`;
    return rows.map((r) => r.stream_key);
  }

  private async acquire(streamKey: string): Promise<boolean> {
    const now = this.clock.now();
    const until = new Date(now.getTime() + this.leaseMs);
    const rows = await this.prisma.$queryRaw<{ stream_key: string }[]>`
      INSERT INTO webhook_stream_leases (stream_key, lease_owner, lease_until) VALUES (${streamKey}, ${this.instanceId}, ${until})
      ON CONFLICT (stream_key) DO UPDATE SET lease_owner = EXCLUDED.lease_owner, lease_until = EXCLUDED.lease_until
      WHERE webhook_stream_leases.lease_until < ${now}
      RETURNING stream_key`;
    return rows.length > 0;
  }

  private async renew(streamKey: string): Promise<boolean> {
    const until = new Date(this.clock.nowMs() + this.leaseMs);
    const n = await this.prisma.$executeRaw`
      UPDATE webhook_stream_leases SET lease_until = ${until} WHERE stream_key = ${streamKey} AND lease_owner = ${this.instanceId}`;
    return n > 0;
  }

  private async release(streamKey: string): Promise<void> {
    await this.prisma.$executeRaw`DELETE FROM webhook_stream_leases WHERE stream_key = ${streamKey} AND lease_owner = ${this.instanceId}`;
  }

  /** Processes one stream's due head events in order while holding its lease. True when anything was done. */
  private async runStream(streamKey: string): Promise<boolean> {
    if (!(await this.acquire(streamKey))) return false;
    let progressed = false;
    try {
      for (let i = 0; i < 500 && this.isRunning; i++) {
        const [row] = await this.prisma.$queryRaw<InboxRow[]>`
          SELECT id, event_name, payload, received_at, next_attempt_at, attempts FROM webhook_inbox
          WHERE stream_key = ${streamKey} AND processed_at IS NULL ORDER BY seq LIMIT 1`;
        if (!row || row.next_attempt_at.getTime() > this.clock.nowMs()) break;
        const done = await this.processRow(row);
        progressed = true;
        if (!done) break; // retry scheduled: the stream waits for its head
        if (!(await this.renew(streamKey))) break;
      }
    } finally {
      await this.release(streamKey).catch(() => undefined);
    }
    return progressed;
  }

  /** True when the row is finished (outcome recorded); false when a retry was scheduled. */
  private async processRow(row: InboxRow): Promise<boolean> {
    const now = this.clock.now();
    let outcome: string;
    try {
      outcome = await this.apply(row, now);
    } catch (err) {
      const attempts = row.attempts + 1;
      const delay = Math.min(this.maxBackoffMs, 500 * 2 ** Math.min(attempts - 1, 16));
      const message = String((err as Error)?.message ?? err).slice(0, 500);
      await this.prisma.$executeRaw`
        UPDATE webhook_inbox SET attempts = ${attempts}, last_error = ${message}, next_attempt_at = ${new Date(now.getTime() + delay)}
        WHERE id = ${row.id}`;
      this.stats.retried++;
      this.logger.warn({ inboxId: row.id, event: row.event_name, attempts, retryInMs: delay, err: { message } }, 'webhook event processing failed; will retry');
      return false;
    }
    if (outcome === 'unknown_transfer' && now.getTime() - row.received_at.getTime() < this.graceMs) {
      const attempts = row.attempts + 1;
      const delay = Math.min(this.graceMs, 250 * 2 ** Math.min(attempts - 1, 10));
      await this.prisma.$executeRaw`
        UPDATE webhook_inbox SET attempts = ${attempts}, last_error = 'unknown transfer', next_attempt_at = ${new Date(now.getTime() + delay)}
        WHERE id = ${row.id}`;
      this.stats.retried++;
      return false;
    }
    await this.prisma.$executeRaw`
      UPDATE webhook_inbox SET processed_at = ${now}, outcome = ${outcome}, attempts = ${row.attempts + 1} WHERE id = ${row.id}`;
    this.stats.processed++;
    this.logger.debug({ inboxId: row.id, event: row.event_name, outcome }, 'webhook event processed');
    return true;
  }

  private async apply(row: InboxRow, now: Date): Promise<string> {
    const n = normalizeEvent(row.payload, row.received_at);
    switch (n.kind) {
      case 'unknown':
        return 'ignored';
      case 'invalid':
        this.logger.warn({ inboxId: row.id, event: row.event_name, problem: n.problem }, 'webhook event not understood; recorded and ignored');
        return 'invalid';
      case 'document':
        return this.state.applyDocument(n.document, now);
      case 'agent':
        return this.state.applyAgent(n.agent, now);
      case 'transaction': {
        if (!this.sink) return 'no_sink';
        const outcomes: ApplyOutcome[] = [];
        for (const e of n.events)
          outcomes.push(await this.sink.applyPlatformEvent({ ...e, source: { kind: 'webhook', inboxId: row.id, eventName: row.event_name } }));
        const applied = outcomes.find((o) => o.applied);
        if (applied) return 'applied';
        const first = outcomes[0] as Extract<ApplyOutcome, { applied: false }>;
        return first.reason;
      }
    }
  }
}
