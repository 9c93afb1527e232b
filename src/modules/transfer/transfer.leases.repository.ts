import type { RawSql } from '../../db/raw-sql';
import { loadedFromSql, stepsOf, transferColumns, type Loaded } from './transfer.rows.repository';

/** The statements of the transfer leases (transfers.lease_owner / lease_until): each one round trip. */
export class LeaseRepository {
  constructor(private readonly sql: RawSql) {}

  /** Takes the lease if it is free, expired or already `owner`'s, answering the transfer with its steps (null: not taken). */
  async take(transferId: string, owner: string, now: Date, until: Date): Promise<Loaded | null> {
    const [raw] = await this.sql.query`
      UPDATE transfers SET lease_owner = ${owner}, lease_until = ${until}
      WHERE id = ${transferId} AND (lease_until IS NULL OR lease_until < ${now} OR lease_owner = ${owner})
      RETURNING ${transferColumns('transfers')}, ${stepsOf('transfers')} AS _steps`;
    return raw ? loadedFromSql(raw) : null;
  }

  async release(transferId: string, owner: string): Promise<void> {
    await this.sql.execute`UPDATE transfers SET lease_owner = NULL, lease_until = NULL WHERE id = ${transferId} AND lease_owner = ${owner}`;
  }

  /** Claims up to `limit` due transfers whose lease is free or expired (FOR UPDATE SKIP LOCKED: N workers never collide). */
  async claimDue(owner: string, limit: number, now: Date, until: Date): Promise<Loaded[]> {
    const rows = await this.sql.query`
      UPDATE transfers SET lease_owner = ${owner}, lease_until = ${until}
      WHERE id IN (
        SELECT id FROM transfers
        WHERE next_run_at IS NOT NULL AND next_run_at <= ${now} AND (lease_until IS NULL OR lease_until < ${now})
        ORDER BY next_run_at
        LIMIT ${limit}
        FOR UPDATE SKIP LOCKED)
      RETURNING ${transferColumns('transfers')}, ${stepsOf('transfers')} AS _steps`;
    return rows.map(loadedFromSql);
  }

  /** Pushes lease_until forward if `owner` still holds the lease. */
  async renew(transferId: string, owner: string, until: Date): Promise<boolean> {
    return (await this.sql.execute`UPDATE transfers SET lease_until = ${until} WHERE id = ${transferId} AND lease_owner = ${owner}`) === 1;
  }
}
