import { stepColumns, transferColumns } from '../../src/modules/transfers/transfer.rows';
import { createTestDatabase, type TestDatabase } from '../helpers/db';

/**
 * The saga's raw statements name the columns they return (transferColumns, stepColumns) instead of `*`, derived from
 * the Prisma models: they must be exactly the tables' columns as migrated, or a raw read would miss a field the code
 * uses (or name one that does not exist).
 */
describe('raw SQL column lists', () => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await createTestDatabase();
  });
  afterAll(() => db.close());

  const columnsOf = async (table: string) =>
    (
      await db.prisma.$queryRaw<{ column_name: string }[]>`
        SELECT column_name FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = ${table}`
    )
      .map((r) => r.column_name)
      .sort();
  const listed = (sql: string) => sql.split(', ').sort();

  test('transferColumns is every column of transfers, and only those', async () => {
    expect(listed(transferColumns().sql)).toEqual(await columnsOf('transfers'));
  });

  test('stepColumns is every column of saga_steps, and only those', async () => {
    expect(listed(stepColumns().sql)).toEqual(await columnsOf('saga_steps'));
  });

  test('qualified by an alias when asked', () => {
    expect(
      transferColumns('t')
        .sql.split(', ')
        .every((c) => c.startsWith('t.')),
    ).toBe(true);
  });
});
