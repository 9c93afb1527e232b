import { spawn } from 'node:child_process';
import path from 'node:path';
import pino from 'pino';
import pg from 'pg';
import { createDatabase, type Database, type QueryEvent } from '../../src/db/database';
import { withQueryPhase } from '../../src/db/instrument';
import { StatementError } from '../../src/db/raw-sql';
import { DEFAULT_PREPARED_STATEMENTS } from '../../src/db/statement-names';
import { Prisma } from '../../src/generated/prisma/client';
import { transferColumns } from '../../src/modules/transfer/transfer.rows.repository';
import { countQueries, createTestDatabase, createThrowawayPostgresDatabase, usingPostgres } from '../helpers/db';
import { seedTransfer } from './fixtures';
import { at, typed } from './raw-sql.fixture';

/**
 * db.sql answers every statement with what prisma.$queryRaw / $executeRaw answer — the same values of the same
 * types — on PGlite (where it is Prisma's own) and, with DATABASE_URL=postgres://…, on PostgreSQL, where it goes
 * to the pool beside Prisma.
 */
const logger = pino({ level: 'silent' });

async function sameAnswers(db: Database): Promise<void> {
  const direct = await db.sql.query(typed());
  expect(direct).toStrictEqual(await db.prisma.$queryRaw(typed()));
  const [row] = direct as Record<string, unknown>[];
  expect(row!.amount).toBeInstanceOf(Prisma.Decimal);
  expect((row!.amount as Prisma.Decimal).toFixed(2)).toBe('100.10');
  expect(row!.i8).toBe(3n);
  expect(row!.ts).toStrictEqual(at);
  expect(row!.p_decimal).toStrictEqual(new Prisma.Decimal('12345678901234.123456'));

  // a transfer row as the saga reads it, and the tagged form
  const t = await seedTransfer(db.prisma);
  const read = () => Prisma.sql`SELECT ${transferColumns()} FROM transfers WHERE id = ${t.id}`;
  expect(await db.sql.query(read())).toStrictEqual(await db.prisma.$queryRaw(read()));
  const tagged = await db.sql.query<{ id: string }>`SELECT id FROM transfers WHERE id = ${t.id} AND updated_at <= ${new Date()}`;
  expect(tagged).toEqual([{ id: t.id }]);

  // writes: the count of rows written, and a Date parameter stored as the same instant
  expect(await db.sql.execute`UPDATE transfers SET lease_until = ${at} WHERE id = ${t.id}`).toBe(1);
  expect(await db.sql.execute`UPDATE transfers SET lease_until = ${at} WHERE id = ${'none'}`).toBe(0);
  expect((await db.prisma.transfer.findUniqueOrThrow({ where: { id: t.id } })).leaseUntil).toStrictEqual(at);
}

describe('db.sql on PGlite', () => {
  let db: Database;
  beforeAll(async () => {
    db = await createTestDatabase();
  });
  afterAll(() => db.close());

  test('answers as prisma.$queryRaw / $executeRaw', () => sameAnswers(db));

  test('its statements are counted with Prisma’s', async () => {
    const counter = countQueries(db);
    await db.sql.query`SELECT 1 AS n`;
    await db.sql.execute`SELECT 2 AS n`;
    expect(counter.count).toBe(2);
  });
});

const describePg = usingPostgres() ? describe : describe.skip;

