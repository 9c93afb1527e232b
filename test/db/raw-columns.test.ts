import { Prisma } from '../../src/generated/prisma/client';
import { modelColumns, modelFromSql } from '../../src/db/sql-rows';
import { stepColumns, transferColumns, transferStateColumns } from '../../src/modules/transfer/transfer.rows.repository';
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

  test('transferStateColumns (what writes return) is every column of transfers but details, which no write changes', async () => {
    expect(listed(transferStateColumns().sql)).toEqual((await columnsOf('transfers')).filter((c) => c !== 'details'));
  });

  test('stepColumns is every column of saga_steps, and only those', async () => {
    expect(listed(stepColumns().sql)).toEqual(await columnsOf('saga_steps'));
  });

  test.each([
    ['quotes', Prisma.QuoteScalarFieldEnum],
    ['persons', Prisma.PersonScalarFieldEnum],
    ['funding_credentials', Prisma.FundingCredentialScalarFieldEnum],
    ['idempotency_records', Prisma.IdempotencyRecordScalarFieldEnum],
  ])('modelColumns of the %s model is every column of the table, and only those', async (table, fields) => {
    expect(listed(modelColumns(fields)().sql)).toEqual(await columnsOf(table));
  });

  test("a row read through modelColumns and modelFromSql is exactly Prisma's own read (alone and prefixed beside another)", async () => {
    const quote = await db.prisma.quote.create({
      data: {
        ownerId: 'u1',
        fxId: 'fx-1',
        rate: '5.123456789012',
        sourceCurrency: 'USD',
        destinationCurrency: 'BRL',
        sourceAmount: '100.25',
        destinationAmount: null,
        paymentMethod: 'CARD',
        destinationCountry: 'BR',
        expiresAt: new Date('2030-01-02T03:04:05.678Z'),
      },
    });
    const person = await db.prisma.person.create({
      data: { ownerId: 'u1', status: 'APPROVED', countryCode: 'US', details: { firstName: 'Ana', tags: [1, 'x'], nested: { n: null } } },
    });
    const quotes = modelColumns(Prisma.QuoteScalarFieldEnum);
    const persons = modelColumns(Prisma.PersonScalarFieldEnum);
    const [alone] = await db.sql.query`SELECT ${quotes()} FROM quotes WHERE id = ${quote.id}`;
    expect(modelFromSql(alone!)).toEqual(await db.prisma.quote.findUnique({ where: { id: quote.id } }));
    const [both] = await db.sql.query`
      SELECT ${quotes('q', 'q__')}, ${persons('p', 'p__')} FROM quotes q, persons p WHERE q.id = ${quote.id} AND p.id = ${person.id}`;
    expect(modelFromSql(both!, 'q__')).toEqual(quote);
    expect(modelFromSql(both!, 'p__')).toEqual(await db.prisma.person.findUnique({ where: { id: person.id } }));
    expect(Prisma.Decimal.isDecimal((modelFromSql(both!, 'q__') as typeof quote).rate)).toBe(true);
  });

  test('qualified by an alias when asked', () => {
    expect(
      transferColumns('t')
        .sql.split(', ')
        .every((c) => c.startsWith('t.')),
    ).toBe(true);
  });
});
