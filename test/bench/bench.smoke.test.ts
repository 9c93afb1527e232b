/**
 * The benchmark harness works: each of the six benchmarks runs for about a second and produces its
 * structure (ratios computed, exactly the same upstream calls per request for benchmark 2, constant SQL
 * count for a 100-row transfer list, every subscriber served, saga transfers completed with the minimum
 * upstream calls and a bounded statement count). Never a timed
 * assertion: figures come from `npm run bench`. Smoke mode: one service process for all six benchmarks,
 * no warm-up, small sizes. Uses dist/ (built by `pretest`).
 */
import { defaultOptions, formatTable, runBenchmarks, type Report } from './bench';
import { formatSearchTable, searchBenchmark } from './search';

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
    subscriptionsPerSocket: 2,
    sagaTransfers: 2,
    sagaConcurrency: 2,
    latencyUsers: 3,
    upstreamSampleRequests: 40,
    smoke: true,
    only: [1, 2, 3, 4, 5, 6],
    log: (m: string) => (m.includes('differ') ? console.log(m) : undefined),
  });
});

const finite = (x: unknown) => typeof x === 'number' && Number.isFinite(x) && x > 0;

test('1: query ratio computed, same response as the baseline, constant SQL for a 100-row list', () => {
  const q = report.benchmarks.query;
  expect(finite(q.ratio)).toBe(true);
  expect(finite(q.leanRatio)).toBe(true);
  // measured at the same time as lean too: one ratio of CPU per request per round
  expect(q.paired.rounds).toHaveLength(1);
  expect(finite(q.paired.ratio)).toBe(true);
  expect(q.sameResponse).toBe(true);
  expect(q.list.rows100.rows).toBe(100);
  expect(q.list.rows100.queries).toBe(q.list.rows10.queries);
  expect(q.list.constant).toBe(true);
});

test('2: upstream-backed ratio computed, exactly one upstream call per request on both sides', () => {
  const u = report.benchmarks.upstream;
  expect(finite(u.ratio)).toBe(true);
  expect(finite(u.leanRatio)).toBe(true);
  expect(u.paired.rounds).toHaveLength(1);
  expect(finite(u.paired.ratio)).toBe(true);
  expect(u.sameResponse).toEqual({ lean: true, bare: true });
  // counted over one closed window per side: every request sent was answered, every call logged
  for (const w of [u.upstreamWindow.ours, u.upstreamWindow.lean, u.upstreamWindow.baseline]) {
    expect(w).toMatchObject({ requests: 40, sent: 40, ok: 40, errors: 0, timeouts: 0, exact: true });
    expect(w.calls).toBe(w.requests);
  }
  expect(u.upstreamCallsPerRequest).toEqual({ ours: 1, baseline: 1, lean: 1 });
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
  // two subscriptions on each of the 10 sockets: each is a subscriber that must get its own message per change
  expect(f).toMatchObject({ sockets: 10, subscriptionsPerSocket: 2, subscribers: 20 });
  expect(finite(f.ratio)).toBe(true);
  expect(f.ours.missing).toBe(0);
  expect(f.baseline_.missing).toBe(0);
  // the per-subscriber cost broken down (connected only, subscribed, raw socket): measured, whatever the figures
  for (const k of ['connectedRss', 'connectedHeap', 'subscribedHeap', 'rawHeap', 'subscriptionHeap', 'usPerMessage'])
    expect(Number.isFinite(f.perSocket[k])).toBe(true);
  expect(JSON.parse(f.message)).toMatchObject({ type: 'next', payload: { data: { transferUpdated: { status: 'PAYOUT_PENDING' } } } });
});

