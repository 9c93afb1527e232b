import type { RawSql } from '../../db/raw-sql';
import type { TransferEvent } from '../../generated/prisma/client';

/**
 * The audit events of several transfers after `afterSeq`, at most `first + 1` of each (one more tells whether a next
 * page follows), in one statement: the batched read of Transfer.events.
 */
export function transferEventsAfter(
  sql: RawSql,
  ids: string[],
  afterSeq: number,
  first: number,
): Promise<(TransferEvent & { rn: bigint })[]> {
  return sql.query<TransferEvent & { rn: bigint }>`
    SELECT id, "transferId", seq, version, "fromStatus", "toStatus", cause, actor, "upstreamRef", detail, at FROM (
      SELECT e.id, e.transfer_id AS "transferId", e.seq, e.version, e.from_status::text AS "fromStatus", e.to_status::text AS "toStatus",
             e.cause, e.actor, e.upstream_ref AS "upstreamRef", e.detail, e.at,
             row_number() OVER (PARTITION BY e.transfer_id ORDER BY e.seq) AS rn
      FROM transfer_events e
      WHERE e.transfer_id = ANY(${ids}::text[]) AND e.seq > ${afterSeq}
    ) x WHERE rn <= ${first + 1}
    ORDER BY "transferId", seq`;
}
