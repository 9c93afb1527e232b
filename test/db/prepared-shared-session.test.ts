import { createDatabase, type Database, type DbLogger } from '../../src/db/database';
import { DEFAULT_PREPARED_STATEMENTS } from '../../src/db/statement-names';
import { pgliteWireDatabase, type ProductionDatabase } from '../helpers/production';

/**
 * Behind a pooler that runs several connections in one server session (PgBouncer in transaction mode without its
 * prepared-statement support; here PGlite behind the wire protocol, one session for every connection), a statement
 * prepared on one connection collides with the same name prepared on the next. The service says so once, naming the
 * setting to change; with DATABASE_PREPARED_STATEMENTS=0 the same work runs without an error.
 */
describe('prepared statements behind one shared session', () => {
  let wire: ProductionDatabase;
  const open: Database[] = [];
  beforeAll(async () => {
    wire = await pgliteWireDatabase();
    const setup = await createDatabase({ kind: 'postgres', url: wire.url, poolMax: 1, preparedStatements: 0 }, silent());
    open.push(setup);
    await setup.migrate();
  }, 60_000);
  afterAll(async () => {
    await Promise.all(open.map((d) => d.close()));
    await wire.close();
  });

  function silent(errors: string[] = []): DbLogger {
    const none = () => undefined;
    return { info: none, warn: none, debug: none, error: (...a: unknown[]) => void errors.push(String(a.at(-1))) } as unknown as DbLogger;
  }

  /** Reads on every pool connection, several rounds: each text is used (so prepared) on more than one connection. */
  async function work(db: Database): Promise<string[]> {
    const failures: string[] = [];
    for (let round = 0; round < 6; round++)
      await Promise.all(
        Array.from({ length: 4 }, () =>
          db.prisma.transfer
            .count()
            .catch((e: Error) => void failures.push(/already exists/.test(e.message) ? 'already exists' : e.message)),
        ),
      );
    return failures;
  }

  test('prepared: the collision is reported once, with the setting that avoids it', async () => {
    const errors: string[] = [];
    const db = await createDatabase(
      { kind: 'postgres', url: wire.url, poolMax: 3, preparedStatements: DEFAULT_PREPARED_STATEMENTS },
      silent(errors),
    );
    open.push(db);
    const failures = await work(db);
    expect(failures.length).toBeGreaterThan(0);
    expect(new Set(failures)).toEqual(new Set(['already exists']));
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatch(/DATABASE_PREPARED_STATEMENTS=0/);

    // in a transaction too (its connection goes back to the pool only through the adapter): another instance on the
    // same session names its statements alike, so its second use of the text collides — refused, said once, and its
    // only connection replaced rather than leaked (the next call gets an answer, not a wait)
    const errors2: string[] = [];
    const other = await createDatabase(
      { kind: 'postgres', url: wire.url, poolMax: 1, preparedStatements: DEFAULT_PREPARED_STATEMENTS },
      silent(errors2),
    );
    open.push(other);
    expect(await other.prisma.transfer.count()).toBe(0); // first use: unnamed
    await expect(other.prisma.$transaction((tx) => tx.transfer.count())).rejects.toThrow(/already exists/);
    expect(errors2).toHaveLength(1);
    await expect(other.prisma.transfer.count()).rejects.toThrow(/already exists/);
    expect(errors2).toHaveLength(1);
  });

  test('DATABASE_PREPARED_STATEMENTS=0: the same work without an error', async () => {
    const errors: string[] = [];
    const db = await createDatabase({ kind: 'postgres', url: wire.url, poolMax: 3, preparedStatements: 0 }, silent(errors));
    open.push(db);
    expect(await work(db)).toEqual([]);
    expect(errors).toEqual([]);
  });
});
