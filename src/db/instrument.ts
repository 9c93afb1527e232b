/**
 * Observing the SQL Prisma sends, at the driver-adapter boundary.
 *
 * Prisma 7 runs queries through a driver adapter (no query engine binary). Wrapping the adapter
 * factory sees every statement Prisma issues — outside and inside transactions, on PGlite and on
 * PostgreSQL alike — with its real duration, independently of Prisma's logging options. (Prisma's
 * own `log: [{ emit: 'event', level: 'query' }]` + `$on('query')` is an alternative; this does not
 * depend on it.) Transaction control (BEGIN/COMMIT/ROLLBACK/SAVEPOINT) is not reported, only
 * statements: adapter-pg sends COMMIT through the adapter while PGlite's adapter does not, and counts
 * must not depend on the backend. Statements sent beside Prisma (raw-sql.ts) are reported through observeStatement
 * alike.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import type {
  SqlDriverAdapter,
  SqlDriverAdapterFactory,
  SqlMigrationAwareDriverAdapterFactory,
  SqlQuery,
  Transaction,
} from '@prisma/driver-adapter-utils';

export interface QueryEvent {
  sql: string;
  /** Number of bound parameters. Values are never reported (they may be PII). */
  params: number;
  durationMs: number;
  inTransaction: boolean;
  error?: boolean;
  /** The work the statement was issued for (withQueryPhase), e.g. `saga.worker`; absent: a request or anything untagged. */
  phase?: string;
}

const phases = new AsyncLocalStorage<string>();

/**
 * Runs fn with its statements tagged `phase` (QueryEvent.phase; the innermost tag wins): how a process's SQL
 * splits between its kinds of work — e.g. the saga's worker, the webhook inbox's receiving and applying.
 */
export function withQueryPhase<T>(phase: string, fn: () => T): T {
  return phases.run(phase, fn);
}

export type QueryListener = (event: QueryEvent) => void;

export class QueryListeners {
  private readonly listeners = new Set<QueryListener>();
  add(listener: QueryListener): () => void {
    this.listeners.add(listener);
    return () => void this.listeners.delete(listener);
  }
  get empty(): boolean {
    return this.listeners.size === 0;
  }
  emit(event: QueryEvent): void {
    for (const l of this.listeners) {
      try {
        l(event);
      } catch {
        // a listener must never break a query
      }
    }
  }
}

/** BEGIN/COMMIT/ROLLBACK/SAVEPOINT…: issued by Prisma through the adapter on some drivers only. */
const TRANSACTION_CONTROL = /^\s*(BEGIN|START\s+TRANSACTION|COMMIT|END|ROLLBACK|SAVEPOINT|RELEASE|SET\s+TRANSACTION)\b/i;

/** Runs one statement, reporting it to `listeners` (when there are any) with its duration and outcome. */
export async function observeStatement<R>(
  listeners: QueryListeners,
  sql: string,
  params: number,
  inTransaction: boolean,
  run: () => Promise<R>,
): Promise<R> {
  if (listeners.empty) return run();
  const started = performance.now();
  const phase = phases.getStore();
  let error = false;
  try {
    return await run();
  } catch (e) {
    error = true;
    throw e;
  } finally {
    listeners.emit({
      sql,
      params,
      durationMs: performance.now() - started,
      inTransaction,
      ...(error ? { error } : {}),
      ...(phase ? { phase } : {}),
    });
  }
}

type Queryable = { queryRaw(q: SqlQuery): Promise<unknown>; executeRaw(q: SqlQuery): Promise<number> };

function wrapQueryable<T extends Queryable>(target: T, listeners: QueryListeners, inTransaction: boolean): T {
  const timed =
    (method: 'queryRaw' | 'executeRaw') =>
    (query: SqlQuery): Promise<unknown> =>
      listeners.empty || TRANSACTION_CONTROL.test(query.sql)
        ? target[method](query)
        : observeStatement(listeners, query.sql, query.args.length, inTransaction, () => target[method](query));
  const queryRaw = timed('queryRaw');
  const executeRaw = timed('executeRaw');
  return new Proxy(target, {
    get(t, prop) {
      if (prop === 'queryRaw') return queryRaw;
      if (prop === 'executeRaw') return executeRaw;
      if (prop === 'startTransaction') {
        return async (...args: unknown[]) => {
          const tx = await (t as unknown as SqlDriverAdapter).startTransaction(...(args as [never]));
          return wrapQueryable(tx as Transaction, listeners, true);
        };
      }
      const v: unknown = Reflect.get(t, prop, t);
      return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(t) : v;
    },
  });
}

/** The same factory, reporting every statement of every connection it makes to `listeners`. */
export function instrumentAdapterFactory<F extends SqlDriverAdapterFactory | SqlMigrationAwareDriverAdapterFactory>(
  factory: F,
  listeners: QueryListeners,
): F {
  return new Proxy(factory, {
    get(t, prop) {
      if (prop === 'connect') {
        return async () => wrapQueryable(await t.connect(), listeners, false);
      }
      const v: unknown = Reflect.get(t, prop, t);
      return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(t) : v;
    },
  });
}
