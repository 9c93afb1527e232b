import { z } from 'zod';
import { DEFAULT_PREPARED_STATEMENTS } from '../db/statement-names';
import { configDocs, doc, int, url, type EnvOf } from './config.fields';

/** The database and Redis (pub/sub, shared budgets, APQ). */
export const databaseFields = {
  DATABASE_URL: z
    .string()
    .trim()
    .refine(
      (v) => v === 'memory://' || /^postgres(ql)?:\/\//.test(v) || v.startsWith('file:'),
      'must be memory://, file:<dir> (PGlite) or postgres://…',
    )
    .optional()
    .register(
      configDocs,
      doc(
        'database',
        'The database. Unset: PGlite in `DATA_DIR/pglite`; `memory://`: in-memory PGlite; `file:<dir>`: PGlite there; `postgres://…`: PostgreSQL (required in production).',
        { summary: 'unset: PGlite in `./.data`; `memory://`, `file:<dir>` (PGlite) or `postgres://…`' },
      ),
    ),
  DATABASE_POOL_MAX: int(1, 200)
    .default(20)
    .register(
      configDocs,
      doc('database', 'PostgreSQL connection pool bound (per instance: the API, the saga worker and the webhook inbox share it).'),
    ),
  DATABASE_PREPARED_STATEMENTS: int(0, 10_000)
    .default(DEFAULT_PREPARED_STATEMENTS)
    .register(
      configDocs,
      doc(
        'database',
        'PostgreSQL: up to N distinct SQL statement texts, each from its second use, are prepared once per connection and reused (parsed and planned once, not at every call); others are sent unprepared. `0`: none — e.g. behind PgBouncer in transaction mode older than 1.21 or with `max_prepared_statements` below N. Rolling upgrades, memory and plans: docs/operations.md.',
      ),
    ),
  REDIS_URL: url(['redis:', 'rediss:'])
    .optional()
    .register(
      configDocs,
      doc(
        'database',
        'Redis for pub/sub fan-out across instances and shared rate budgets and APQ. Unset: in-process pub/sub and per-instance budgets.',
        { summary: 'unset: in-process pub/sub; set: Redis fan-out and budgets shared across instances' },
      ),
    ),
};

export type DatabaseConfig =
  | { kind: 'pglite'; dataDir: string | null /* null = in memory */ }
  | {
      kind: 'postgres';
      url: string;
      poolMax: number;
      /** distinct statement texts prepared per connection (0: none) */
      preparedStatements: number;
    };

export interface DatabaseGroupConfig {
  database: DatabaseConfig;
  redisUrl: string | null;
}

export function databaseConfig(e: EnvOf<typeof databaseFields> & { DATA_DIR: string }): DatabaseGroupConfig {
  let database: DatabaseConfig;
  if (!e.DATABASE_URL) database = { kind: 'pglite', dataDir: `${e.DATA_DIR.replace(/\/$/, '')}/pglite` };
  else if (e.DATABASE_URL === 'memory://') database = { kind: 'pglite', dataDir: null };
  else if (e.DATABASE_URL.startsWith('file:')) database = { kind: 'pglite', dataDir: e.DATABASE_URL.slice(5) };
  else
    database = { kind: 'postgres', url: e.DATABASE_URL, poolMax: e.DATABASE_POOL_MAX, preparedStatements: e.DATABASE_PREPARED_STATEMENTS };
  return { database, redisUrl: e.REDIS_URL ?? null };
}
