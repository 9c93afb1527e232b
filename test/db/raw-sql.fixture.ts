/**
 * The statement raw-sql.test.ts answers through db.sql and through prisma.$queryRaw, and — run as a script, in a
 * process whose zone is not UTC (node-postgres reads `timestamp` and `date` in the process's zone, Prisma in UTC)
 * — the same comparison there, and that an embedded (PGlite) database runs in UTC all the same:
 * `node -r ./test/bench/register.cjs test/db/raw-sql.fixture.ts <postgres url>` exits 0 when both hold, else 1 with
 * the difference.
 */
import { deepStrictEqual } from 'node:assert';
import pino from 'pino';
import { createDatabase } from '../../src/db/database';
import { DEFAULT_PREPARED_STATEMENTS } from '../../src/db/statement-names';
import { Prisma } from '../../src/generated/prisma/client';

export const at = new Date('2026-03-04T05:06:07.089Z');

/** Every kind of value the service's raw statements read, and every kind of parameter they bind. */
export const typed = (): Prisma.Sql => Prisma.sql`
  SELECT 1::int2 AS i2, 2::int4 AS i4, 3::int8 AS i8, count(*) OVER () AS counted, row_number() OVER () AS rn,
         100.10::numeric(20,6) AS amount, 0.000001::numeric(24,12) AS rate, NULL::numeric AS no_amount, 2.5::float8 AS f8,
         true AS yes, 'x'::text AS t, 'BR'::char(2) AS country, 'USD'::char(3) AS currency, NULL::text AS nothing,
         ${at}::timestamptz AS tz, ${at}::timestamp AS ts, ${at}::date AS d, ${at}::timestamptz(3) AS tz3,
         '2026-03-04 05:06:07.089'::timestamp AS literal_ts, '2026-03-04'::date AS literal_d,
         '{"a":1,"b":[true,null,"s"]}'::jsonb AS jb, '[1,2]'::json AS j, json_build_object('k', 'v') AS built,
         ARRAY['a', NULL, 'c'] AS texts, ARRAY[1, 2]::int4[] AS ints, ARRAY[1, 2]::int8[] AS longs,
         ARRAY[1.5, NULL]::numeric[] AS decimals, ARRAY[${at}::timestamp] AS stamps, ARRAY[${at}::date] AS dates,
         ${new Prisma.Decimal('12345678901234.123456')}::numeric AS p_decimal, ${12n}::int8 AS p_bigint,
         ${{ k: ['v', 1] }}::jsonb AS p_object, ${['x', 'y']}::text[] AS p_array, ${null}::text AS p_null,
         ${7}::int AS p_int, ${false}::boolean AS p_bool, ${'ünïcode'}::text AS p_text`;

async function main(url: string): Promise<number> {
  const db = await createDatabase(
    { kind: 'postgres', url, poolMax: 2, preparedStatements: DEFAULT_PREPARED_STATEMENTS },
    pino({ level: 'silent' }),
  );
  const embedded = await createDatabase({ kind: 'pglite', dataDir: null }, pino({ level: 'silent' }));
  try {
    deepStrictEqual(await db.sql.query(typed()), await db.prisma.$queryRaw(typed()));
    deepStrictEqual(await embedded.sql.query`SELECT current_setting('TimeZone') AS zone`, [{ zone: 'UTC' }]);
    return 0;
  } catch (e) {
    console.error((e as Error).message);
    return 1;
  } finally {
    await db.close();
    await embedded.close();
  }
}

if (require.main === module) void main(process.argv[2]!).then((code) => process.exit(code));
