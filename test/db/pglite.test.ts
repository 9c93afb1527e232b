import { cpSync, existsSync, mkdtempSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pino from 'pino';
import { createDatabase, MigrationError, type Database } from '../../src/db/database';
import { Prisma } from '../../src/generated/prisma/client';
import { loadMigrations, MIGRATIONS_DIR } from '../../src/db/migrate';
import { createTestDatabase, type TestDatabase } from '../helpers/db';
import { seedTransfer } from './fixtures';

const logger = pino({ level: 'silent' });
const tmpDirs: string[] = [];
const tmp = () => {
  const d = mkdtempSync(path.join(os.tmpdir(), 'bff-db-'));
  tmpDirs.push(d);
  return d;
};
afterAll(() => tmpDirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

describe('PGlite in memory', () => {
  let db: Database;
  afterEach(() => db?.close());

  test('not ready before migrate, ready after; migrating twice is a no-op', async () => {
    db = await createDatabase({ kind: 'pglite', dataDir: null }, logger);
    expect(db.kind).toBe('pglite');
    expect(await db.isReady()).toBe(false);
    const first = await db.migrate();
    expect(first.applied).toEqual(loadMigrations().map((m) => m.name));
    expect(await db.isReady()).toBe(true);
    expect(await db.migrate()).toEqual({ applied: [] });
    const rows = await db.prisma.$queryRaw<{ migration_name: string; finished_at: Date | null }[]>`
      SELECT migration_name, finished_at FROM _prisma_migrations`;
    expect(rows.map((r) => r.migration_name)).toEqual(first.applied);
    expect(rows.every((r) => r.finished_at !== null)).toBe(true);
  });

  test('isReady is false after close', async () => {
    db = await createTestDatabase();
    expect(await db.isReady()).toBe(true);
    await db.close();
    expect(await db.isReady()).toBe(false);
    await db.close(); // idempotent
  });
});

describe('test database helper (in memory)', () => {
  let db: TestDatabase;
  beforeEach(async () => {
    db = await createTestDatabase();
  });
  afterEach(() => db.close());

  test('writes and reads a transfer with its events; money keeps its decimals', async () => {
    const t = await seedTransfer(db.prisma);
    const read = await db.prisma.transfer.findUniqueOrThrow({
      where: { id: t.id },
      include: { events: { orderBy: { seq: 'asc' } }, quote: true, person: true },
    });
    expect(read.sendAmount.toString()).toBe('100.1');
    expect(read.sendAmount.toFixed(2)).toBe('100.10');
    expect(read.rate.toString()).toBe('5.123456789012');
    expect(read.status).toBe('AUTHORIZED');
    expect(read.events.map((e) => [e.seq, e.fromStatus, e.toStatus])).toEqual([
      [1, null, 'PENDING'],
      [2, 'PENDING', 'AUTHORIZED'],
    ]);
    expect(read.details).toEqual({ sender: { firstName: 'Ana', lastName: 'Silva' } });
    expect(read.quote.usedByTransferId).toBe(t.id);
    expect(read.createdAt).toBeInstanceOf(Date);
  });

  test('unique constraints surface as Prisma P2002 (one transfer per quote, seq per transfer)', async () => {
    const t = await seedTransfer(db.prisma);
    const dup = db.prisma.transferEvent.create({
      data: { transferId: t.id, seq: 1, toStatus: 'PENDING', cause: 'test' },
    });
    await expect(dup).rejects.toBeInstanceOf(Prisma.PrismaClientKnownRequestError);
    await expect(dup).rejects.toMatchObject({ code: 'P2002' });
  });

  test('optimistic concurrency on eventSeq: a stale update matches no row', async () => {
    const t = await seedTransfer(db.prisma);
    const ok = await db.prisma.transfer.updateMany({
      where: { id: t.id, eventSeq: t.eventSeq },
      data: { eventSeq: { increment: 1 }, status: 'CAPTURED' },
    });
    const stale = await db.prisma.transfer.updateMany({
      where: { id: t.id, eventSeq: t.eventSeq },
      data: { eventSeq: { increment: 1 }, status: 'VOIDED' },
    });
    expect([ok.count, stale.count]).toEqual([1, 0]);
  });

  test('counts the SQL statements Prisma sends, inside transactions too', async () => {
    const t = await seedTransfer(db.prisma);
    const { count, statements } = await db.queries.measure(() =>
      db.prisma.transfer.findMany({ where: { ownerId: t.ownerId }, include: { events: true } }),
    );
    // Prisma 7 loads a relation with a second query (or a lateral join): either way, a fixed number.
    expect(count).toBeGreaterThanOrEqual(1);
    expect(count).toBeLessThanOrEqual(2);
    expect(statements.join('\n')).toMatch(/"transfers"/);

    db.queries.reset();
    await db.prisma.$transaction(async (tx) => {
      await tx.transfer.findUnique({ where: { id: t.id } });
      await tx.transferEvent.count({ where: { transferId: t.id } });
    });
    expect(db.queries.count).toBe(2);
    expect(db.queries.events.every((e) => e.inTransaction)).toBe(true);
    expect(await db.isReady()).toBe(true);
    expect(db.queries.count).toBe(2); // readiness probes are not counted
  });

  test('test databases are isolated from each other', async () => {
    const other = await createTestDatabase();
    try {
      await seedTransfer(db.prisma);
      expect(await other.prisma.transfer.count()).toBe(0);
      expect(await db.prisma.transfer.count()).toBe(1);
    } finally {
      await other.close();
    }
  });
});

describe('PGlite persistent directory', () => {
  test('data survives close and reopen; a second open of the same directory is refused', async () => {
    const dataDir = path.join(tmp(), 'pglite');
    const first = await createDatabase({ kind: 'pglite', dataDir }, logger);
    let id: string;
    try {
      await expect(createDatabase({ kind: 'pglite', dataDir }, logger)).rejects.toThrow(/already open/);
      await first.migrate();
      id = (await seedTransfer(first.prisma)).id;
    } finally {
      await first.close();
    }
    expect(existsSync(path.join(dataDir, 'PG_VERSION'))).toBe(true);

    const again = await createDatabase({ kind: 'pglite', dataDir }, logger);
    try {
      expect(await again.isReady()).toBe(true);
      expect(await again.migrate()).toEqual({ applied: [] });
      const t = await again.prisma.transfer.findUniqueOrThrow({ where: { id }, include: { events: true } });
      expect(t.events).toHaveLength(2);
    } finally {
      await again.close();
    }
  });
});

describe('migration failures', () => {
  test('a failing migration stops with a clear MigrationError and leaves no trace', async () => {
    const dir = path.join(tmp(), 'migrations');
    cpSync(MIGRATIONS_DIR, dir, { recursive: true });
    mkdirSync(path.join(dir, '29991231000000_broken'));
    writeFileSync(
      path.join(dir, '29991231000000_broken', 'migration.sql'),
      'CREATE TABLE half_done (id int);\nALTER TABLE no_such_table ADD COLUMN x int;\n',
    );
    const db = await createDatabase({ kind: 'pglite', dataDir: null }, logger, { migrationsDir: dir });
    try {
      const err = await db.migrate().then(
        () => null,
        (e: unknown) => e,
      );
      expect(err).toBeInstanceOf(MigrationError);
      expect((err as Error).message).toMatch(/Migration 29991231000000_broken failed: .*no_such_table/);
      expect((err as Error).message).toMatch(/rolled back/);
      expect(await db.isReady()).toBe(false);
      const tables = await db.prisma.$queryRaw<{ n: bigint }[]>`
        SELECT count(*) AS n FROM information_schema.tables WHERE table_name = 'half_done'`;
      expect(Number(tables[0].n)).toBe(0);
      const recorded = await db.prisma.$queryRaw<{ migration_name: string }[]>`
        SELECT migration_name FROM _prisma_migrations ORDER BY migration_name`;
      expect(recorded.map((r) => r.migration_name)).toEqual(loadMigrations().map((m) => m.name));
    } finally {
      await db.close();
    }
  });
});
