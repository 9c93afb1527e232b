/**
 * The database: a Prisma 7 client over PGlite (embedded default, tests) or PostgreSQL (production),
 * plus migrations and readiness. Build it once in the composition root:
 *
 *   const db = await createDatabase(config.database, logger);
 *   await db.migrate();            // under a lock; throws MigrationError (stop start-up) on failure
 *   ...
 *   await db.close();
 *
 * DatabaseConfig (src/config/config.database.ts) comes from DATABASE_URL: absent → PGlite in DATA_DIR/pglite;
 * `memory://` → in-memory PGlite; `file:<dir>` → PGlite in <dir>; `postgres://…` → PostgreSQL
 * through @prisma/adapter-pg on a pool of at most DATABASE_POOL_MAX connections, each statement prepared once per
 * connection (DATABASE_PREPARED_STATEMENTS, statement-names.ts); `db.sql` sends hot raw statements to the same
 * pool beside Prisma (raw-sql.ts).
 */
import { PrismaPg } from '@prisma/adapter-pg';
import type { SqlDriverAdapterFactory } from '@prisma/driver-adapter-utils';
import pg from 'pg';
import type { DatabaseConfig } from '../config/config.database';
import { PrismaClient } from '../generated/prisma/client';
import type { Logger } from '../shared/logger';
import { instrumentAdapterFactory, QueryListeners, type QueryListener } from './instrument';
import { poolRawSql, prismaRawSql, type RawSql } from './raw-sql';
import { statementNamer } from './statement-names';
import {
  applyMigrations,
  loadMigrations,
  MigrationError,
  MIGRATIONS_DIR,
  pendingMigrations,
  withAdvisoryLock,
  type Migration,
  type SqlSession,
} from './migrate';
import type * as PgliteModule from './pglite';
import type { PGlite } from './pglite';

export { MigrationError };
export type { QueryEvent } from './instrument';

export type DbLogger = Pick<Logger, 'info' | 'warn' | 'error' | 'debug'>;

export interface Database {
  prisma: PrismaClient;
  /**
   * Raw statements outside transactions, typed as `prisma.$queryRaw` types them: on PostgreSQL sent to the pool
   * directly (raw-sql.ts: the hot paths' statements — the saga, the webhook inbox, createQuote, the card check,
   * createTransfer), on PGlite through Prisma.
   */
  sql: RawSql;
  kind: 'pglite' | 'postgres';
  /** Applies pending migrations (exclusively: advisory lock on PostgreSQL). Idempotent. */
  migrate(): Promise<{ applied: string[] }>;
  /** True when the database answers and every migration of this version is applied. Never throws. */
  isReady(): Promise<boolean>;
  /**
   * Observe every SQL statement Prisma issues through this database (sql text, duration; never
   * parameter values). Returns the unsubscribe function. Used for metrics and to count queries in tests.
   */
  onQuery(listener: QueryListener): () => void;
  /** Disconnects Prisma and closes the pool / PGlite instance. Idempotent. */
  close(): Promise<void>;
}

interface CreateDatabaseOptions {
  /** Migrations directory; defaults to prisma/migrations of this checkout/image. */
  migrationsDir?: string;
  /** PGlite only, new databases only: start from this data-directory dump instead of running initdb. */
  pgliteLoadDataDir?: Blob;
  /** PostgreSQL: how long to wait for the migration lock held by another instance (default 120 s). */
  migrationLockTimeoutMs?: number;
  /** isReady gives up (false) after this long (default 2 s). */
  readyTimeoutMs?: number;
}

export async function createDatabase(config: DatabaseConfig, logger: DbLogger, options: CreateDatabaseOptions = {}): Promise<Database> {
  return config.kind === 'pglite' ? createPgliteDatabase(config.dataDir, logger, options) : createPostgresDatabase(config, logger, options);
}

