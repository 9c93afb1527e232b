import type { RawSql } from '../../db/raw-sql';

/** An inbox row as the processor reads it. */
export interface InboxRow {
  id: string;
  stream_key: string;
  event_name: string;
  payload: unknown;
  received_at: Date;
  next_attempt_at: Date;
  attempts: number;
}

/** One row's result as it is written back: finished (`outcome`), or due again at `at` (outcome null). */
interface InboxResult {
  id: string;
  outcome: string | null;
  reason: string | null;
  attempts: number;
  error: string | null;
  at: Date;
}

/**
 * The statements of the inbox's processing: streams leased by one instance at a time (webhook_stream_leases), their
 * due rows read in order, the results written back with the leases released — each one round trip.
 */
export class InboxStreamRepository {
  constructor(
    private readonly sql: RawSql,
    /** Who holds the leases this repository takes. */
    private readonly owner: string,
  ) {}

  /** Unprocessed events that are due now. */
  async backlog(now: Date): Promise<number> {
    const [row] = await this.sql.query<{ n: number }>`
      SELECT count(*)::int AS n FROM webhook_inbox WHERE processed_at IS NULL AND next_attempt_at <= ${now}`;
    return row?.n ?? 0;
  }

  /** Leases up to `limit` streams whose head is due (inserted in key order: no deadlock between instances). */
  async claim(now: Date, until: Date, limit: number): Promise<string[]> {
    const rows = await this.sql.query<{ stream_key: string }>`
      INSERT INTO webhook_stream_leases (stream_key, lease_owner, lease_until)
      SELECT h.stream_key, ${this.owner}, ${until} FROM (
        SELECT i.stream_key FROM webhook_inbox i
        WHERE i.processed_at IS NULL AND i.next_attempt_at <= ${now}
          AND NOT EXISTS (SELECT 1 FROM webhook_inbox e WHERE e.stream_key = i.stream_key AND e.processed_at IS NULL AND e.seq < i.seq)
          AND NOT EXISTS (SELECT 1 FROM webhook_stream_leases l WHERE l.stream_key = i.stream_key AND l.lease_until >= ${now})
        ORDER BY i.seq
        LIMIT ${limit}
      ) h
      ORDER BY h.stream_key
      ON CONFLICT (stream_key) DO UPDATE SET lease_owner = EXCLUDED.lease_owner, lease_until = EXCLUDED.lease_until
      WHERE webhook_stream_leases.lease_until < ${now}
      RETURNING stream_key`;
    return rows.map((r) => r.stream_key);
  }

  /** The first `perStream` unprocessed events of each stream, in stream order. */
  read(keys: string[], perStream: number): Promise<InboxRow[]> {
    return this.sql.query<InboxRow>`
      SELECT id, stream_key, event_name, payload, received_at, next_attempt_at, attempts FROM (
        SELECT i.*, row_number() OVER (PARTITION BY i.stream_key ORDER BY i.seq) AS n
        FROM webhook_inbox i WHERE i.stream_key = ANY(${keys}::text[]) AND i.processed_at IS NULL
      ) r
      WHERE r.n <= ${perStream}
      ORDER BY r.stream_key, r.seq`;
  }

  async renew(streamKey: string, until: Date): Promise<boolean> {
    const n = await this.sql.execute`
      UPDATE webhook_stream_leases SET lease_until = ${until} WHERE stream_key = ${streamKey} AND lease_owner = ${this.owner}`;
    return n > 0;
  }

  /**
   * One statement: every row's result (finished: processed_at + outcome; retry: next_attempt_at), and the leases of
   * `keys` released. Rows another holder finished meanwhile are left alone.
   */
  async finish(results: InboxResult[], keys: string[]): Promise<void> {
    const col = <T>(f: (r: InboxResult) => T) => results.map(f);
    await this.sql.query`
      WITH finished AS (
        UPDATE webhook_inbox i SET
          processed_at = CASE WHEN u.outcome IS NULL THEN NULL ELSE u.at::timestamptz END,
          next_attempt_at = CASE WHEN u.outcome IS NULL THEN u.at::timestamptz ELSE i.next_attempt_at END,
          outcome = u.outcome, outcome_reason = u.reason, attempts = u.attempts, last_error = COALESCE(u.error, i.last_error)
        FROM unnest(${col((r) => r.id)}::text[], ${col((r) => r.outcome)}::text[], ${col((r) => r.reason)}::text[], ${col((r) => r.attempts)}::int[],
                    ${col((r) => r.error)}::text[], ${col((r) => r.at.toISOString())}::text[]) AS u(id, outcome, reason, attempts, error, at)
        WHERE i.id = u.id AND i.processed_at IS NULL
        RETURNING i.id
      ), released AS (
        DELETE FROM webhook_stream_leases WHERE lease_owner = ${this.owner} AND stream_key = ANY(${keys}::text[]) RETURNING 1
      )
      SELECT (SELECT count(*) FROM finished)::int AS finished, (SELECT count(*) FROM released)::int AS released`;
  }
}
