/**
 * Test databases.
 *
 *   const db = await createTestDatabase();      // migrated, empty, yours alone
 *   ...db.prisma...
 *   await db.close();                           // always (afterEach/afterAll): PGlite holds ~100+ MB
 *
 * - DATABASE_URL unset (or not postgres): in-memory PGlite. The first call in a run builds a migrated
 *   data directory once and caches its dump in .cache/ (keyed by the migrations and the PGlite
 *   version); later databases start from it (≈ 0.3 s instead of ≈ 1.5–3 s for initdb + migrations).
 * - DATABASE_URL=postgres://…: a fresh database `test_<random>` on that server, migrated; dropped by
 *   close(). Suites never see each other's rows.
 *
 * Counting SQL (e.g. to prove DataLoader batching):
 *
 *   db.queries.reset();  await run();  expect(db.queries.count).toBe(2);
 *   const { count, statements } = await db.queries.measure(() => run());
 *
 * or `countQueries(anyDatabase)` for a Database built elsewhere (e.g. by the app). Counted: every SQL
 * statement Prisma sends (see src/db/instrument.ts), not BEGIN/COMMIT, not readiness probes or
 * migrations.
 */
import { createHash, randomBytes } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import pino from 'pino';
import { createDatabase, type Database, type DbLogger, type QueryEvent } from '../../src/db/database';
import { DEFAULT_PREPARED_STATEMENTS } from '../../src/db/statement-names';
import { loadMigrations } from '../../src/db/migrate';
import { createMigratedPgliteDump } from '../../src/db/pglite';

export class QueryCounter {
  readonly events: QueryEvent[] = [];
  private readonly stop: () => void;
  constructor(db: Database) {
    this.stop = db.onQuery((e) => this.events.push(e));
  }
  get count(): number {
    return this.events.length;
  }
  /** The SQL text of the statements counted so far. */
  get statements(): string[] {
    return this.events.map((e) => e.sql);
  }
  reset(): void {
    this.events.length = 0;
  }
  /** Runs fn and reports the statements it caused (resets the counter first). */
  async measure<T>(fn: () => Promise<T>): Promise<{ result: T; count: number; statements: string[] }> {
    this.reset();
    const result = await fn();
    return { result, count: this.count, statements: this.statements };
  }
  dispose(): void {
    this.stop();
  }
}

/** Starts counting the statements Prisma sends through `db`. */
export const countQueries = (db: Database): QueryCounter => new QueryCounter(db);

export interface TestDatabase extends Database {
  queries: QueryCounter;
  /** 'memory' for PGlite, else the throwaway PostgreSQL database's name. */
  name: string;
}

export const usingPostgres = (): boolean => /^postgres(ql)?:\/\//.test(process.env.DATABASE_URL ?? '');

const silent: DbLogger = pino({ level: 'silent' });

export async function createTestDatabase(opts: { logger?: DbLogger } = {}): Promise<TestDatabase> {
  const logger = opts.logger ?? silent;
  return usingPostgres() ? createPostgresTestDatabase(process.env.DATABASE_URL!, logger) : createPgliteTestDatabase(logger);
}

// --- PGlite --------------------------------------------------------------------------------------

const REPO = path.resolve(__dirname, '..', '..');
const CACHE_DIR = path.join(REPO, '.cache');
let template: Promise<Blob> | null = null;

function templateKey(): string {
  const pgliteVersion = (
    JSON.parse(readFileSync(path.join(REPO, 'node_modules/@electric-sql/pglite/package.json'), 'utf8')) as {
      version: string;
    }
  ).version;
  const h = createHash('sha256').update(pgliteVersion);
  for (const m of loadMigrations()) h.update(m.name).update(m.checksum);
  return h.digest('hex').slice(0, 16);
}

/** The migrated template dump: from memory, else from .cache/, else built (and cached). */
export function pgliteTemplate(): Promise<Blob> {
  template ??= (async () => {
    const file = path.join(CACHE_DIR, `pglite-template-${templateKey()}.tar`);
    try {
      return new Blob([readFileSync(file)]);
    } catch {
      // not cached yet
    }
    const dump = await createMigratedPgliteDump(loadMigrations());
    try {
      mkdirSync(CACHE_DIR, { recursive: true });
      const tmp = `${file}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
      writeFileSync(tmp, Buffer.from(await dump.arrayBuffer()));
      renameSync(tmp, file); // atomic: parallel workers may race, each writes a complete file
      for (const f of readdirSync(CACHE_DIR))
        if (f.startsWith('pglite-template-') && path.join(CACHE_DIR, f) !== file && !f.endsWith('.tmp'))
          rmSync(path.join(CACHE_DIR, f), { force: true });
    } catch {
      // caching is an optimisation only
    }
    return dump;
  })();
  template.catch(() => (template = null));
  return template;
}

async function createPgliteTestDatabase(logger: DbLogger): Promise<TestDatabase> {
  const db = await createDatabase({ kind: 'pglite', dataDir: null }, logger, { pgliteLoadDataDir: await pgliteTemplate() });
  await db.migrate(); // no-op on the template; applies anything newer if the cache is stale
  return Object.assign(db, { queries: countQueries(db), name: 'memory' });
}

// --- PostgreSQL ----------------------------------------------------------------------------------

/** Creates an empty database `test_<random>` next to the one in `url`; returns its URL and a dropper. */
export async function createThrowawayPostgresDatabase(url: string): Promise<{ url: string; name: string; drop(): Promise<void> }> {
  const name = `test_${Date.now().toString(36)}_${randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE "${name}"`);
  } finally {
    await admin.end();
  }
  const u = new URL(url);
  u.pathname = `/${name}`;
  return {
    url: u.toString(),
    name,
    drop: async () => {
      const c = new pg.Client({ connectionString: url });
      await c.connect();
      try {
        await c.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
      } finally {
        await c.end();
      }
    },
  };
}

async function createPostgresTestDatabase(url: string, logger: DbLogger): Promise<TestDatabase> {
  const throwaway = await createThrowawayPostgresDatabase(url);
  let db: Database;
  try {
    db = await createDatabase(
      { kind: 'postgres', url: throwaway.url, poolMax: 5, preparedStatements: DEFAULT_PREPARED_STATEMENTS },
      logger,
    );
    await db.migrate();
  } catch (e) {
    await throwaway.drop().catch(() => undefined);
    throw e;
  }
  const close = db.close.bind(db);
  let closing: Promise<void> | null = null;
  return Object.assign(db, {
    queries: countQueries(db),
    name: throwaway.name,
    close: () => (closing ??= close().finally(() => throwaway.drop())),
  });
}