/**
 * PGlite (pglite.ts and the packages it loads), on first use only: @electric-sql/pglite and pglite-prisma-adapter
 * are development dependencies (the embedded default and tests), absent from a production install, which
 * needs PostgreSQL anyway.
 */
function loadPglite(): typeof PgliteModule {
  try {
    return require('./pglite') as typeof PgliteModule;
  } catch (e) {
    const missing = /Cannot find module '(@electric-sql\/pglite|pglite-prisma-adapter)'/.exec((e as Error).message)?.[1];
    if ((e as NodeJS.ErrnoException).code !== 'MODULE_NOT_FOUND' || !missing) throw e;
    throw new Error(
      `DATABASE_URL is not a postgres:// URL, so the embedded database (PGlite) is needed, but ${missing} is not installed: ` +
        'PGlite is a development dependency, absent from production installs (npm ci --omit=dev). Set DATABASE_URL=postgres://…',
      { cause: e },
    );
  }
}

// ---------------------------------------------------------------------------------------------------

function pgSession(client: pg.ClientBase | pg.Pool): SqlSession {
  return {
    query: async <T>(sql: string, params?: unknown[]) => (await client.query(sql, params as unknown[] | undefined)).rows as T[],
    exec: async (script: string) => {
      await client.query(script);
    },
  };
}

interface Parts {
  kind: Database['kind'];
  adapter: SqlDriverAdapterFactory;
  /** Raw SQL beside Prisma (reporting to the listeners); absent: Prisma's own raw queries. */
  rawSql?: (listeners: QueryListeners) => RawSql;
  /** A session for readiness checks (not through Prisma, so it never shows in query counts). */
  probe: SqlSession;
  /** Runs the migrations exclusively; returns the names applied. */
  migrateExclusive(migrations: Migration[]): Promise<string[]>;
  closeDriver(): Promise<void>;
}

function assemble(parts: Parts, logger: DbLogger, options: CreateDatabaseOptions): Database {
  const listeners = new QueryListeners();
  const prisma = new PrismaClient({ adapter: instrumentAdapterFactory(parts.adapter, listeners) });
  const sql = parts.rawSql?.(listeners) ?? prismaRawSql(prisma);
  const migrations = () => loadMigrations(options.migrationsDir ?? MIGRATIONS_DIR);
  const readyTimeoutMs = options.readyTimeoutMs ?? 2_000;
  let migrated = false;
  let closed: Promise<void> | null = null;
  let migrating: Promise<unknown> = Promise.resolve();

  const check = async (): Promise<boolean> => {
    if (migrated) {
      await parts.probe.query('SELECT 1');
      return true;
    }
    const pending = await pendingMigrations(parts.probe, migrations());
    if (pending.length === 0) migrated = true;
    return migrated;
  };

  return {
    prisma,
    sql,
    kind: parts.kind,
    async migrate() {
      const list = migrations();
      if (list.length === 0) throw new MigrationError(`No migrations found in ${options.migrationsDir ?? MIGRATIONS_DIR}`);
      if (closed) throw new MigrationError('the database is closed');
      const started = Date.now();
      const run = migrating.then(() => parts.migrateExclusive(list));
      migrating = run.catch(() => undefined);
      const applied = await run;
      migrated = true;
      logger.info(
        { applied, total: list.length, ms: Date.now() - started },
        applied.length ? `applied ${applied.length} migration(s)` : 'database schema is up to date',
      );
      return { applied };
    },
    async isReady() {
      if (closed) return false;
      let timer: NodeJS.Timeout | undefined;
      try {
        return await Promise.race([
          check(),
          new Promise<boolean>((resolve) => {
            timer = setTimeout(() => resolve(false), readyTimeoutMs);
            timer.unref();
          }),
        ]);
      } catch (e) {
        logger.warn({ err: e }, 'database readiness check failed');
        return false;
      } finally {
        clearTimeout(timer);
      }
    },
    onQuery: (listener) => listeners.add(listener),
    close() {
      closed ??= (async () => {
        try {
          await prisma.$disconnect();
        } finally {
          await parts.closeDriver();
        }
      })();
      return closed;
    },
  };
}

