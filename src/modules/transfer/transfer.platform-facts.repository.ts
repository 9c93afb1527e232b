import type { RawSql } from '../../db/raw-sql';
import { Prisma } from '../../generated/prisma/client';
import type { DeliveryReceipt } from './transfer.ports';
import type { TransferRow } from './transfer.repository';
import { transferColumns, transferFromSql, transferStateColumns } from './transfer.rows.repository';

/** The statuses in which a platform fact may still be recorded without a move. */
const LIVE = ['PENDING', 'ACTION_REQUIRED', 'AUTHORIZED', 'CAPTURED', 'PAYOUT_PENDING'];

/**
 * A platform fact that calls for no move, as PlatformFacts.recordQuietFact decided it: the first compliance report, or
 * a transaction or payout status recorded forwards only (`below`: the values it may replace) where the transfer's
 * status and the other fact are one of `pairs`.
 */
export type QuietFact =
  { column: 'compliance'; value: string } | { column: 'status' | 'payout'; value: string; below: string[]; pairs: string[] };

/** The statements of applying platform events (PlatformFacts), each one round trip. */
export class PlatformFactsRepository {
  constructor(private readonly sql: RawSql) {}

  /** The transfers an event names — by our externalPaymentId and by its platform transaction id. */
  async candidates(transactionId: string, externalTransactionId: string | null | undefined): Promise<TransferRow[]> {
    const ours = externalTransactionId ? Prisma.sql`OR external_payment_id = ${externalTransactionId}` : Prisma.empty;
    const rows = await this.sql.query`SELECT ${transferColumns()} FROM transfers WHERE external_transaction_id = ${transactionId} ${ours}`;
    return rows.map(transferFromSql);
  }

  /** The inbox row alone, processed or for the processor; false: a duplicate delivery (nothing written). */
  async storeReceipt(receipt: DeliveryReceipt, processed: boolean): Promise<boolean> {
    const [r] = await this.sql.query<{ n: number }>`
      WITH r AS (${receipt.insert(processed ? Prisma.sql`true` : Prisma.sql`false`)}) SELECT count(*)::int AS n FROM r`;
    return Boolean(r?.n);
  }

  /**
   * Records a quiet fact about the live transfer linked to the event's transaction, with its audit event and the
   * delivery's inbox row, in ONE statement — only if it still applies (forwards, the stream idle). The transfer's
   * state columns as written, or null (nothing written).
   */
  async recordQuietFact(
    f: QuietFact,
    e: { transactionId: string; externalTransactionId: string | null | undefined; inboxId: string },
    detail: Record<string, unknown>,
    receipt: DeliveryReceipt,
    at: Date,
  ): Promise<Record<string, unknown> | null> {
    let set: Prisma.Sql;
    let forward: Prisma.Sql;
    if (f.column === 'compliance') {
      set = Prisma.sql`compliance_status = ${f.value}::text`;
      forward = Prisma.sql`compliance_status IS NULL`;
    } else {
      const col = Prisma.raw(f.column === 'status' ? 'upstream_transaction_status' : 'payout_status');
      const other = Prisma.raw(f.column === 'status' ? 'payout_status' : 'upstream_transaction_status');
      set = Prisma.sql`${col} = ${f.value}::text`;
      // forwards only, and only where it calls for no move (the transfer's status with its other fact)
      forward = Prisma.sql`(${col} IS NULL OR ${col} = ANY(${f.below}::text[]))
        AND (status::text || '|' || COALESCE(${other}, '')) = ANY(${f.pairs}::text[])`;
    }
    const [row] = await this.sql.query`
      WITH u AS (
        UPDATE transfers SET ${set}, event_seq = event_seq + 1
        WHERE external_transaction_id = ${e.transactionId}
          AND (${e.externalTransactionId ?? null}::text IS NULL OR external_payment_id = ${e.externalTransactionId ?? null}::text)
          AND status::text = ANY(${LIVE}::text[]) AND ${forward} AND ${receipt.condition}
        RETURNING ${transferStateColumns()}
      ), e AS (
        INSERT INTO transfer_events (id, transfer_id, seq, version, shown, from_status, to_status, cause, actor, upstream_ref, detail, at)
        SELECT gen_random_uuid()::text, u.id, u.event_seq, NULL::int, NULL::jsonb, u.status, u.status, 'webhook', 'webhook',
               ${e.inboxId}::text, ${JSON.stringify(detail)}::jsonb, ${at}::timestamptz
        FROM u
        RETURNING 1
      ), r AS (${receipt.insert(Prisma.sql`EXISTS (SELECT 1 FROM u)`, true)})
      SELECT u.*, (SELECT count(*) FROM r)::int AS _stored FROM (SELECT 1) AS one LEFT JOIN u ON true`;
    return row?.id ? row : null;
  }
}
