/**
 * `npm run db:migrate`: applies pending migrations to the database named by DATABASE_URL (same
 * configuration as the service: absent → PGlite in DATA_DIR, memory://, file:<dir>, postgres://…),
 * under the same lock the service takes at start. Prints what it applied. Exit code 0 on success,
 * 1 on a configuration error or a failed migration (one readable message, no stack trace).
 */
import { ConfigError, loadConfig } from '../config';
import { createLogger } from '../shared/logger';
import { createDatabase, type Database } from './database';
import { MigrationError } from './migrate';

export async function runMigrateCli(
  env: NodeJS.ProcessEnv = process.env,
  out: { log(s: string): void; error(s: string): void } = console,
): Promise<number> {
  let db: Database | null = null;
  try {
    const config = loadConfig(env);
    const logger = createLogger({ level: env.LOG_LEVEL ?? 'warn', name: 'db:migrate' });
    const target =
      config.database.kind === 'postgres' ? redactUrl(config.database.url) : `PGlite ${config.database.dataDir ?? '(in memory)'}`;
    db = await createDatabase(config.database, logger);
    const { applied } = await db.migrate();
    if (applied.length === 0) out.log(`${target}: no pending migrations.`);
    else out.log(`${target}: applied ${applied.length} migration(s):\n${applied.map((n) => `  - ${n}`).join('\n')}`);
    return 0;
  } catch (e) {
    if (e instanceof ConfigError || e instanceof MigrationError) out.error(e.message);
    else out.error(`db:migrate failed: ${e instanceof Error ? e.message : String(e)}`);
    return 1;
  } finally {
    await db?.close().catch(() => undefined);
  }
}

function redactUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = '***';
    return u.toString();
  } catch {
    return 'PostgreSQL';
  }
}

if (require.main === module) {
  runMigrateCli().then(
    (code) => process.exit(code),
    (err: unknown) => {
      console.error(err instanceof Error ? err.message : String(err));
      process.exit(1);
    },
  );
}
