/**
 * Transfer and saga-step rows as raw SQL returns them, and a TransferPatch as SQL assignments: what the
 * one-statement writes of the repository (UPDATE … RETURNING with the audit row in the same statement), the saga's
 * reads (the row with its steps in one query) and the batched platform facts build on.
 */
import { Prisma, type SagaStep, type Transfer } from '../../generated/prisma/client';
import { columnOf, modelColumns, modelFromSql } from '../../db/sql-rows';
import type { TransferPatch } from './transfer.repository';

/**
 * SQL: every column of `transfers` the Transfer model has, optionally qualified by `alias` — what raw statements
 * select and return instead of `*` (modelColumns).
 */
export const transferColumns: (alias?: string) => Prisma.Sql = modelColumns(Prisma.TransferScalarFieldEnum);

/**
 * SQL: every column of `transfers` but `details` — which no write changes after the insert —, as transferColumns:
 * what a write returns (its caller keeps the details of the row it decided on; PostgreSQL does not render, and the
 * service does not parse, the largest column of the row at every write).
 */
export const transferStateColumns: (alias?: string) => Prisma.Sql = modelColumns(
  Object.fromEntries(Object.entries(Prisma.TransferScalarFieldEnum).filter(([field]) => field !== 'details')),
);

/** SQL: every column of `saga_steps` the SagaStep model has, as transferColumns. */
export const stepColumns: (alias?: string) => Prisma.Sql = modelColumns(Prisma.SagaStepScalarFieldEnum);

/** A `transfers` row as raw SQL returns it (transferColumns) → Transfer. Columns starting with `_` are dropped. */
export const transferFromSql = (raw: Record<string, unknown>): Transfer => modelFromSql<Transfer>(raw);

const STEP_DATES = new Set(['createdAt', 'updatedAt']);

/** A `saga_steps` row as row_to_json / json_agg renders it (timestamps as text) or as stepColumns returns it → SagaStep. */
export function stepFromSql(raw: Record<string, unknown>): SagaStep {
  const out = modelFromSql<Record<string, unknown>>(raw);
  for (const key of STEP_DATES) if (typeof out[key] === 'string') out[key] = new Date(out[key]);
  return out as unknown as SagaStep;
}

/** The SQL column of each TransferPatch field. */
/** Each patchable field's column, from the model (its snake_case, as the schema maps every field). */
const COLUMNS = new Map(Object.values(Prisma.TransferScalarFieldEnum).map((field) => [field, Prisma.raw(columnOf(field))]));

/** `{ set: v }` (Prisma's update operation) → v; anything else as it is. */
export const plain = (v: unknown): unknown => (v !== null && typeof v === 'object' && 'set' in v ? (v as { set: unknown }).set : v);

export const isJsonNull = (v: unknown) => v === Prisma.JsonNull || v === Prisma.AnyNull;

/** The patch as `column = value` assignments of an UPDATE (values bound as parameters, never spliced). */
export function patchAssignments(patch: TransferPatch): Prisma.Sql[] {
  const out: Prisma.Sql[] = [];
  for (const [field, raw] of Object.entries(patch) as [keyof TransferPatch, unknown][]) {
    if (raw === undefined) continue;
    const col = COLUMNS.get(field)!;
    const v = plain(raw);
    switch (field) {
      case 'nextAction':
        if (isJsonNull(v)) out.push(Prisma.sql`${col} = 'null'::jsonb`);
        else if (v === null || v === Prisma.DbNull) out.push(Prisma.sql`${col} = NULL`);
        else out.push(Prisma.sql`${col} = ${JSON.stringify(v)}::jsonb`);
        break;
      case 'capturedAmount':
      case 'refundedAmount':
        out.push(v === null ? Prisma.sql`${col} = NULL` : Prisma.sql`${col} = ${String(v)}::numeric`);
        break;
      case 'authorizedAt':
      case 'cancelRequestedAt':
      case 'nextRunAt':
        out.push(v === null ? Prisma.sql`${col} = NULL` : Prisma.sql`${col} = ${new Date(v as Date | string)}::timestamptz`);
        break;
      case 'wakeSeq':
        if (v !== null && typeof v === 'object' && 'increment' in v)
          out.push(Prisma.sql`${col} = ${col} + ${Number((v as { increment: number }).increment)}::int`);
        else out.push(Prisma.sql`${col} = ${Number(v)}::int`);
        break;
      default:
        out.push(Prisma.sql`${col} = ${v === null ? null : String(v)}::text`);
    }
  }
  return out;
}

/** A transfer with its saga steps by name: what the saga decides from. */
export interface Loaded {
  t: Transfer;
  steps: Map<string, SagaStep>;
}

/** SQL: the saga steps of `transfers` row `alias` as one JSON array (`… AS _steps`, read by loadedFromSql). */
export const stepsOf = (alias: string) =>
  Prisma.sql`COALESCE((SELECT json_agg(s) FROM saga_steps s WHERE s.transfer_id = ${Prisma.raw(alias)}.id), '[]'::json)`;

/** A transfers row with its `_steps` column (stepsOf) → Loaded. */
export function loadedFromSql(raw: Record<string, unknown>): Loaded {
  const steps = (raw._steps ?? []) as Record<string, unknown>[];
  return { t: transferFromSql(raw), steps: new Map(steps.map((s) => stepFromSql(s)).map((s) => [s.step, s])) };
}
