/**
 * Raw SQL beside Prisma's client: the statements of the hot paths — the saga's and the webhook inbox's (CTEs that
 * move a transfer, record its audit event and a delivery's inbox row at once), createQuote's, the card check's and
 * createTransfer's —, run thousands of times a minute.
 *
 * Through `prisma.$queryRaw`, each of them crosses Prisma's client runtime: the statement serialised to its
 * query plan, interpreted, every argument tagged and mapped back, every result row turned into columns and types
 * and back into objects — measured at 75–95 µs of CPU per statement above node-postgres's own work for the same
 * statement (about a fifth of the service's CPU per transfer). On PostgreSQL, `RawSql` sends the same statement
 * (text, parameters, prepared-statement name) to the same pool directly, and gives each row the types
 * `$queryRaw` gives it for every type the service reads — numeric as Prisma.Decimal, int8 as bigint, timestamp
 * and date as Date (UTC), json parsed; int2/int4/float, bool, text/char/varchar, uuid, enums, timestamptz and
 * arrays of these as node-postgres reads them, which is what $queryRaw gives too (test/db/raw-sql.test.ts). Types
 * the service does not read (bytea, time, money, interval) are left as node-postgres reads them. The pool's
 * sessions run in UTC (database.ts), where Prisma's zone-less timestamps and these agree. On PGlite (one session,
 * which Prisma's adapter serialises with its transactions) it is Prisma's own `$queryRaw`/`$executeRaw`.
 *
 * Statements run in autocommit, outside any transaction; a statement of an interactive transaction stays on the
 * transaction's client (`tx.$queryRaw`). Every statement is reported to the database's query listeners
 * (instrument.ts), as Prisma's are.
 */
import pg from 'pg';
import { Prisma, type PrismaClient } from '../generated/prisma/client';
import { observeStatement, type QueryListeners } from './instrument';
import type { StatementNamer } from './statement-names';

export interface RawSql {
  /** The rows of a statement, typed as `prisma.$queryRaw` types them. As a tag: sql.query`SELECT … ${value}`. */
  query<T = Record<string, unknown>>(sql: Prisma.Sql): Promise<T[]>;
  query<T = Record<string, unknown>>(strings: TemplateStringsArray, ...values: unknown[]): Promise<T[]>;
  /** The number of rows a statement wrote (or returned), as `prisma.$executeRaw`. */
  execute(sql: Prisma.Sql): Promise<number>;
  execute(strings: TemplateStringsArray, ...values: unknown[]): Promise<number>;
}

const statementOf = (first: Prisma.Sql | TemplateStringsArray, values: unknown[]): Prisma.Sql =>
  first instanceof Prisma.Sql ? first : Prisma.sql(first, ...values);

/** Prisma's own raw queries: PGlite, and anything that has no pool. */
export function prismaRawSql(prisma: Pick<PrismaClient, '$queryRaw' | '$executeRaw'>): RawSql {
  return {
    query: <T>(first: Prisma.Sql | TemplateStringsArray, ...values: unknown[]) => prisma.$queryRaw<T[]>(statementOf(first, values)),
    execute: (first: Prisma.Sql | TemplateStringsArray, ...values: unknown[]) => prisma.$executeRaw(statementOf(first, values)),
  };
}

// ── parameters: as Prisma's adapter sends them ─────────────────────────────────────────────────────────

/**
 * A parameter as Prisma sends it: a Date as its UTC instant (ISO 8601 with `Z`: the same instant whatever the
 * session's TimeZone; a `timestamp` column keeps the UTC wall time, as Prisma writes it), a Decimal or bigint as
 * its digits, a plain object as JSON text; arrays element by element.
 */
function param(v: unknown): unknown {
  if (v === undefined || v === null) return null;
  // most parameters are strings and numbers: they go as they are, without the object checks below
  if (typeof v !== 'object') return typeof v === 'bigint' ? v.toString() : v;
  if (v instanceof Date) {
    if (Number.isNaN(v.getTime())) throw new TypeError('an invalid Date cannot be a statement parameter');
    return v.toISOString();
  }
  if (Prisma.Decimal.isDecimal(v)) return (v as Prisma.Decimal).toFixed();
  if (Array.isArray(v)) return v.map(param);
  if (Buffer.isBuffer(v) || v instanceof Uint8Array) return v;
  return JSON.stringify(v);
}

