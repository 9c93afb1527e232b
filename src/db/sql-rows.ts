/**
 * Model rows through raw SQL (db.sql): the column list a statement selects or returns, and the row it gives back as
 * the model Prisma's own reads give. Columns are the snake_case of the model's scalar fields — how the schema maps
 * every one of them (test/db/raw-columns.test.ts checks each list against the migrated tables).
 */
import { Prisma } from '../generated/prisma/client';

const camelOf = new Map<string, string>();
const camel = (k: string) => {
  let c = camelOf.get(k);
  if (c === undefined) camelOf.set(k, (c = k.replace(/_([a-z])/g, (_, ch: string) => ch.toUpperCase())));
  return c;
};
/** The column of a model's scalar field: its snake_case (how the schema maps every one). */
export const columnOf = (field: string) => field.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);

/**
 * SQL: every column of a model (`Prisma.<Model>ScalarFieldEnum`), optionally qualified by a table alias and renamed
 * with a prefix (`q.id AS q__id`: two tables in one row), built once per (alias, prefix). A statement's result
 * columns stay what this version of the code knows when a later migration adds one, so its prepared form stays valid
 * (statements are prepared per connection and PostgreSQL refuses to run one whose result type changed:
 * statement-names.ts) and a rolling upgrade never fails the instances still running.
 */
export function modelColumns(fields: Record<string, string>): (alias?: string, prefix?: string) => Prisma.Sql {
  const columns = Object.values(fields).map(columnOf);
  const built = new Map<string, Prisma.Sql>();
  return (alias = '', prefix = '') => {
    const key = `${alias}\0${prefix}`;
    let sql = built.get(key);
    if (!sql) {
      const list = columns.map((c) => `${alias ? `${alias}.` : ''}${c}${prefix ? ` AS ${prefix}${c}` : ''}`);
      built.set(key, (sql = Prisma.raw(list.join(', '))));
    }
    return sql;
  };
}

/**
 * A row as raw SQL returns it (modelColumns: snake_case columns, typed as `$queryRaw` types them — numeric as
 * Decimal, timestamptz as Date, jsonb parsed, the types Prisma's own reads give) → the model. With a prefix, only
 * the columns that carry it (without it); columns starting with `_` are dropped.
 */
export function modelFromSql<T>(raw: Record<string, unknown>, prefix = ''): T {
  const out: Record<string, unknown> = {};
  for (const k of Object.keys(raw)) {
    if (prefix) {
      if (k.startsWith(prefix)) out[camel(k.slice(prefix.length))] = raw[k];
    } else if (!k.startsWith('_')) out[camel(k)] = raw[k];
  }
  return out as T;
}
