import type { RawSql } from '../../db/raw-sql';
import type { Prisma } from '../../generated/prisma/client';

/** A person as a sender is read: its owner, status and details (one statement, on every check and transfer). */
export interface SenderRow {
  owner_id: string;
  status: string;
  details: Prisma.JsonValue;
}

export class PersonRepository {
  constructor(private readonly sql: RawSql) {}

  async senderRow(personId: string): Promise<SenderRow | null> {
    const [person] = await this.sql.query<SenderRow>`SELECT owner_id, status, details FROM persons WHERE id = ${personId}`;
    return person ?? null;
  }
}
