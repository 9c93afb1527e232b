/**
 * Applying migrations (prisma/migrations/<timestamp>_<name>/migration.sql) at start and from `npm run db:migrate`:
 * our own small applier, not the wasm schema engine's `applyMigrations` (that engine stays a devDependency of the
 * tooling), for its failure semantics and a lock we can see and test.
 * - Migrations are applied in name order, each in one transaction with its bookkeeping row: a failing migration
 *   leaves no trace, start-up stops with MigrationError naming it, the next start tries again (Prisma's engine would
 *   refuse every later start until `migrate resolve`). A script that manages its own transaction (Prisma writes
 *   `BEGIN; … COMMIT;` for some enum changes) runs unwrapped, like Prisma.
 * - On PostgreSQL everything runs on one connection holding `pg_advisory_lock(MIGRATION_LOCK_KEY)`: N instances
 *   starting together apply each migration once. PGlite: one process per data directory (pglite.ts).
 * - Prisma-compatible bookkeeping (`_prisma_migrations`, checksum = sha256 of migration.sql; test/db/compat.test.ts).
 *   An unfinished row left by another tool stops start-up (as P3009); unknown applied migrations are tolerated; an
 *   applied migration whose file changed is logged.
 */
import { createHash, randomUUID } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

/** prisma/ at the repository root (same relative path from src/db and dist/db). */
export const PRISMA_DIR = path.resolve(__dirname, '..', '..', 'prisma');
export const MIGRATIONS_DIR = path.join(PRISMA_DIR, 'migrations');
export const MIGRATION_LOCK_FILE = 'migration_lock.toml';
/** Constant key of the PostgreSQL advisory lock held while migrating ("remitmig" as 8 bytes → int8). */
const MIGRATION_LOCK_KEY = 0x72656d69746d6967n;
const MIGRATIONS_TABLE = '_prisma_migrations';

export interface Migration {
  name: string;
  sql: string;
  checksum: string;
}

export class MigrationError extends Error {
  override readonly name = 'MigrationError';
}

const checksumOf = (sql: string) => createHash('sha256').update(sql, 'utf8').digest('hex');

/** Migrations found in `dir`, in the order they apply. */
export function readMigrations(dir: string = MIGRATIONS_DIR): Migration[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true })
    .filter((d) => d.isDirectory() && existsSync(path.join(dir, d.name, 'migration.sql')))
    .map((d) => d.name)
    .sort()
    .map((name) => {
      const sql = readFileSync(path.join(dir, name, 'migration.sql'), 'utf8');
      return { name, sql, checksum: checksumOf(sql) };
    });
}

let cached: { dir: string; migrations: Migration[] } | null = null;
/** readMigrations, memoised per directory (the files do not change while a process runs). */
export function loadMigrations(dir: string = MIGRATIONS_DIR): Migration[] {
  if (cached?.dir !== dir) cached = { dir, migrations: readMigrations(dir) };
  return cached.migrations;
}

/** One database session: plain SQL in, rows out. Implemented over a pg.Client and over PGlite. */
export interface SqlSession {
  query<T = Record<string, unknown>>(sql: string, params?: unknown[]): Promise<T[]>;
  /** Runs a script of one or more statements (no parameters). */
  exec(script: string): Promise<void>;
}

interface MigrationLogger {
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
}

interface AppliedRow {
  migration_name: string;
  checksum: string;
  finished_at: Date | null;
}

const CREATE_TABLE = `CREATE TABLE IF NOT EXISTS "${MIGRATIONS_TABLE}" (
    "id"                    VARCHAR(36) PRIMARY KEY NOT NULL,
    "checksum"              VARCHAR(64) NOT NULL,
    "finished_at"           TIMESTAMPTZ,
    "migration_name"        VARCHAR(255) NOT NULL,
    "logs"                  TEXT,
    "rolled_back_at"        TIMESTAMPTZ,
    "started_at"            TIMESTAMPTZ NOT NULL DEFAULT now(),
    "applied_steps_count"   INTEGER NOT NULL DEFAULT 0
)`;

const MANAGES_OWN_TRANSACTION = /^\s*(BEGIN|COMMIT|START\s+TRANSACTION)\s*;/im;

