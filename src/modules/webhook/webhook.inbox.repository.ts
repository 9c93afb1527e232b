/**
 * The webhook inbox: every accepted delivery is one row, written before the 2xx answer — unprocessed (store), or
 * already processed when its event was applied in the same statement (receipt; see WebhookProcessor.applyAtReceipt).
 *
 * Deduplication is a unique key (webhook_inbox.dedupe_key, webhook.normalize.ts `dedupeKeyOf`): the sha256 of the
 * normalised event type + the canonical payload without its `event` field. The platform sends no delivery id and a
 * redelivery carries the same body; leaving `event` out makes one event received under two spellings one row. A
 * byte-level key rather than a semantic one: it needs no definition per type and never merges a transition that
 * legitimately happens twice; what slips through is harmless (the saga never moves backwards).
 *
 * Mismatched events (outcome mismatch) and dead letters (outcome dead_letter; see webhook.processor.ts) are listed
 * for the back-office; only dead letters can be requeued, as their stream's head again.
 */
import { redactPayload } from './webhook.redact';
import type { RawSql } from '../../db/raw-sql';
import { randomUUID } from 'node:crypto';
import { Prisma, type PrismaClient } from '../../generated/prisma/client';
import type { DeliveryReceipt } from '../transfer/transfer.ports';
import { dedupeKeyOf, eventTypeOf, normalizeEvent, type Normalized } from './webhook.normalize';
import { DEAD_LETTER, MISMATCH } from './webhook.processor';

/** What the back-office sees of an inbox event (never its payload). */
interface InboxEventView {
  id: string;
  eventName: string;
  kind: string;
  streamKey: string;
  receivedAt: Date;
  processedAt: Date | null;
  outcome: string | null;
  /** Why an event had no effect (outcome mismatch). */
  reason: string | null;
  attempts: number;
  lastError: string | null;
}

/** An inbox event as back-office reads it in a list: with the transfer it concerned and its payload, redacted. */
interface InboxEventDetailView extends InboxEventView {
  transferId: string | null;
  payload: Record<string, unknown>;
}

const viewSelect = {
  id: true,
  eventName: true,
  kind: true,
  streamKey: true,
  receivedAt: true,
  processedAt: true,
  outcome: true,
  outcomeReason: true,
  attempts: true,
  lastError: true,
} as const;
type ViewRow = { outcomeReason: string | null } & Omit<InboxEventView, 'reason'>;
const toView = ({ outcomeReason, ...r }: ViewRow): InboxEventView => ({ ...r, reason: outcomeReason });

interface StoredDelivery {
  id: string;
  duplicate: boolean;
}

interface DeliveryInput {
  eventName: string;
  payload: Record<string, unknown>;
  signed: boolean;
  receivedAt: Date;
}

/** A delivery about to be stored: its inbox id, dedupe key, kind and stream, and what it normalises to. */
export interface PreparedDelivery extends DeliveryInput {
  id: string;
  dedupeKey: string;
  kind: string;
  streamKey: string;
  normalized: Normalized;
}

export class WebhookInbox {
  constructor(
    private readonly prisma: PrismaClient,
    /** Raw statements outside transactions (db.sql): storing a delivery. */
    private readonly sql: RawSql,
  ) {}

  /** Its inbox id, dedupe key, kind and stream: what store() and receipt() write. */
  prepare(input: DeliveryInput): PreparedDelivery {
    const dedupeKey = dedupeKeyOf(input.eventName, input.payload);
    const normalized = normalizeEvent(input.payload, input.receivedAt);
    const kind = normalized.kind === 'invalid' ? (eventTypeOf(input.eventName)?.split('.')[0] ?? 'unknown') : normalized.kind;
    const streamKey = normalized.streamKey ?? `misc:${dedupeKey}`;
    return { ...input, id: randomUUID(), dedupeKey, kind, streamKey, normalized };
  }

  /** Inserts the event unless an event with the same dedupe key exists. Throws when the database does. */
  async store(input: DeliveryInput | PreparedDelivery): Promise<StoredDelivery> {
    const d = 'dedupeKey' in input ? input : this.prepare(input);
    const rows = await this.sql.query<{ id: string }>`
      INSERT INTO webhook_inbox (id, dedupe_key, event_name, kind, stream_key, payload, signed, received_at, next_attempt_at)
      VALUES (${d.id}, ${d.dedupeKey}, ${d.eventName.slice(0, 200)}, ${d.kind}, ${d.streamKey}, ${JSON.stringify(d.payload)}::jsonb,
              ${d.signed}, ${d.receivedAt}, ${d.receivedAt})
      ON CONFLICT (dedupe_key) DO NOTHING
      RETURNING id`;
    return rows.length > 0 ? { id: d.id, duplicate: false } : { id: '', duplicate: true };
  }

