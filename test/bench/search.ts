/**
 * Benchmark 7: back-office search at a million transfers (BENCH_SEARCH_ROWS, default 1,000,000).
 *
 * Seeds that many transfers (names drawn from 50 × 50 first and last names, a unique e-mail and platform transaction
 * id each, a card's last four out of 10,000) in a throwaway PostgreSQL database when one answers (else in-memory
 * PGlite), then times, side by side in the same run, the first page (20) of `transfers(filter: { search })` as the
 * service builds it (transferListWhere: the GIN-indexed search terms, the id range of a reference, the platform id's
 * unique index) against the baseline a service without search keys would run: a scan of the stored details
 * (`details::text ILIKE '%…%'`, the id as text for a reference). Reported as medians and ratios, never asserted.
 */
import { performance } from 'node:perf_hooks';
import pino from 'pino';
import { createDatabase, type Database } from '../../src/db/database';
import { DEFAULT_PREPARED_STATEMENTS } from '../../src/db/statement-names';
import { transferListWhere } from '../../src/modules/transfer/transfer.service';
import { referenceOf } from '../../src/modules/transfer/transfer.search';
import { createThrowawayPostgresDatabase, pgliteTemplate } from '../helpers/db';

export interface SearchRow {
  search: string;
  matches: number;
  oursMs: number;
  baselineMs: number;
  ratio: number;
}
export interface SearchReport {
  rows: number;
  database: string;
  seedS: number;
  results: SearchRow[];
}

const FIRST =
  'ana bruno carla diego elena fabio gabriela hugo ines joao karina luis marta nuno olivia pedro quiteria rafael sofia tiago ursula vitor wanda xavier yara zeca alice bernardo celia davi eva filipe gloria heitor iris jorge lara mateus nadia otavio paula renato sara tomas uliana vera william yasmin zoe maria'.split(
    ' ',
  );
const LAST =
  'silva santos oliveira souza rodrigues ferreira alves pereira lima gomes costa ribeiro martins carvalho almeida lopes soares fernandes vieira barbosa rocha dias nascimento andrade moreira nunes marques machado mendes freitas cardoso ramos goncalves santana teixeira araujo correia pinto melo castro campos moura reis monteiro cavalcanti peixoto brito leal sales'.split(
    ' ',
  );

const sqlArray = (xs: string[]) => `(ARRAY[${xs.map((x) => `'${x}'`).join(',')}])`;

async function seed(db: Database, n: number): Promise<void> {
  const p = db.prisma;
  await p.$executeRawUnsafe(
    `INSERT INTO persons (id, owner_id, status, country_code, created_at) VALUES ('bench-person', 'bench-owner', 'APPROVED', 'US', now())`,
  );
  const batch = 100_000;
  for (let from = 1; from <= n; from += batch) {
    const to = Math.min(n, from + batch - 1);
    // ids shaped as UUIDs (md5 of the row number), created one minute apart
    await p.$executeRawUnsafe(`
      WITH g AS (
        SELECT i, md5(i::text) AS h, ${sqlArray(FIRST)}[1 + i % ${FIRST.length}] AS first,
               ${sqlArray(LAST)}[1 + (i / ${FIRST.length}) % ${LAST.length}] AS last,
               lpad((i::bigint * 7919 % 10000)::text, 4, '0') AS four
        FROM generate_series(${from}, ${to}) AS i
      ), q AS (
        INSERT INTO quotes (id, owner_id, fx_id, rate, source_currency, destination_currency, source_amount, payment_method,
                            expires_at, created_at, used_by_transfer_id)
        SELECT 'q' || i, 'owner-' || (i % 5000), 'fx' || i, 5.0123, 'USD', 'BRL', 100, 'CARD', now(), now(),
               substr(h,1,8) || '-' || substr(h,9,4) || '-' || substr(h,13,4) || '-' || substr(h,17,4) || '-' || substr(h,21,12)
        FROM g
      )
      INSERT INTO transfers (id, owner_id, status, version, event_seq, quote_id, person_id, send_amount, send_currency, receive_amount,
                             receive_currency, rate, fee_amount, external_payment_id, external_transaction_id, funding_type,
                             destination_country, details, search_terms, created_at, updated_at)
      SELECT substr(h,1,8) || '-' || substr(h,9,4) || '-' || substr(h,13,4) || '-' || substr(h,17,4) || '-' || substr(h,21,12),
             'owner-' || (i % 5000), 'COMPLETED', 5, 9, 'q' || i, 'bench-person', 100, 'USD', 501.23, 'BRL', 5.0123, 3.99,
             'pay-' || i, 'tx-' || i, 'card', 'BR',
             jsonb_build_object('sender', jsonb_build_object('customer', jsonb_build_object('firstName', 'Jane', 'lastName', 'Doe', 'email', 'jane' || (i % 5000) || '@example.com')),
                                'recipient', jsonb_build_object('customer', jsonb_build_object('firstName', first, 'lastName', last, 'email', 'user' || i || '@example.com'),
                                                                'destination', jsonb_build_object('type', 'PIX', 'pixKeyType', 'EMAIL', 'pixKey', 'user' || i || '@example.com')),
                                'funding', jsonb_build_object('type', 'CARD', 'lastFour', four)),
             ARRAY['jane', 'doe', 'jane' || (i % 5000) || '@example.com', first, last, 'user' || i || '@example.com', four],
             timestamptz '2026-01-01' + i * interval '1 minute', timestamptz '2026-01-01' + i * interval '1 minute'
      FROM g`);
  }
  await p.$executeRawUnsafe('ANALYZE transfers');
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

async function time(fn: () => Promise<number>, runs: number): Promise<{ ms: number; matches: number }> {
  let matches = await fn(); // warm
  const ms: number[] = [];
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now();
    matches = await fn();
    ms.push(performance.now() - t0);
  }
  return { ms: median(ms), matches };
}

