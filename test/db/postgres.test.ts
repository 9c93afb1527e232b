import { spawn } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import pino from 'pino';
import { createDatabase, type Database } from '../../src/db/database';
import { loadMigrations, MIGRATIONS_DIR } from '../../src/db/migrate';
import { DEFAULT_PREPARED_STATEMENTS } from '../../src/db/statement-names';
import { createTestDatabase, createThrowawayPostgresDatabase, usingPostgres } from '../helpers/db';
import { SagaStepLog } from '../../src/modules/transfer/transfer.steps.repository';
import { systemClock } from '../../src/shared/clock';
import { seedTransfer } from './fixtures';

/**
 * Needs DATABASE_URL=postgres://… (CI: postgresql://postgres@127.0.0.1:5432/test). Each test works in
 * its own throwaway database, dropped afterwards.
 */
const url = process.env.DATABASE_URL ?? '';
const run = usingPostgres();
if (!run) console.warn('test/db/postgres.test.ts skipped: DATABASE_URL is not a postgres:// URL');
const describePg = run ? describe : describe.skip;
const logger = pino({ level: 'silent' });

describePg('PostgreSQL', () => {
  let throwaway: Awaited<ReturnType<typeof createThrowawayPostgresDatabase>>;
  const open: Database[] = [];
  beforeEach(async () => {
    throwaway = await createThrowawayPostgresDatabase(url);
  });
  afterEach(async () => {
    await Promise.all(open.splice(0).map((d) => d.close()));
    await throwaway.drop();
  });
  const connect = async (opts: Parameters<typeof createDatabase>[2] = {}) => {
    const db = await createDatabase(
      { kind: 'postgres', url: throwaway.url, poolMax: 3, preparedStatements: DEFAULT_PREPARED_STATEMENTS },
      logger,
      opts,
    );
    open.push(db);
    return db;
  };

  test('migrate, ready, write and read; migrating again is a no-op', async () => {
    const db = await connect();
    expect(db.kind).toBe('postgres');
    expect(await db.isReady()).toBe(false);
    expect((await db.migrate()).applied).toEqual(loadMigrations().map((m) => m.name));
    expect(await db.isReady()).toBe(true);
    expect(await db.migrate()).toEqual({ applied: [] });
    const t = await seedTransfer(db.prisma);
    const read = await db.prisma.transfer.findUniqueOrThrow({ where: { id: t.id }, include: { events: true } });
    expect(read.sendAmount.toFixed(2)).toBe('100.10');
    expect(read.events).toHaveLength(2);
  });

  test('two instances migrating at once apply each migration exactly once (advisory lock)', async () => {
    // A slow extra migration makes the two runs overlap for certain; applying it twice would fail.
    const dir = mkdtempSync(path.join(os.tmpdir(), 'bff-mig-'));
    try {
      cpSync(MIGRATIONS_DIR, dir, { recursive: true });
      mkdirSync(path.join(dir, '29991231000000_slow'));
      writeFileSync(
        path.join(dir, '29991231000000_slow', 'migration.sql'),
        'CREATE TABLE applied_marker (n int);\nINSERT INTO applied_marker VALUES (1);\nSELECT pg_sleep(0.5);\n',
      );
      const [a, b] = [await connect({ migrationsDir: dir }), await connect({ migrationsDir: dir })];
      const [ra, rb] = await Promise.all([a.migrate(), b.migrate()]);
      const all = [...ra.applied, ...rb.applied].sort();
      expect(all).toEqual([...loadMigrations().map((m) => m.name), '29991231000000_slow'].sort());
      expect([ra.applied.length, rb.applied.length]).toContain(0);
      const marker = await a.prisma.$queryRaw<{ n: bigint }[]>`SELECT count(*) AS n FROM applied_marker`;
      expect(Number(marker[0].n)).toBe(1);
      const rows = await a.prisma.$queryRaw<{ migration_name: string }[]>`
        SELECT migration_name FROM _prisma_migrations ORDER BY migration_name`;
      expect(rows.map((r) => r.migration_name)).toEqual(all);
      expect(await a.isReady()).toBe(true);
      expect(await b.isReady()).toBe(true);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('two processes running db:migrate at once apply each migration once', async () => {
    const cli = path.join(__dirname, 'migrate-cli.runner.js');
    const runCli = () =>
      new Promise<{ code: number | null; out: string }>((resolve) => {
        const child = spawn(process.execPath, [cli], {
          env: { ...process.env, DATABASE_URL: throwaway.url, LOG_LEVEL: 'silent' },
          stdio: ['ignore', 'pipe', 'pipe'],
        });
        let out = '';
        child.stdout.on('data', (d: Buffer) => (out += d.toString()));
        child.stderr.on('data', (d: Buffer) => (out += d.toString()));
        child.on('close', (code) => resolve({ code, out }));
      });
    const [r1, r2] = await Promise.all([runCli(), runCli()]);
    expect([r1.code, r2.code]).toEqual([0, 0]);
    const outputs = [r1.out, r2.out].join('\n');
    expect(outputs).toMatch(new RegExp(`applied ${loadMigrations().length} migration\\(s\\)`));
    expect(outputs).toMatch(/no pending migrations/);
    const c = new pg.Client({ connectionString: throwaway.url });
    await c.connect();
    try {
      const { rows } = await c.query('SELECT migration_name FROM _prisma_migrations');
      expect(rows).toHaveLength(loadMigrations().length);
    } finally {
      await c.end();
    }
  }, 60_000);

  test('statements are prepared once per connection up to the bound (from their second use), still binding their own values', async () => {
    const seeding = await connect();
    await seeding.migrate();
    const [a, b] = [await seedTransfer(seeding.prisma), await seedTransfer(seeding.prisma)];
    const open1 = async (preparedStatements: number) => {
      const db = await createDatabase({ kind: 'postgres', url: throwaway.url, poolMax: 1, preparedStatements }, logger);
      open.push(db);
      return db;
    };
    type Prepared = { name: string; statement: string; plans: number };
    const prepared = (db: Database) =>
      db.prisma.$queryRaw<Prepared[]>`
        SELECT name, statement, (generic_plans + custom_plans)::int AS plans FROM pg_prepared_statements ORDER BY name`;
    const read = (db: Database, id: string) => db.prisma.transfer.findUnique({ where: { id }, select: { id: true } });

    const db = await open1(2);
    // one text, other values: each call reads its own row (the second call prepares it)
    expect((await read(db, a.id))?.id).toBe(a.id);
    expect((await read(db, b.id))?.id).toBe(b.id);
    expect((await read(db, a.id))?.id).toBe(a.id);
    for (let i = 0; i < 2; i++) expect(await db.prisma.person.count()).toBe(2); // a second text: the bound
    for (let i = 0; i < 2; i++) expect(await db.prisma.quote.count()).toBe(2); // a third: sent unnamed
    const names = await prepared(db); // used once: unnamed, so not listed
    expect(names.map((p) => p.name)).toEqual(['bff_1', 'bff_2']);
    expect(names[0].statement).toMatch(/"transfers"/);
    expect(names[0].plans).toBe(2); // prepared once, run twice
    expect(names[1].statement).toMatch(/"persons"/);
    expect(names.some((p) => /pg_prepared_statements|"quotes"/.test(p.statement))).toBe(false);

    const off = await open1(0);
    for (let i = 0; i < 3; i++) expect((await read(off, a.id))?.id).toBe(a.id);
    expect(await prepared(off)).toEqual([]);
  });

  test('a prepared statement gone stale (a migration changed its result) fails once on its connection, not again', async () => {
    const seeding = await connect();
    await seeding.prisma.$executeRawUnsafe('CREATE TABLE stale_probe (id int)');
    await seeding.prisma.$executeRawUnsafe('INSERT INTO stale_probe VALUES (1)');
    const db = await createDatabase(
      { kind: 'postgres', url: throwaway.url, poolMax: 1, preparedStatements: DEFAULT_PREPARED_STATEMENTS },
      logger,
    );
    open.push(db);
    // in a transaction: the adapter hands the connection back to the pool as healthy, whatever failed in it
    const readAll = () => db.prisma.$transaction((tx) => tx.$queryRaw<Record<string, unknown>[]>`SELECT * FROM stale_probe`);
    for (let i = 0; i < 2; i++) expect(await readAll()).toEqual([{ id: 1 }]); // prepared from the second use
    await seeding.prisma.$executeRawUnsafe('ALTER TABLE stale_probe ADD COLUMN extra text');
    const outcomes: string[] = [];
    for (let i = 0; i < 4; i++)
      outcomes.push(
        await readAll().then(
          (rows) => JSON.stringify(rows),
          (e: Error) => (/cached plan must not change result type/.test(e.message) ? 'stale' : `other: ${e.message}`),
        ),
      );
    // the first use fails (one connection: the statement was prepared on it before the change); the connection is
    // then replaced, and every later use succeeds
    expect(outcomes).toEqual(['stale', ...Array(3).fill(JSON.stringify([{ id: 1, extra: null }]))]);
  });

  test('the saga reads and writes of a running instance keep working when a migration adds a transfers column', async () => {
    const seeding = await connect();
    await seeding.migrate();
    const t = await seedTransfer(seeding.prisma);
    const db = await createDatabase(
      { kind: 'postgres', url: throwaway.url, poolMax: 1, preparedStatements: DEFAULT_PREPARED_STATEMENTS },
      logger,
    );
    open.push(db);
    const steps = new SagaStepLog(db.prisma, db.sql, systemClock);
    for (let i = 0; i < 2; i++) expect((await steps.load(t.id))?.t.id).toBe(t.id); // prepared from the second use
    // what a rolling upgrade does while this instance runs: the new version's migration adds columns
    await seeding.prisma.$executeRawUnsafe('ALTER TABLE transfers ADD COLUMN added_later text');
    await seeding.prisma.$executeRawUnsafe('ALTER TABLE saga_steps ADD COLUMN added_later text');
    const loaded = await steps.load(t.id); // the same prepared statement: it names its columns, so its result is unchanged
    expect(loaded?.t.id).toBe(t.id);
    expect(loaded?.t).not.toHaveProperty('addedLater');
    const step = await steps.record(loaded!.t, 'authorize', { n: 1 });
    expect(step?.step).toBe('authorize');
    expect((await steps.load(t.id))?.steps.get('authorize')?.state).toBe('PENDING');
  });

  test('isReady is false (not a hang, not a throw) when the server is unreachable', async () => {
    const db = await createDatabase(
      { kind: 'postgres', url: 'postgresql://postgres@127.0.0.1:1/nothing', poolMax: 1, preparedStatements: 0 },
      logger,
      {
        readyTimeoutMs: 1_000,
      },
    );
    open.push(db);
    expect(await db.isReady()).toBe(false);
  });
});

describePg('createTestDatabase on PostgreSQL', () => {
  test('gives a migrated throwaway database, dropped on close', async () => {
    const db = await createTestDatabase();
    expect(db.kind).toBe('postgres');
    expect(db.name).toMatch(/^test_/);
    expect(await db.isReady()).toBe(true);
    await seedTransfer(db.prisma);
    const { count } = await db.queries.measure(() => db.prisma.transfer.count());
    expect(count).toBe(1);
    await db.close();
    const c = new pg.Client({ connectionString: url });
    await c.connect();
    try {
      const { rows } = await c.query('SELECT 1 FROM pg_database WHERE datname = $1', [db.name]);
      expect(rows).toHaveLength(0);
    } finally {
      await c.end();
    }
  });
});