test('5: every transfer COMPLETED with exactly the minimum upstream calls and at most 40 statements each, its time broken down', () => {
  const s = report.benchmarks.saga;
  expect(s.statuses).toEqual({ COMPLETED: 2 });
  // from createTransfer on, each operation exactly as often as the flow needs it: authorization, platform read and
  // capture, once per transfer (the person, the customer's own card checks and the
  // quotes are made before the window)
  // the customer checked each card moments before (APPROVED): no transfer checks its card again
  expect(s.upstream['POST /gateway/v2/check-card-account'] ?? { calls: 0, minimum: 0 }).toEqual({ calls: 0, minimum: 0 });
  for (const op of [
    'POST /gateway/v2/payment',
    'GET /remittances/organizations/:tenant/fx/transactions/:id',
    'POST /gateway/payments/:id/capture',
  ])
    expect(s.upstream[op]).toEqual({ calls: 2, minimum: 2 });
  expect(s.upstreamExcess).toEqual({});
  expect(s.ratios.upstream).toBe(1);
  expect(s.upstreamCallsPerTransfer).toBeLessThanOrEqual(3.5); // + an access token at most once per run
  // structural, not a timing: ≈ 15 platform events per transfer, each a mere fact recorded in one statement with its
  // delivery, or applied in two; an N+1, a re-read per saga step or a statement per poll tick would cross this bound
  expect(finite(s.statementsPerTransfer)).toBe(true);
  expect(s.statementsPerTransfer).toBeLessThanOrEqual(40);
  expect(Object.keys(s.statementsByPhase)).toEqual(expect.arrayContaining(['api', 'saga.worker', 'webhook.receive']));
  // createTransfer: the idempotency claim, its quote and sender read together, the funding credential, and one
  // statement writing the transfer, its first event, the quote's claim and the answer (5 with the reads apart).
  // Counted over the statements run for every transfer: a statement outside any phase (e.g. the backlog count of a
  // metrics scrape) is reported as `api` too, and one such in the window is 0.5 per transfer of two.
  const api = s.statementsByPhase.api as { statements: { sql: string; perTransfer: number }[] };
  const perTransfer = api.statements.filter((x) => x.perTransfer >= 1).reduce((n, x) => n + x.perTransfer, 0);
  expect(perTransfer).toBeLessThanOrEqual(4);
  expect(s.breakdown.phases.map((p: { phase: string }) => p.phase)).toEqual([
    'created → AUTHORIZED',
    'AUTHORIZED → CAPTURED',
    'CAPTURED → COMPLETED',
  ]);
  for (const p of s.breakdown.phases) expect(p.n).toBe(2);
  expect(s.breakdown.floorMs).toBeGreaterThan(0);
  expect(finite(s.ratio)).toBe(true);
});

test('6: the latency of createQuote and createTransfer as an app sees it, with the upstream share', () => {
  const l = report.benchmarks.latency;
  expect(l.errors).toEqual({ createQuote: 0, createTransfer: 0 });
  for (const op of [l.createQuote, l.createTransfer]) {
    expect(op.n).toBeGreaterThan(0);
    expect(finite(op.p50) && finite(op.p99) && op.p99 >= op.p50).toBe(true);
  }
  // one FX quote per createQuote, none for createTransfer (its saga runs after the answer)
  expect(l.createQuote.upstreamCalls).toBe(l.createQuote.n);
  expect(l.createQuote.upstreamShare).toBeGreaterThan(0);
  expect(l.createQuote.upstreamShare).toBeLessThan(1);
  expect(l.createTransfer.upstreamShare).toBe(0);
});

test('the table lists the six benchmarks with their ratios', () => {
  const table = formatTable(report);
  for (const row of [
    '1. transfer(id)',
    '1. (paired with lean)',
    '2. banks',
    '2. (paired with lean)',
    '3. webhook ingest',
    '4. fan-out',
    '5. saga',
    '6. latency',
  ])
    expect(table).toContain(row);
  expect(table).toMatch(/\d\.\d\d×/);
});

test("7: the search benchmark seeds, runs the service's search and the details scan, and both find the same first page", async () => {
  const r = await searchBenchmark({
    rows: 3000,
    runs: 1,
    postgresUrl: /^postgres(ql)?:\/\//.test(process.env.DATABASE_URL ?? '') ? process.env.DATABASE_URL! : null,
  });
  expect(r.rows).toBe(3000);
  expect(r.results.map((x) => x.search)).toHaveLength(5);
  for (const x of r.results) {
    expect(x.matches).toBeGreaterThan(0);
    expect(finite(x.ratio)).toBe(true);
  }
  expect(formatSearchTable(r)).toMatch(/back-office search/);
});