async function appliedRows(session: SqlSession): Promise<AppliedRow[] | null> {
  const [{ present }] = await session.query<{ present: boolean }>(`SELECT to_regclass('"${MIGRATIONS_TABLE}"') IS NOT NULL AS present`);
  if (!present) return null;
  return session.query<AppliedRow>(
    `SELECT migration_name, checksum, finished_at FROM "${MIGRATIONS_TABLE}"
      WHERE rolled_back_at IS NULL ORDER BY started_at, migration_name`,
  );
}

/** Names of local migrations not yet applied (everything when the table does not exist). */
export async function pendingMigrations(session: SqlSession, migrations: Migration[]): Promise<string[]> {
  const rows = await appliedRows(session);
  const done = new Set((rows ?? []).filter((r) => r.finished_at !== null).map((r) => r.migration_name));
  return migrations.filter((m) => !done.has(m.name)).map((m) => m.name);
}

/**
 * Applies pending migrations on `session`. The caller holds whatever lock makes this exclusive
 * (see withAdvisoryLock). Returns the names applied, in order.
 */
export async function applyMigrations(session: SqlSession, migrations: Migration[], logger?: MigrationLogger): Promise<string[]> {
  await session.exec(CREATE_TABLE);
  const rows = (await appliedRows(session)) ?? [];
  const unfinished = rows.filter((r) => r.finished_at === null);
  if (unfinished.length) {
    throw new MigrationError(
      `Migration ${unfinished.map((r) => r.migration_name).join(', ')} is recorded as started but not finished ` +
        `in ${MIGRATIONS_TABLE} (a failed run of another tool). Repair the database by hand, then mark it ` +
        `rolled back (UPDATE "${MIGRATIONS_TABLE}" SET rolled_back_at = now() WHERE migration_name = '…') and restart.`,
    );
  }
  const local = new Map(migrations.map((m) => [m.name, m]));
  const applied = new Map(rows.map((r) => [r.migration_name, r]));
  for (const r of rows) {
    const m = local.get(r.migration_name);
    if (!m) logger?.warn({ migration: r.migration_name }, 'database has a migration unknown to this version');
    else if (m.checksum !== r.checksum)
      logger?.warn({ migration: r.migration_name }, 'applied migration was modified after it was applied');
  }
  const done: string[] = [];
  for (const m of migrations) {
    if (applied.has(m.name)) continue;
    const started = Date.now();
    const record = `INSERT INTO "${MIGRATIONS_TABLE}"
        (id, checksum, finished_at, migration_name, logs, rolled_back_at, started_at, applied_steps_count)
        VALUES ($1, $2, now(), $3, NULL, NULL, now(), 1)`;
    const ownTx = MANAGES_OWN_TRANSACTION.test(m.sql);
    try {
      if (ownTx) {
        await session.exec(m.sql);
      } else {
        await session.exec('BEGIN');
        try {
          await session.exec(m.sql);
        } catch (e) {
          await session.exec('ROLLBACK').catch(() => undefined);
          throw e;
        }
      }
      await session.query(record, [randomUUID(), m.checksum, m.name]);
      if (!ownTx) await session.exec('COMMIT');
    } catch (e) {
      const reason = e instanceof Error ? e.message : String(e);
      throw new MigrationError(
        `Migration ${m.name} failed: ${reason}. ` +
          (ownTx
            ? 'It manages its own transaction, so the database may be partly changed; check it before retrying.'
            : 'It ran in a transaction that was rolled back; the database is unchanged. Fix the migration and restart.'),
        { cause: e },
      );
    }
    logger?.info({ migration: m.name, ms: Date.now() - started }, 'migration applied');
    done.push(m.name);
  }
  return done;
}

/** Runs `fn` while holding the migration advisory lock on `session` (a dedicated connection). */
export async function withAdvisoryLock<T>(session: SqlSession, fn: () => Promise<T>, timeoutMs = 120_000): Promise<T> {
  await session.exec(`SET lock_timeout = ${Math.max(1, Math.floor(timeoutMs))}`);
  try {
    await session.query(`SELECT pg_advisory_lock(${MIGRATION_LOCK_KEY.toString()})`);
  } catch (e) {
    throw new MigrationError(
      `Could not take the migration lock within ${timeoutMs} ms (another instance is migrating?): ${
        e instanceof Error ? e.message : String(e)
      }`,
      { cause: e },
    );
  }
  try {
    await session.exec('SET lock_timeout = 0');
    return await fn();
  } finally {
    await session.query(`SELECT pg_advisory_unlock(${MIGRATION_LOCK_KEY.toString()})`).catch(() => undefined);
  }
}