  /**
   * The delivery's inbox row as part of the statement that applies its event at receipt (see
   * TransferEventSink.applyAtReceipt): the condition under which it may be applied now — the delivery is new, and
   * nothing else of its stream waits unprocessed or is leased by a processor, so the stream's order is kept — and its
   * INSERT, processed with `result` (outcome, reason) when the event was applied, else left for the processor.
   */
  receipt(d: PreparedDelivery, result: { outcome: string; reason: string | null }, at: Date): DeliveryReceipt {
    const condition = Prisma.sql`NOT EXISTS (SELECT 1 FROM webhook_inbox w WHERE w.dedupe_key = ${d.dedupeKey})
      AND NOT EXISTS (SELECT 1 FROM webhook_inbox w WHERE w.stream_key = ${d.streamKey} AND w.processed_at IS NULL)
      AND NOT EXISTS (SELECT 1 FROM webhook_stream_leases l WHERE l.stream_key = ${d.streamKey} AND l.lease_until >= ${at}::timestamptz)`;
    return {
      condition,
      insert: (applied, onlyIfApplied = false) => Prisma.sql`
        INSERT INTO webhook_inbox (id, dedupe_key, event_name, kind, stream_key, payload, signed, received_at, next_attempt_at,
                                   processed_at, outcome, outcome_reason, attempts)
        SELECT ${d.id}::text, ${d.dedupeKey}::text, ${d.eventName.slice(0, 200)}::text, ${d.kind}::text, ${d.streamKey}::text,
               ${JSON.stringify(d.payload)}::jsonb, ${d.signed}::boolean, ${d.receivedAt}::timestamptz, ${d.receivedAt}::timestamptz,
               CASE WHEN ${applied} THEN ${at}::timestamptz END, CASE WHEN ${applied} THEN ${result.outcome}::text END,
               CASE WHEN ${applied} THEN ${result.reason}::text END, CASE WHEN ${applied} THEN 1 ELSE 0 END
        ${onlyIfApplied ? Prisma.sql`WHERE ${applied}` : Prisma.empty}
        ON CONFLICT (dedupe_key) DO NOTHING
        RETURNING id`,
    };
  }

  /** Dead-lettered events, most recently given up first; and how many there are. */
  deadLetters(offset: number, limit: number): Promise<{ items: InboxEventDetailView[]; total: number }> {
    return this.withOutcome(DEAD_LETTER, offset, limit);
  }

  /** Events that contradicted what we know (outcome mismatch, with their reason), most recent first. */
  rejected(offset: number, limit: number): Promise<{ items: InboxEventDetailView[]; total: number }> {
    return this.withOutcome(MISMATCH, offset, limit);
  }

  private async withOutcome(outcome: string, offset: number, limit: number): Promise<{ items: InboxEventDetailView[]; total: number }> {
    const where = { outcome };
    const [rows, total] = await Promise.all([
      this.prisma.webhookInbox.findMany({
        where,
        select: { ...viewSelect, payload: true },
        orderBy: [{ processedAt: 'desc' }, { seq: 'desc' }],
        skip: offset,
        take: limit,
      }),
      this.prisma.webhookInbox.count({ where }),
    ]);
    return { items: await this.withTransfers(rows), total };
  }

  /** Views of inbox rows with the transfer each concerned (by the platform's transaction id, its stream, else the external id it names) and the payload, redacted. */
  private async withTransfers(rows: (ViewRow & { payload: Prisma.JsonValue })[]): Promise<InboxEventDetailView[]> {
    const payloads = rows.map((r) => (r.payload !== null && typeof r.payload === 'object' && !Array.isArray(r.payload) ? r.payload : {}));
    const txIds = rows.map((r) => (r.streamKey.startsWith('tx:') ? r.streamKey.slice(3) : null));
    const extIds = payloads.map((p) => {
      const v = (p as Record<string, unknown>).externalTransactionId ?? (p as Record<string, unknown>).externalId;
      return typeof v === 'string' ? v : null;
    });
    const known = await this.prisma.transfer.findMany({
      where: {
        OR: [
          { externalTransactionId: { in: txIds.filter((x): x is string => x !== null) } },
          { externalPaymentId: { in: extIds.filter((x): x is string => x !== null) } },
        ],
      },
      select: { id: true, externalTransactionId: true, externalPaymentId: true },
    });
    const byTx = new Map(known.filter((k) => k.externalTransactionId).map((k) => [k.externalTransactionId!, k.id]));
    const byExt = new Map(known.map((k) => [k.externalPaymentId, k.id]));
    return rows.map(({ payload: _payload, ...r }, i) => ({
      ...toView(r),
      transferId: (txIds[i] ? byTx.get(txIds[i]) : undefined) ?? (extIds[i] ? byExt.get(extIds[i]) : undefined) ?? null,
      payload: redactPayload(payloads[i]) as Record<string, unknown>,
    }));
  }

  /**
   * Makes a dead-lettered event unprocessed again, due now, with its attempts reset (last_error kept until
   * the next attempt). 'not_found' for an unknown id, 'not_dead' when the event is not dead-lettered.
   */
  async requeue(id: string, now: Date): Promise<InboxEventDetailView | 'not_found' | 'not_dead'> {
    const n = await this.prisma.webhookInbox.updateMany({
      where: { id, outcome: DEAD_LETTER },
      data: { outcome: null, outcomeReason: null, processedAt: null, attempts: 0, nextAttemptAt: now },
    });
    const row = await this.prisma.webhookInbox.findUnique({ where: { id }, select: { ...viewSelect, payload: true } });
    if (!row) return 'not_found';
    return n.count === 1 ? (await this.withTransfers([row]))[0]! : 'not_dead';
  }
}
