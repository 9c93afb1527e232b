/**
 * The webhook inbox: every accepted delivery is one row, written before the 2xx answer.
 *
 * Deduplication is a unique key in the database (webhook_inbox.dedupe_key), so a redelivery — seconds or
 * weeks later, to any instance — inserts nothing. The key (webhook.normalize.ts `dedupeKeyOf`) is the
 * sha256 of the normalised event type + the canonical payload without its `event` field:
 * - the platform sends no delivery id, and a redelivery carries the same body (the signature header
 *   changes with each attempt's timestamp, so it is not part of the key);
 * - canonical JSON (sorted keys) makes key order and whitespace irrelevant;
 * - leaving `event` out and keying on the normalised type makes the same event received under two
 *   spellings (e.g. a legacy lowercase subscription next to a current one) one row;
 * - a semantic key such as (transactionId, type, oldStatus, newStatus) was considered: it would also merge
 *   events the platform might re-word (messages), but it would need one definition per type and per
 *   payload generation, and it could wrongly merge a transition that legitimately happens twice
 *   (documents re-decided VERIFIED → REJECTED → VERIFIED carry different occurredAt, agents different
 *   before/after, but a transaction's hold → release → hold would not). Whatever slips through the
 *   byte-level key is harmless anyway: the saga never moves backwards, applies a compliance value only
 *   when it changes, documents keep the greatest occurredAt.
 *
 * Events that contradicted what we know (outcome mismatch, see webhook.processor.ts) are listed for the
 * back-office with their reason; they are never requeued (nothing about them will change).
 *
 * Dead letters (outcome dead_letter, see webhook.processor.ts) are listed for the back-office and can be
 * requeued: the row becomes unprocessed again with its attempts reset, so it is its stream's head once more
 * (platform facts are forward-only, so applying it after later events is safe).
 */
import { randomUUID } from 'node:crypto';
import type { PrismaClient } from '../../generated/prisma/client';
import { dedupeKeyOf, eventTypeOf, normalizeEvent } from './webhook.normalize';
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

export class WebhookInbox {
  constructor(private readonly prisma: PrismaClient) {}

  /** Inserts the event unless an event with the same dedupe key exists. Throws when the database does. */
  async store(input: { eventName: string; payload: Record<string, unknown>; signed: boolean; receivedAt: Date }): Promise<StoredDelivery> {
    const dedupeKey = dedupeKeyOf(input.eventName, input.payload);
    const normalized = normalizeEvent(input.payload, input.receivedAt);
    const kind = normalized.kind === 'invalid' ? (eventTypeOf(input.eventName)?.split('.')[0] ?? 'unknown') : normalized.kind;
    const streamKey = normalized.streamKey ?? `misc:${dedupeKey}`;
    const id = randomUUID();
    const rows = await this.prisma.$queryRaw<{ id: string }[]>`
      INSERT INTO webhook_inbox (id, dedupe_key, event_name, kind, stream_key, payload, signed, received_at, next_attempt_at)
      VALUES (${id}, ${dedupeKey}, ${input.eventName.slice(0, 200)}, ${kind}, ${streamKey}, ${JSON.stringify(input.payload)}::jsonb,
              ${input.signed}, ${input.receivedAt}, ${input.receivedAt})
      ON CONFLICT (dedupe_key) DO NOTHING
      RETURNING id`;
    return rows.length > 0 ? { id, duplicate: false } : { id: '', duplicate: true };
  }

  /** Dead-lettered events, most recently given up first; and how many there are. */
  deadLetters(offset: number, limit: number): Promise<{ items: InboxEventView[]; total: number }> {
    return this.withOutcome(DEAD_LETTER, offset, limit);
  }

  /** Events that contradicted what we know (outcome mismatch, with their reason), most recent first. */
  rejected(offset: number, limit: number): Promise<{ items: InboxEventView[]; total: number }> {
    return this.withOutcome(MISMATCH, offset, limit);
  }

  private async withOutcome(outcome: string, offset: number, limit: number): Promise<{ items: InboxEventView[]; total: number }> {
    const where = { outcome };
    const [rows, total] = await Promise.all([
      this.prisma.webhookInbox.findMany({
        where,
        select: viewSelect,
        orderBy: [{ processedAt: 'desc' }, { seq: 'desc' }],
        skip: offset,
        take: limit,
      }),
      this.prisma.webhookInbox.count({ where }),
    ]);
    return { items: rows.map(toView), total };
  }

  /**
   * Makes a dead-lettered event unprocessed again, due now, with its attempts reset (last_error kept until
   * the next attempt). 'not_found' for an unknown id, 'not_dead' when the event is not dead-lettered.
   */
  async requeue(id: string, now: Date): Promise<InboxEventView | 'not_found' | 'not_dead'> {
    const n = await this.prisma.webhookInbox.updateMany({
      where: { id, outcome: DEAD_LETTER },
      data: { outcome: null, outcomeReason: null, processedAt: null, attempts: 0, nextAttemptAt: now },
    });
    const row = await this.prisma.webhookInbox.findUnique({ where: { id }, select: viewSelect });
    if (!row) return 'not_found';
    return n.count === 1 ? toView(row) : 'not_dead';
  }
}