describePg('db.sql on PostgreSQL (beside Prisma, on its pool)', () => {
  let throwaway: Awaited<ReturnType<typeof createThrowawayPostgresDatabase>>;
  const open: Database[] = [];
  beforeAll(async () => {
    throwaway = await createThrowawayPostgresDatabase(process.env.DATABASE_URL!);
  });
  afterAll(async () => {
    await Promise.all(open.map((d) => d.close()));
    await throwaway.drop();
  });
  const connect = async (preparedStatements: number, poolMax = 3) => {
    const db = await createDatabase({ kind: 'postgres', url: throwaway.url, poolMax, preparedStatements }, logger);
    open.push(db);
    await db.migrate();
    return db;
  };

  test('answers as prisma.$queryRaw / $executeRaw, prepared or not', async () => {
    await sameAnswers(await connect(DEFAULT_PREPARED_STATEMENTS));
    await sameAnswers(await connect(0));
  });

  test('reports every statement, with its phase, duration and failure, never its values', async () => {
    const db = await connect(DEFAULT_PREPARED_STATEMENTS);
    const events: QueryEvent[] = [];
    const off = db.onQuery((e) => events.push(e));
    await withQueryPhase('test.phase', () => db.sql.query`SELECT ${'secret-value'}::text AS v`);
    await expect(db.sql.query`SELECT * FROM no_such_table WHERE x = ${1}`).rejects.toMatchObject({ code: '42P01' });
    off();
    expect(events).toEqual([
      expect.objectContaining({ sql: 'SELECT $1::text AS v', params: 1, inTransaction: false, phase: 'test.phase' }),
      expect.objectContaining({ sql: 'SELECT * FROM no_such_table WHERE x = $1', params: 1, error: true }),
    ]);
    expect(events.every((e) => e.durationMs >= 0)).toBe(true);
    expect(events[1]!.phase).toBeUndefined();
    expect(JSON.stringify(events)).not.toContain('secret-value');
  });

  test('one name per text for Prisma and db.sql alike: each text prepared once on a connection, none colliding', async () => {
    const db = await connect(DEFAULT_PREPARED_STATEMENTS, 1); // one connection: pg_prepared_statements shows all of it
    const a = (i: number) => Prisma.sql`SELECT ${i}::int AS n, 'raw-sql-test-a' AS marker`;
    const b = (i: number) => Prisma.sql`SELECT ${i}::int AS n, 'raw-sql-test-b' AS marker`;
    for (let i = 0; i < 2; i++) await db.prisma.$queryRaw(a(i)); // named by Prisma's adapter from its second use
    for (let i = 0; i < 2; i++) await db.sql.query(b(i)); // named by db.sql from its second use
    // each text again through the other path: the same name, already prepared on this connection
    expect(await db.sql.query(a(5))).toEqual([{ n: 5, marker: 'raw-sql-test-a' }]);
    expect(await db.prisma.$queryRaw(b(6))).toEqual([{ n: 6, marker: 'raw-sql-test-b' }]);
    const prepared = await db.sql.query<{ name: string; statement: string }>`
      SELECT name, statement FROM pg_prepared_statements WHERE statement LIKE '%raw-sql-test-%' AND statement NOT LIKE '%pg_prepared%'`;
    expect(prepared).toHaveLength(2);
    expect(new Set(prepared.map((p) => p.name)).size).toBe(2);
    for (const p of prepared) expect(p.name).toMatch(/^bff_\d+$/);
  });

  test('a database set to another TimeZone: db.sql and Prisma still write, compare and read the same instants', async () => {
    const admin = new pg.Client({ connectionString: throwaway.url });
    await admin.connect();
    await admin.query(`ALTER DATABASE "${throwaway.name}" SET timezone = 'America/Sao_Paulo'`);
    try {
      const db = await connect(DEFAULT_PREPARED_STATEMENTS);
      expect(await db.sql.query`SELECT current_setting('TimeZone') AS zone`).toEqual([{ zone: 'UTC' }]);
      await sameAnswers(db);
      // written by Prisma's model query, found by db.sql with the same instant, and the other way round
      const t = await seedTransfer(db.prisma);
      await db.prisma.transfer.update({ where: { id: t.id }, data: { nextRunAt: at } });
      expect(await db.sql.query`SELECT id FROM transfers WHERE id = ${t.id} AND next_run_at = ${at}`).toEqual([{ id: t.id }]);
      const later = new Date(at.getTime() + 60_000);
      await db.sql.execute`UPDATE transfers SET next_run_at = ${later} WHERE id = ${t.id}`;
      expect((await db.prisma.transfer.findUniqueOrThrow({ where: { id: t.id } })).nextRunAt).toStrictEqual(later);
      expect(await db.prisma.transfer.count({ where: { id: t.id, nextRunAt: later } })).toBe(1);
    } finally {
      await admin.query(`ALTER DATABASE "${throwaway.name}" RESET timezone`);
      await admin.end();
    }
  });

  test('the same answers in a process whose zone is not UTC', async () => {
    const child = spawn(process.execPath, ['-r', './test/bench/register.cjs', 'test/db/raw-sql.fixture.ts', throwaway.url], {
      cwd: path.join(__dirname, '..', '..'),
      env: { ...process.env, TZ: 'America/Sao_Paulo' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (d) => (stderr += String(d)));
    const code = await new Promise((resolve) => child.on('exit', resolve));
    expect(stderr).toBe('');
    expect(code).toBe(0);
  });

  test('a refused statement keeps its SQLSTATE and names, never the row values PostgreSQL quotes', async () => {
    const db = await connect(DEFAULT_PREPARED_STATEMENTS);
    const err = await db.sql.execute`INSERT INTO transfers (id, owner_id) VALUES (${'row-value-9f2c'}, NULL)`.then(
      () => null,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(StatementError);
    expect(err).toMatchObject({ code: '23502', table: 'transfers', column: 'owner_id' });
    // node-postgres's own error said: Failing row contains (row-value-9f2c, …)
    expect(JSON.stringify(pino.stdSerializers.err(err as Error))).not.toContain('row-value-9f2c');
  });

  test('a value PostgreSQL could not take is not quoted back in the message', async () => {
    const db = await connect(DEFAULT_PREPARED_STATEMENTS);
    // PostgreSQL quotes the value as it is, a quote inside included
    const err = await db.sql.query`SELECT ${'not-a-number" 7d1e-tail'}::int AS n`.then(
      () => null,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(StatementError);
    expect(err).toMatchObject({ code: '22P02', message: expect.stringContaining('invalid input syntax for type integer') });
    const said = JSON.stringify(pino.stdSerializers.err(err as Error));
    expect(said).not.toContain('not-a-number');
    expect(said).not.toContain('7d1e-tail');
  });

  test('an invalid Date is refused before anything is sent', async () => {
    const db = await connect(DEFAULT_PREPARED_STATEMENTS);
    const counter = countQueries(db);
    await expect(db.sql.query`SELECT ${new Date(Number.NaN)}::timestamptz AS t`).rejects.toThrow(TypeError);
    expect(counter.count).toBe(0);
  });
});