// ── results: the types $queryRaw gives ────────────────────────────────────────────────────────────────

const { builtins } = pg.types;
/** An array's text form → its elements' texts (node-postgres's own parser of text[], oid 1009). */
const parseTextArray = pg.types.getTypeParser(1009 as Parameters<typeof pg.types.getTypeParser>[0]) as (v: string) => (string | null)[];

const utcTimestamp = (v: string): Date => new Date(`${v.replace(' ', 'T')}Z`);
const utcDate = (v: string): Date => new Date(`${v}T00:00:00Z`);
const decimal = (v: string): Prisma.Decimal => new Prisma.Decimal(v);
const int8 = (v: string): bigint => BigInt(v);
const arrayOf =
  <T>(element: (v: string) => T) =>
  (v: string): (T | null)[] =>
    parseTextArray(v).map((e) => (e === null ? null : element(e)));

/** Where `$queryRaw`'s types differ from node-postgres's defaults (by type oid, text format). */
const PARSERS = new Map<number, (v: string) => unknown>([
  [builtins.INT8, int8],
  [1016 /* int8[] */, arrayOf(int8)],
  [builtins.NUMERIC, decimal],
  [1231 /* numeric[] */, arrayOf(decimal)],
  [builtins.TIMESTAMP, utcTimestamp],
  [1115 /* timestamp[] */, arrayOf(utcTimestamp)],
  [builtins.DATE, utcDate],
  [1182 /* date[] */, arrayOf(utcDate)],
]);

const TYPES = {
  // asked once per column of every result
  getTypeParser: (oid: number, format?: string): unknown =>
    (format !== 'binary' && PARSERS.get(oid)) || pg.types.getTypeParser(oid, format as 'text' | 'binary' | undefined),
};

/**
 * PostgreSQL's message for SQLSTATE `code`, as it may be kept: a data exception's (class 22) quotes the value it could
 * not take, unescaped — everything from its first quote to its last is left out; other messages name only objects.
 */
export function keptMessage(code: string, message: string): string {
  return code.startsWith('22') ? message.replace(/"[\s\S]*"/, '"…"') : message;
}

/**
 * A statement PostgreSQL refused, as callers (and logs) see it: its SQLSTATE `code`, message and the names it
 * gives (routine, constraint, table, column) — not node-postgres's error itself, whose `detail` and `where` can quote
 * row values (`Failing row contains (…)`, `Key (…)=(…)`): a row of `transfers` holds PII. A data exception's message
 * (class 22, e.g. `invalid input syntax for type integer: "…"`) quotes the value it could not take: it is left out.
 * (On PGlite the same failure is Prisma's error, P2010.)
 */
export class StatementError extends Error {
  readonly code: string;
  readonly severity?: string;
  readonly routine?: string;
  readonly constraint?: string;
  readonly table?: string;
  readonly column?: string;
  constructor(e: pg.DatabaseError) {
    const code = e.code ?? 'XX000';
    super(keptMessage(code, e.message));
    this.name = 'StatementError';
    this.code = code;
    for (const k of ['severity', 'routine', 'constraint', 'table', 'column'] as const) if (e[k] !== undefined) this[k] = e[k];
  }
}

const refused = (e: unknown): never => {
  throw e instanceof pg.DatabaseError ? new StatementError(e) : e;
};

/** Raw SQL on the pool, each statement named by `namer` (prepared once per connection; none: unnamed). */
export function poolRawSql(pool: pg.Pool, namer: StatementNamer | undefined, listeners: QueryListeners): RawSql {
  const run = async (sql: Prisma.Sql): Promise<pg.QueryResult> => {
    const text = sql.text;
    const values = sql.values.map(param);
    const config: pg.QueryConfig = { text, values, types: TYPES as pg.CustomTypesConfig };
    const name = namer?.({ sql: text });
    if (name !== undefined) config.name = name;
    return observeStatement(listeners, text, values.length, false, () => pool.query(config).catch(refused));
  };
  return {
    query: async <T>(first: Prisma.Sql | TemplateStringsArray, ...values: unknown[]) => (await run(statementOf(first, values))).rows as T[],
    execute: async (first: Prisma.Sql | TemplateStringsArray, ...values: unknown[]) =>
      (await run(statementOf(first, values))).rowCount ?? 0,
  };
}