export async function searchBenchmark(opts: { rows?: number; runs?: number; postgresUrl: string | null }): Promise<SearchReport> {
  const n = opts.rows ?? Number(process.env.BENCH_SEARCH_ROWS ?? 1_000_000);
  const runs = opts.runs ?? 15;
  const logger = pino({ level: 'silent' });
  const throwaway = opts.postgresUrl ? await createThrowawayPostgresDatabase(opts.postgresUrl) : null;
  const db = throwaway
    ? await createDatabase({ kind: 'postgres', url: throwaway.url, poolMax: 2, preparedStatements: DEFAULT_PREPARED_STATEMENTS }, logger)
    : await createDatabase({ kind: 'pglite', dataDir: null }, logger, { pgliteLoadDataDir: await pgliteTemplate() });
  try {
    await db.migrate();
    const t0 = performance.now();
    await seed(db, n);
    const seedS = (performance.now() - t0) / 1000;
    const staff = { userId: 'bench-staff', role: 'backoffice' as const };
    const target = Math.floor(n * 0.777);
    const four = String((target * 7919) % 10000).padStart(4, '0');
    const targetId = (await db.prisma.quote.findUniqueOrThrow({ where: { id: `q${target}` } })).usedByTransferId!;
    const ours = (search: string) => async () =>
      (
        await db.prisma.transfer.findMany({
          where: transferListWhere(staff, { filter: { search } }),
          orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
          take: 21,
          select: { id: true },
        })
      ).length;
    const scan = (where: string, arg: string) => async () =>
      (
        await db.prisma.$queryRawUnsafe<{ id: string }[]>(
          `SELECT id FROM transfers WHERE ${where} ORDER BY created_at DESC, id DESC LIMIT 21`,
          arg,
        )
      ).length;
    const cases: Array<[string, () => Promise<number>, () => Promise<number>]> = [
      [
        `e-mail user${target}@example.com`,
        ours(`user${target}@example.com`),
        scan('details::text ILIKE $1', `%user${target}@example.com%`),
      ],
      ['name "maria silva"', ours('maria silva'), scan(`details::text ILIKE $1 AND details::text ILIKE '%silva%'`, '%maria%')],
      [`card last four ${four}`, ours(four), scan('details::text ILIKE $1', `%"lastFour": "${four}"%`)],
      [
        `reference ${referenceOf(targetId)}`,
        ours(referenceOf(targetId)),
        scan(`replace(id, '-', '') ILIKE $1`, `${targetId.replace(/-/g, '').slice(0, 12)}%`),
      ],
      [
        `platform id tx-${target}`,
        ours(`tx-${target}`),
        scan('details::text ILIKE $1 OR external_transaction_id ILIKE $1', `%tx-${target}%`),
      ],
    ];
    const results: SearchRow[] = [];
    for (const [search, o, b] of cases) {
      const a = await time(o, runs);
      const base = await time(b, Math.max(3, Math.floor(runs / 3)));
      results.push({ search, matches: a.matches, oursMs: a.ms, baselineMs: base.ms, ratio: base.ms / a.ms });
    }
    return { rows: n, database: throwaway ? 'postgresql' : 'pglite (in memory)', seedS, results };
  } finally {
    await db.close();
    await throwaway?.drop();
  }
}

export function formatSearchTable(r: SearchReport): string {
  const lines = [
    `7. back-office search, first page of 20, ${r.rows.toLocaleString('en-US')} transfers (${r.database}; seeded in ${r.seedS.toFixed(0)} s)`,
    '   search                              | page rows | ours (median) | details scan (median) | scan / ours',
  ];
  for (const x of r.results)
    lines.push(
      `   ${x.search.padEnd(35)} | ${String(x.matches).padStart(9)} | ${x.oursMs.toFixed(2).padStart(10)} ms | ${x.baselineMs.toFixed(1).padStart(18)} ms | ${x.ratio.toFixed(0).padStart(9)}×`,
    );
  return lines.join('\n');
}
