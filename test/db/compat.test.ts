import { applyMigrations, loadMigrations, MIGRATIONS_DIR, pendingMigrations } from '../../src/db/migrate';
import { openPglite, pgliteSession, PrismaPGlite, type PGlite } from '../../src/db/pglite';
import { createSchemaEngine, toMigrationList } from '../../src/db/schema-engine';

/**
 * Our applier keeps Prisma's bookkeeping (`_prisma_migrations`, sha256 checksums), so Prisma's own
 * engine and ours agree on what is applied, whichever ran first.
 */
describe("_prisma_migrations compatibility with Prisma's schema engine", () => {
  const filters = { externalTables: [], externalEnums: [] };
  let pg: PGlite;
  afterEach(() => pg?.close());

  const engineOn = (db: PGlite) => {
    const factory = new PrismaPGlite(db);
    return createSchemaEngine(Object.assign(factory, { connectToShadowDb: () => Promise.reject(new Error('unused')) }));
  };

  test('after our applier, Prisma finds nothing to apply', async () => {
    pg = await openPglite({ dataDir: null, reuseInitdb: true });
    const migrations = loadMigrations();
    expect(await applyMigrations(pgliteSession(pg), migrations)).toEqual(migrations.map((m) => m.name));
    const engine = await engineOn(pg);
    try {
      const out = await engine.applyMigrations({ migrationsList: toMigrationList(migrations, MIGRATIONS_DIR), filters });
      expect(out.appliedMigrationNames).toEqual([]);
    } finally {
      engine.free();
    }
  });

  test('after Prisma applied the migrations, ours finds nothing pending and agrees on checksums', async () => {
    pg = await openPglite({ dataDir: null, reuseInitdb: true });
    const migrations = loadMigrations();
    const engine = await engineOn(pg);
    try {
      const out = await engine.applyMigrations({ migrationsList: toMigrationList(migrations, MIGRATIONS_DIR), filters });
      expect(out.appliedMigrationNames).toEqual(migrations.map((m) => m.name));
    } finally {
      engine.free();
    }
    const session = pgliteSession(pg);
    expect(await pendingMigrations(session, migrations)).toEqual([]);
    const rows = await session.query<{ migration_name: string; checksum: string }>(
      'SELECT migration_name, checksum FROM _prisma_migrations ORDER BY migration_name',
    );
    expect(rows).toEqual(migrations.map((m) => ({ migration_name: m.name, checksum: m.checksum })));
    expect(await applyMigrations(session, migrations)).toEqual([]);
  });
});
