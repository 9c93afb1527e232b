/**
 * The benchmark harness works: each of the five benchmarks runs for about a second and produces its
 * structure (ratios computed, exactly the same upstream calls per request for benchmark 2, constant SQL
 * count for a 100-row transfer list, every subscriber served, saga transfers completed with the minimum
 * upstream calls and a bounded statement count). Never a timed
 * assertion: figures come from `npm run bench`. Smoke mode: one service process for all five benchmarks,
 * no warm-up, small sizes. Uses dist/ (built by `pretest`).
 */
import { defaultOptions, formatTable, runBenchmarks, type Report } from './bench';

jest.setTimeout(180_000);

let report: Report;

// Embedded defaults unless the suite runs against PostgreSQL (DATABASE_URL), like every other suite.
if (!/^postgres(ql)?:\/\//.test(process.env.DATABASE_URL ?? '')) process.env.BENCH_DATABASE = 'pglite';

beforeAll(async () => {
  report = await runBenchmarks({
    ...defaultOptions({}),
    durationS: 1,
    warmupS: 0,
    rounds: 1,
    connections: 4,
    subscribers: 10,
    subscriberBlocks: 1,
    sagaTransfers: 2,
    sagaConcurrency: 2,
    upstreamSampleRequests: 40,
    smoke: true,
    only: [1, 2, 3, 4, 5],
    log: () => undefined,
  });
});

const finite = (x: unknown) => typeof x === 'number' && Number.isFinite(x) && x > 0;

test('1: query ratio computed, same response as the baseline, constant SQL for a 100-row list', () => {
  const q = report.benchmarks.query;
  expect(finite(q.ratio)).toBe(true);
  expect(q.sameResponse).toBe(true);
  expect(q.list.rows100.rows).toBe(100);
  expect(q.list.rows100.queries).toBe(q.list.rows10.queries);
  expect(q.list.constant).toBe(true);
});

test('2: upstream-backed ratio computed, exactly one upstream call per request on both sides', () => {
  const u = report.benchmarks.upstream;
  expect(finite(u.ratio)).toBe(true);
  // counted over one closed window per side: every request sent was answered, every call logged
  for (const w of [u.upstreamWindow.ours, u.upstreamWindow.baseline]) {
    expect(w).toMatchObject({ requests: 40, sent: 40, ok: 40, errors: 0, timeouts: 0, exact: true });
    expect(w.calls).toBe(w.requests);
  }
  expect(u.upstreamCallsPerRequest).toEqual({ ours: 1, baseline: 1 });
  expect(u.sameCalls).toBe(true);
});

test('3: webhook ratio and p99 ratio computed, the ingested events were processed', () => {
  const w = report.benchmarks.webhooks;
  expect(finite(w.ratio)).toBe(true);
  expect(finite(w.p99Ratio)).toBe(true);
  expect(w.ours.rounds[0].non2xx).toBe(0);
  expect(finite(w.processedPerSecond)).toBe(true);
});

test('4: every subscriber received every change, on both sides', () => {
  const f = report.benchmarks.fanout;
  expect(finite(f.ratio)).toBe(true);
  expect(f.ours.missing).toBe(0);
  expect(f.baseline_.missing).toBe(0);
  expect(JSON.parse(f.message)).toMatchObject({ type: 'next', payload: { data: { transferUpdated: { status: 'PAYOUT_PENDING' } } } });
});

test('5: every transfer COMPLETED with exactly the minimum upstream calls; SQL per transfer counted and bounded', () => {
  const s = report.benchmarks.saga;
  expect(s.statuses).toEqual({ COMPLETED: 2 });
  // each operation exactly as often as the flow needs it: one quote, authorization, platform read and capture per
  // transfer; two card checks per transfer (the customer's checkCard that binds the card, the transfer's own check)
  for (const op of [
    'POST /gateway/v2/foreign-exchange',
    'POST /gateway/v2/payment',
    'GET /remittances/organizations/:tenant/fx/transactions/:id',
    'POST /gateway/payments/:id/capture',
  ])
    expect(s.upstream[op]).toEqual({ calls: 2, minimum: 2 });
  expect(s.upstream['POST /gateway/v2/check-card-account']).toEqual({ calls: 4, minimum: 4 });
  expect(s.upstreamExcess).toEqual({});
  expect(s.ratio).toBe(1);
  // structural, not a timing: ≈ 150 statements per transfer (about 15 platform events, each stored and applied); an
  // N+1 or a statement per poll tick inside the flow would cross this bound
  expect(finite(s.statementsPerTransfer)).toBe(true);
  expect(s.statementsPerTransfer).toBeLessThan(400);
});

test('the table lists the five benchmarks with their ratios', () => {
  const table = formatTable(report);
  for (const row of ['1. transfer(id)', '2. banks', '3. webhook ingest', '4. fan-out', '5. saga']) expect(table).toContain(row);
  expect(table).toMatch(/\d\.\d\d×/);
});