async function createPgliteDatabase(dataDir: string | null, logger: DbLogger, options: CreateDatabaseOptions): Promise<Database> {
  const { lockDataDir, openPglite, pgliteSession, PrismaPGlite } = loadPglite();
  const release = dataDir === null ? () => undefined : lockDataDir(dataDir);
  let pglite: PGlite;
  try {
    const started = Date.now();
    pglite = await openPglite({ dataDir, loadDataDir: options.pgliteLoadDataDir });
    logger.debug({ dataDir: dataDir ?? 'memory', ms: Date.now() - started }, 'PGlite opened');
  } catch (e) {
    release();
    throw e;
  }
  const session = pgliteSession(pglite);
  return assemble(
    {
      kind: 'pglite',
      adapter: new PrismaPGlite(pglite),
      probe: session,
      // One process owns a PGlite database (lockDataDir); migrate() calls are serialised in assemble().
      // Call migrate() before serving: PGlite has one session, so concurrent Prisma queries would
      // run inside the migration's transaction.
      migrateExclusive: (migrations) => applyMigrations(session, migrations, logger),
      closeDriver: async () => {
        try {
          if (!pglite.closed) await pglite.close();
        } finally {
          release();
        }
      },
    },
    logger,
    options,
  );
}

/**
 * A prepared statement PostgreSQL can no longer run on this connection: its result type changed (`0A000` from the
 * server's plan revalidation — matched by its untranslated routine name, the message is translated with
 * lc_messages), or it is gone (`26000`).
 */
const isStaleStatement = (e: unknown) => {
  const { code, routine } = (e ?? {}) as { code?: unknown; routine?: unknown };
  return code === '26000' || (code === '0A000' && routine === 'RevalidateCachedQuery');
};

/** Another connection's statement of that name exists in this session: something shares one session between connections. */
const isSharedSession = (e: unknown) => (e as { code?: unknown } | null)?.code === '42P05';

const POOLER_HINT =
  'a pooler (e.g. PgBouncer in transaction mode) may be sharing server sessions between connections: set DATABASE_PREPARED_STATEMENTS=0, or enable its prepared-statement support';

/**
 * The pool's connections. A connection closes itself when one of its prepared statements went stale (isStaleStatement:
 * e.g. a migration changed what a statement returns while this instance ran): the pool then replaces it, and the
 * statements are prepared afresh on the new connection. One statement fails, not every later one: left open, the
 * connection would keep failing that statement — node-postgres still counts it as prepared, and a transaction's
 * connection goes back to the pool as healthy whatever failed in it. A statement name that already exists
 * (isSharedSession), or one that vanished, can mean a pooler runs several of our connections in one server session:
 * that is said once, with what to do, and the connection replaced too.
 */
function statementClient(logger: DbLogger): typeof pg.Client {
  const said = new Set<string>();
  const once = (code: string, say: () => void) => {
    if (said.has(code)) return;
    said.add(code);
    say();
  };
  const failed = (client: pg.Client, e: unknown): void => {
    if (isSharedSession(e))
      once('42P05', () => logger.error(`PostgreSQL: a prepared statement of this instance already exists in its session — ${POOLER_HINT}`));
    else if ((e as { code?: unknown } | null)?.code === '26000')
      once('26000', () =>
        logger.warn(
          `PostgreSQL: a prepared statement of this connection is gone; the connection is replaced — if this repeats, ${POOLER_HINT}`,
        ),
      );
    if (isStaleStatement(e) || isSharedSession(e)) void client.end().catch(() => undefined);
  };
  // never lets a failure of its own keep the caller from its answer
  const safely = (client: pg.Client, e: unknown) => {
    try {
      failed(client, e);
    } catch {
      // nothing: the caller gets the statement's own error
    }
  };
  return class StatementClient extends pg.Client {
    // every overload of pg.Client#query: a named statement's failure is seen whether it is answered through a promise
    // (a transaction's connection) or a callback (pg-pool's own query, which then discards the connection itself)
    override query(...args: any[]): any {
      const config: unknown = args[0];
      const named = typeof config === 'object' && config !== null && typeof (config as { name?: unknown }).name === 'string';
      if (!named) return (super.query as (...a: unknown[]) => unknown).apply(this, args);
      const last: unknown = args[args.length - 1];
      if (typeof last === 'function') {
        args[args.length - 1] = (err: unknown, res: unknown) => {
          if (err) safely(this, err);
          (last as (e: unknown, r: unknown) => void)(err, res);
        };
        return (super.query as (...a: unknown[]) => unknown).apply(this, args);
      }
      const result: unknown = (super.query as (...a: unknown[]) => unknown).apply(this, args);
      if (result instanceof Promise) result.catch((e: unknown) => safely(this, e));
      return result;
    }
  };
}

async function createPostgresDatabase(
  { url, poolMax, preparedStatements }: Extract<DatabaseConfig, { kind: 'postgres' }>,
  logger: DbLogger,
  options: CreateDatabaseOptions,
): Promise<Database> {
  const pool = new pg.Pool({
    connectionString: url,
    max: poolMax,
    connectionTimeoutMillis: 5_000,
    idleTimeoutMillis: 30_000,
    application_name: 'remittance-bff',
    Client: statementClient(logger),
    // Every session in UTC before the pool hands it out (pg-pool ends a connection whose hook fails): Prisma's adapter
    // sends timestamps as UTC wall times without a zone and reads a timestamptz's offset as +00:00, raw-sql.ts sends
    // instants — the two agree only in UTC, and a database or role set to another TimeZone would shift every time
    // Prisma writes or compares. (A pooler such as PgBouncer tracks TimeZone per client.)
    // (typed as returning void; pg-pool awaits the promise it returns)
    onConnect: ((client: pg.ClientBase) => client.query('SET TimeZone TO UTC')) as (client: pg.ClientBase) => void,
  });
  // An idle client losing its connection must not crash the process; the pool replaces it.
  pool.on('error', (err) => logger.warn({ err: { message: err.message } }, 'idle PostgreSQL connection error'));
  // one namer for Prisma's statements and those sent beside it: one name per text, one bound for the process
  const namer = statementNamer(preparedStatements, () =>
    logger.warn(
      { max: preparedStatements },
      'DATABASE_PREPARED_STATEMENTS reached: statement texts beyond it are sent unprepared (raise it if this instance issues more)',
    ),
  );
  return assemble(
    {
      kind: 'postgres',
      rawSql: (listeners) => poolRawSql(pool, namer, listeners),
      adapter: new PrismaPg(pool, {
        // the adapter's type says string; undefined (a text beyond the bound) sends it unnamed, as without a generator
        statementNameGenerator: namer as ((q: { sql: string }) => string) | undefined,
        onConnectionError: (err) => logger.warn({ err: { message: err.message } }, 'PostgreSQL connection error'),
      }),
      probe: pgSession(pool),
      migrateExclusive: async (migrations) => {
        // A dedicated connection (not from the pool): the advisory lock belongs to this session.
        const client = new pg.Client({ connectionString: url, application_name: 'remittance-bff-migrate' });
        client.on('error', (err) => logger.warn({ err: { message: err.message } }, 'migration connection error'));
        await client.connect();
        try {
          const session = pgSession(client);
          return await withAdvisoryLock(session, () => applyMigrations(session, migrations, logger), options.migrationLockTimeoutMs);
        } finally {
          await client.end().catch(() => undefined);
        }
      },
      closeDriver: () => pool.end(),
    },
    logger,
    options,
  );
}
