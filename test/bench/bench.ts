/**
 * The six side-by-side benchmarks. Every benchmark runs ours and its baseline in separate
 * processes on the server core, the load generator in another process on the other core, warm-up first,
 * then rounds alternating ours / baseline (the order flips every round). See docs/performance.md.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { DEFAULT_OPTIONS as SANDBOX_DEFAULTS } from '@remittance-bff/sandbox';
import { Child, detectPinning, percentile, wallMs, type Pinning } from './rpc';
import { BANKS_QUERY, SUBSCRIPTION_QUERY, TRANSFER_LIST_QUERY, TRANSFER_QUERY, transferId } from './seed';
import type { HttpResult, HttpRun } from './load';

export interface BenchOptions {
  /** Seconds per measured run (each round = one run of ours + one of the baseline). */
  durationS: number;
  warmupS: number;
  rounds: number;
  connections: number;
  subscribers: number;
  subscriberBlocks: number;
  /** Subscriptions each subscriber socket of benchmark 4 opens (more subscriptions than the sockets one process may hold). */
  subscriptionsPerSocket: number;
  /** Websocket subscriptions opened at once while connecting the subscribers of benchmark 4. */
  subscriberConnectParallel: number;
  sagaTransfers: number;
  sagaConcurrency: number;
  /** Benchmark 6: app users creating a quote, then a transfer, in a loop, at once. */
  latencyUsers: number;
  /** Requests of benchmark 2's closed upstream-count window, per side (at least `connections`). */
  upstreamSampleRequests: number;
  /**
   * Structure only (the smoke test): one service process for all six benchmarks (the saga worker started
   * for benchmark 5), baselines started while the service starts, minimal baseline seed, fast pollers. The
   * figures of a smoke run mean nothing; `npm run bench` keeps one fresh process per benchmark.
   */
  smoke: boolean;
  /** Benchmarks 1 and 2 also measured paired: ours and lean loaded at the same time (BENCH_PAIRED=0: not). */
  paired: boolean;
  only: number[];
  log: (line: string) => void;
}

export const defaultOptions = (env: NodeJS.ProcessEnv = process.env): BenchOptions => ({
  durationS: Number(env.BENCH_DURATION_S ?? 10),
  warmupS: Number(env.BENCH_WARMUP_S ?? 3),
  rounds: Number(env.BENCH_ROUNDS ?? 3),
  connections: Number(env.BENCH_CONNECTIONS ?? 100),
  subscribers: Number(env.BENCH_SUBSCRIBERS ?? 1000),
  subscriberBlocks: Number(env.BENCH_SUBSCRIBER_BLOCKS ?? 2),
  subscriptionsPerSocket: Number(env.BENCH_SUBSCRIPTIONS_PER_SOCKET ?? 1),
  subscriberConnectParallel: Number(env.BENCH_SUBSCRIBER_CONNECT_PARALLEL ?? 100),
  sagaTransfers: Number(env.BENCH_SAGA_TRANSFERS ?? 300),
  sagaConcurrency: Number(env.BENCH_SAGA_CONCURRENCY ?? 10),
  latencyUsers: Number(env.BENCH_LATENCY_USERS ?? 20),
  upstreamSampleRequests: Number(env.BENCH_UPSTREAM_SAMPLE ?? 2000),
  smoke: env.BENCH_SMOKE === '1',
  paired: env.BENCH_PAIRED !== '0',
  only: (env.BENCH_ONLY ?? '1,2,3,4,5,6,7').split(',').map(Number).filter(Boolean),
  log: (l) => process.stderr.write(`${l}\n`),
});

export interface Side {
  rps: number;
  p50: number;
  p99: number;
  /** CPU time of the server process per answered request, µs (median of the rounds; NaN when not measured). */
  cpuUs: number;
  rounds: (HttpResult & { cpuUs?: number })[];
}

/** An HTTP run and, to measure its CPU time per request, the server process it loads. */
type SideRun = HttpRun & { server?: Child };

export interface Report {
  startedAt: string;
  machine: { cpu: string; cores: number; memoryGiB: number; node: string; platform: string };
  pinning: Pinning;
  database: string;
  load: { before: number[]; after: number[]; perBenchmark: Record<string, number[]> };
  options: Omit<BenchOptions, 'log'>;
  benchmarks: Record<string, any>;
  notes: string[];
}

const median = (xs: number[]) =>
  percentile(
    [...xs].sort((a, b) => a - b),
    50,
  );

function summarize(rounds: (HttpResult & { cpuUs?: number })[]): Side {
  return {
    rps: median(rounds.map((r) => r.rps)),
    p50: median(rounds.map((r) => r.p50)),
    p99: median(rounds.map((r) => r.p99)),
    cpuUs: median(rounds.map((r) => r.cpuUs ?? NaN)),
    rounds,
  };
}

export async function postgresUrl(): Promise<string | null> {
  if (process.env.BENCH_DATABASE === 'pglite') return null;
  const candidates = [process.env.DATABASE_URL, process.env.BENCH_DATABASE_URL, 'postgresql://postgres@127.0.0.1:5432/test'].filter(
    (u): u is string => !!u && /^postgres(ql)?:\/\//.test(u),
  );
  for (const url of candidates) {
    const c = new pg.Client({ connectionString: url, connectionTimeoutMillis: 1500 });
    try {
      await c.connect();
      await c.end();
      return url;
    } catch {
      await c.end().catch(() => undefined);
    }
  }
  return null;
}

/** A throwaway PostgreSQL database (dropped at the end), or null → in-memory PGlite in every process. */
async function throwawayDatabase(): Promise<{ url: string | null; drop: () => Promise<void> }> {
  const admin = await postgresUrl();
  if (!admin) return { url: null, drop: async () => undefined };
  const name = `bench_${randomBytes(5).toString('hex')}`;
  const c = new pg.Client({ connectionString: admin });
  await c.connect();
  await c.query(`CREATE DATABASE ${name}`);
  await c.end();
  const u = new URL(admin);
  u.pathname = `/${name}`;
  return {
    url: u.toString(),
    drop: async () => {
      const d = new pg.Client({ connectionString: admin });
      await d.connect();
      await d.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`).catch(() => undefined);
      await d.end();
    },
  };
}

async function fetchJson(url: string, init: { method?: string; headers?: Record<string, string>; body?: string } = {}): Promise<any> {
  const r = await fetch(url, init);
  const text = await r.text();
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** The sandbox's call log length once two reads 25 ms apart agree (a call is logged when its response is sent). */
async function settledCount(url: string): Promise<number> {
  let last = -1;
  for (;;) {
    const n = ((await fetchJson(url)) as unknown[]).length;
    if (n === last) return n;
    last = n;
    await new Promise((r) => setTimeout(r, 25));
  }
}

/** A TCP port free on loopback right now (the service under test listens on it: its PUBLIC_URL must be known before). */
async function freePort(): Promise<number> {
  const srv = net.createServer();
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  const { port } = srv.address() as net.AddressInfo;
  await new Promise((r) => srv.close(r));
  return port;
}

const gqlBody = (query: string, variables?: unknown) => JSON.stringify({ query, variables });
/** The service's upstream base URLs, all three on the sandbox at `sandboxUrl` (none when there is no sandbox yet). */
const upstreamEnvOf = (sandboxUrl: string): Record<string, string> =>
  sandboxUrl
    ? {
        GATEWAY_BASE_URL: `${sandboxUrl}/gateway`,
        REMITTANCES_BASE_URL: `${sandboxUrl}/remittances`,
        VERIFICATION_BASE_URL: `${sandboxUrl}/verification`,
      }
    : {};

const gqlHeaders = (token: string) => ({
  'content-type': 'application/json',
  accept: 'application/json',
  authorization: `Bearer ${token}`,
});

/** One HTTP run from `load`; with its `server`, that process's CPU time per answered request (µs), else NaN. */
async function measuredRun(load: Child, { server, ...run }: SideRun, durationS: number): Promise<HttpResult & { cpuUs: number }> {
  const cpu0 = server ? await server.call<number>('cpu') : NaN;
  const r = await load.call<HttpResult>('http', { ...run, durationS });
  const cpuUs = server ? ((await server.call<number>('cpu')) - cpu0) / Math.max(1, r.total) : NaN;
  return { ...r, cpuUs };
}

/**
 * Warm-up of every side (unless warmupS is 0), then `rounds` rounds running each side once, in the order given on
 * even rounds and reversed on odd ones (so no side always follows the same one); `before`/`after` run around each
 * measured run.
 */
async function alternate<K extends string>(
  load: Child,
  o: BenchOptions,
  runs: Record<K, SideRun>,
  hooks: { before?: (who: K) => Promise<void>; after?: (who: K, r: HttpResult) => Promise<void> } = {},
): Promise<Record<K, Side>> {
  const sides = Object.keys(runs) as K[];
  if (o.warmupS > 0) for (const who of sides) await measuredRun(load, { ...runs[who], server: undefined }, o.warmupS);
  const res = Object.fromEntries(sides.map((k) => [k, [] as Side['rounds']])) as Record<K, Side['rounds']>;
  for (let i = 0; i < o.rounds; i++) {
    const order = i % 2 === 0 ? sides : [...sides].reverse();
    for (const who of order) {
      await hooks.before?.(who);
      const r = await measuredRun(load, runs[who], o.durationS);
      await hooks.after?.(who, r);
      res[who].push(r);
      o.log(
        `    round ${i + 1} ${who.padEnd(8)} ${r.rps.toFixed(0).padStart(7)} req/s  p50 ${r.p50} ms  p99 ${r.p99} ms  non2xx ${r.non2xx} errors ${r.errors}${Number.isNaN(r.cpuUs) ? '' : `  CPU ${r.cpuUs.toFixed(0)} µs/request`}`,
      );
    }
  }
  return Object.fromEntries(sides.map((k) => [k, summarize(res[k])])) as Record<K, Side>;
}

/** Ours and lean measured at the same time (see `paired`): lean's CPU per request over ours, per round and median. */
export interface Paired {
  rounds: { ours: { rps: number; cpuUs: number }; lean: { rps: number; cpuUs: number }; ratio: number }[];
  ratio: number;
}

/**
 * Ours and lean loaded at the same time, `rounds` times: both servers on the server core, each driven by its own
 * load process on the load core. A slow phase of a shared host then hits both sides alike, so the ratio of their
 * CPU per request holds far tighter than that of sequential rounds (throughput is not compared: the two share a
 * core). Reported as lean's CPU per request over ours — 1 is no overhead over the stack's floor.
 */
async function paired(loads: [Child, Child], o: BenchOptions, runs: { ours: SideRun; lean: SideRun }): Promise<Paired> {
  const rounds: Paired['rounds'] = [];
  for (let i = 0; i < o.rounds; i++) {
    const [ours, lean] = await Promise.all([measuredRun(loads[0], runs.ours, o.durationS), measuredRun(loads[1], runs.lean, o.durationS)]);
    rounds.push({ ours: { rps: ours.rps, cpuUs: ours.cpuUs }, lean: { rps: lean.rps, cpuUs: lean.cpuUs }, ratio: lean.cpuUs / ours.cpuUs });
    o.log(
      `    paired round ${i + 1}: ours ${ours.rps.toFixed(0)} req/s ${ours.cpuUs.toFixed(0)} µs/request, lean ${lean.rps.toFixed(0)} req/s ${lean.cpuUs.toFixed(0)} µs/request at the same time: lean/ours CPU ${(lean.cpuUs / ours.cpuUs).toFixed(2)}`,
    );
  }
  return { rounds, ratio: median(rounds.map((r) => r.ratio)) };
}

export async function runBenchmarks(o: BenchOptions): Promise<Report> {
  // smoke: structure only, so every process may use every core
  const pinning: Pinning = o.smoke
    ? { ...detectPinning(), pinned: false, serverCore: null, loadCore: null, note: 'not pinned (smoke run)' }
    : detectPinning();
  const db = await throwawayDatabase();
  // Benchmarks 5 and 6 each get a database of their own: benchmark 3 leaves tens of thousands of inbox events behind
  // (and 5 its transfers), whose draining would run beside (and be counted in) the next one's work
  const flowDbs: Awaited<ReturnType<typeof throwawayDatabase>>[] = [];
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'rbff-bench-'));
  const report: Report = {
    startedAt: new Date().toISOString(),
    machine: {
      cpu: os.cpus()[0]?.model ?? '?',
      cores: os.cpus().length,
      memoryGiB: Math.round((os.totalmem() / 2 ** 30) * 10) / 10,
      node: process.version,
      platform: `${os.platform()} ${os.release()}`,
    },
    pinning,
    database: db.url
      ? 'PostgreSQL (throwaway database on 127.0.0.1, shared by ours and the baselines)'
      : 'PGlite (in memory, one per process; no PostgreSQL reachable)',
    load: { before: os.loadavg(), after: [], perBenchmark: {} },
    options: { ...o, log: undefined } as never,
    benchmarks: {},
    notes: [],
  };
  delete (report.options as { log?: unknown }).log;
  o.log(
    `machine: ${report.machine.cpu} ×${report.machine.cores}, ${pinning.note}; database: ${report.database}; load average ${os
      .loadavg()
      .map((x) => x.toFixed(2))
      .join(' ')}`,
  );

  const children: Child[] = [];
  // BENCH_SERVER_NODE_ARGS: more node flags for every server (not the load generators), e.g. --trace-gc-nvp
  const serverNodeArgs = process.env.BENCH_SERVER_NODE_ARGS?.split(/\s+/).filter(Boolean) ?? [];
  const start = (name: string, script: string, core: number | null, nodeArgs?: string[]) => {
    // BENCH_CPU_PROF=<dir>: every server writes a V8 CPU profile there on exit (node --cpu-prof)
    const prof = process.env.BENCH_CPU_PROF
      ? ['--cpu-prof', `--cpu-prof-dir=${path.resolve(process.env.BENCH_CPU_PROF)}`, `--cpu-prof-name=${name}.cpuprofile`]
      : [];
    const c = Child.start(name, script, {
      core,
      nodeArgs: [...(nodeArgs ?? []), ...(name.startsWith('load') ? [] : [...prof, ...serverNodeArgs])],
    });
    children.push(c);
    return c;
  };
  const stop = async (c: Child) => {
    await c.stop();
    children.splice(children.indexOf(c), 1);
  };
  const baseEnv: Record<string, string> = {
    DATA_DIR: dataDir,
    DATABASE_URL: db.url ?? 'memory://',
    SAGA_WORKER_ENABLED: 'false',
    RATE_LIMIT_MUTATIONS_PER_MINUTE: '1000000',
    // one benchmark caller: its upstream budget and per-user socket cap would otherwise refuse the load itself
    RATE_LIMIT_UPSTREAM_POINTS_PER_MINUTE: '1000000',
    WS_MAX_SOCKETS_PER_USER: '100000',
    LOG_LEVEL: process.env.BENCH_LOG_LEVEL ?? 'fatal', // shutdown under load logs aborted requests
    ...(process.env.AUTH_TOKEN_CACHE_SIZE ? { AUTH_TOKEN_CACHE_SIZE: process.env.AUTH_TOKEN_CACHE_SIZE } : {}), // 0: every token verified
    ...(process.env.GRAPHQL_JIT ? { GRAPHQL_JIT: process.env.GRAPHQL_JIT } : {}), // false: graphql-js executes
    // the saga's, the inbox's and the database's tuning (benchmark 5; DATABASE_PREPARED_STATEMENTS=0 for every server), when set
    ...Object.fromEntries(
      ['SAGA_CONCURRENCY', 'SAGA_BATCH_SIZE', 'WEBHOOK_CONCURRENCY', 'DATABASE_POOL_MAX', 'DATABASE_PREPARED_STATEMENTS']
        .filter((k) => process.env[k])
        .map((k) => [k, process.env[k]!]),
    ),
  };
  const server = pinning.serverCore;
  const loadCore = pinning.loadCore;
  const load = start('load', 'load.ts', loadCore);
  // a second load generator, only for the paired measurements of 1 and 2 (BENCH_PAIRED=0: none)
  let load2: Child | null = null;
  const pairedLoads = (): [Child, Child] => [load, (load2 ??= start('load-2', 'load.ts', loadCore))];
  const mark = (k: string) => (report.load.perBenchmark[k] = os.loadavg());

  try {
    // smoke: one service process serves every benchmark, with its built-in sandbox as the upstream of 2 and 5
    // (it registers itself for the sandbox's webhooks, which the saga needs); its saga worker started for 5
    const shared = o.smoke && o.only.length > 0;
    const needMain = o.only.some((n) => n <= 3) || shared;
    let sandbox: Child | null = null;
    let sandboxUrl = '';
    if (!shared && o.only.some((n) => n === 2 || n === 3)) {
      sandbox = start('sandbox', 'servers/sandbox.ts', loadCore);
      sandboxUrl = (await sandbox.call<{ url: string }>('start')).url;
    }
    // Baselines start on first use; in smoke mode all at once, while the service starts.
    const launched = new Map<string, Promise<{ c: Child; info: any }>>();
    const launch = (name: string, script: string, args: unknown, nodeArgs?: string[]) => {
      let p = launched.get(name);
      if (!p) {
        const c = start(name, script, server, nodeArgs);
        p = c.call('start', args).then((info) => ({ c, info }));
        p.catch(() => undefined); // awaited (and reported) where it is used
        launched.set(name, p);
      }
      return p;
    };
    const baselines = {
      // transfer(id) of benchmark 1 is transferId(7): the smoke run seeds only what that query reads
      mercurius: () =>
        launch('mercurius', 'servers/mercurius.ts', {
          env: { ...baseEnv },
          seed: db.url ? undefined : { count: o.smoke ? 8 : 100, events: 5 },
        }),
      bareUpstream: () => launch('bare-upstream', 'servers/bare-upstream.ts', { gatewayUrl: `${sandboxUrl}/gateway` }),
      // benchmarks 1 and 2 (one process for both, like ours)
      lean: () =>
        launch('lean', 'servers/lean-apollo.ts', {
          env: { ...baseEnv },
          seed: db.url ? undefined : { count: o.smoke ? 8 : 100, events: 5 },
          gatewayUrl: sandboxUrl ? `${sandboxUrl}/gateway` : undefined,
          upstreamEnv: upstreamEnvOf(sandboxUrl), // what ours is given, for BENCH_LEAN_BALLAST
        }),
      bareWebhook: () => launch('bare-webhook', 'servers/bare-webhook.ts', { databaseUrl: db.url, secret: 'bench-webhook-secret' }),
      rawWs: () => launch('raw-ws', 'servers/raw-ws.ts', {}, ['--expose-gc']),
    };
    const stopLean = async () => {
      const p = launched.get('lean');
      launched.delete('lean');
      if (p) await stop((await p).c);
    };
    if (o.smoke) {
      if (o.only.includes(3)) void baselines.bareWebhook();
      if (o.only.includes(4)) void baselines.rawWs();
      if (o.only.includes(1) && !db.url) void baselines.mercurius(); // on PostgreSQL it migrates the shared database: after the service
    }
    // the transfers benchmark 4 changes (PENDING, ids distinct from the 100 of benchmarks 1–3)
    const fanoutSeed = { count: o.subscriberBlocks, events: 1, status: 'PENDING', from: 1000 };
    const smokeEnv: Record<string, string> = shared ? { WS_CONNECTION_INIT_TIMEOUT_MS: '60000', SAGA_POLL_INTERVAL_MS: '100' } : {};
    let ours: Child | null = null;
    let main: any = null;
    if (needMain) {
      ours = start('ours', 'servers/ours.ts', server, shared ? ['--expose-gc'] : undefined);
      const seed = [{ count: 100, events: 5 }, ...(shared && o.only.includes(4) ? [fanoutSeed] : [])];
      main = await ours.call('start', {
        env: { ...baseEnv, ...upstreamEnvOf(sandboxUrl), ...smokeEnv },
        seed,
        webhookSecret: 'bench-webhook-secret',
      });
      if (shared) sandboxUrl = main.sandboxUrl;
    }

    /**
     * Starts the service in `c` with its saga worker, on a database of its own, against the sandbox in its own process
     * on the load generator's core (started if needed) — as the real upstreams are elsewhere, the service's core does
     * only the service's work — registered for the sandbox's webhooks at its PUBLIC_URL.
     */
    const startWithSaga = async (c: Child) => {
      if (!sandbox) {
        sandbox = start('sandbox', 'servers/sandbox.ts', loadCore);
        sandboxUrl = (await sandbox.call<{ url: string }>('start')).url;
      }
      const port = await freePort();
      const own = db.url ? await throwawayDatabase() : null;
      if (own) flowDbs.push(own);
      return c.call<{ url: string; token: string }>('start', {
        env: {
          ...baseEnv,
          ...(own?.url ? { DATABASE_URL: own.url } : {}),
          SAGA_WORKER_ENABLED: 'true',
          PORT: String(port),
          PUBLIC_URL: `http://127.0.0.1:${port}`,
          ...upstreamEnvOf(sandboxUrl),
        },
      });
    };

    // ── 1. query throughput ──────────────────────────────────────────────────────────────────────
    if (o.only.includes(1) && ours) {
      o.log('1. transfer(id) with events: ours vs lean Apollo + TypeGraphQL + graphql-jit vs mercurius + graphql-jit');
      const { c: merc, info: m } = await baselines.mercurius();
      const { c: lean, info: l } = await baselines.lean();
      const id = transferId(7);
      const body = gqlBody(TRANSFER_QUERY, { id });
      const answers = await Promise.all(
        [main.url, l.url, m.url].map((url: string) =>
          fetchJson(`${url}/graphql`, { method: 'POST', headers: gqlHeaders(main.token), body }),
        ),
      );
      const [a, ...others] = answers.map((x) => JSON.stringify(x));
      const sameResponse = !!answers[0]?.data?.transfer && others.every((x) => x === a);
      if (!sameResponse) o.log(`   responses differ!\n   ours: ${a}\n   lean: ${others[0]}\n   mercurius: ${others[1]}`);
      // constant query count: a list of 100 transfers with events vs a list of 10
      // the counter sees every statement of the process: a background poll (webhook processor) landing in
      // the window adds to it, never removes, so the fewest of three tries is the request's own count
      const count = async (reqBody: string) => {
        let best = { rows: 0, queries: Infinity };
        for (let k = 0; k < 3; k++) {
          await ours!.call('queriesStart');
          const r = await fetchJson(`${main.url}/graphql`, { method: 'POST', headers: gqlHeaders(main.token), body: reqBody });
          const c = await ours!.call<{ count: number }>('queriesStop');
          if (c.count < best.queries) best = { rows: r?.data?.transfers?.edges?.length ?? 0, queries: c.count };
        }
        return best;
      };
      const list100 = await count(gqlBody(TRANSFER_LIST_QUERY));
      const list10 = await count(gqlBody(TRANSFER_LIST_QUERY.replace('first: 100', 'first: 10')));
      const single = (await count(body)).queries;
      const run = (url: string, server: Child): SideRun => ({
        server,
        url: `${url}/graphql`,
        method: 'POST',
        headers: gqlHeaders(main.token),
        body,
        connections: o.connections,
        durationS: o.durationS,
      });
      const r = await alternate(load, o, { ours: run(main.url, ours), lean: run(l.url, lean), baseline: run(m.url, merc) });
      const pairedRun = o.paired ? await paired(pairedLoads(), o, { ours: run(main.url, ours), lean: run(l.url, lean) }) : null;
      await stop(merc);
      if (!o.only.includes(2)) await stopLean();
      report.benchmarks.query = {
        title: 'transfer(id) with events',
        baseline: 'mercurius + graphql-jit (same SDL subset, Prisma queries, data, token check)',
        lean: 'Apollo Server 5 + TypeGraphQL (the same resolver classes) + graphql-jit, same Prisma queries and token check, nothing else',
        ours: r.ours,
        lean_: r.lean,
        baseline_: r.baseline,
        leanRatio: r.ours.rps / r.lean.rps,
        paired: pairedRun,
        ratio: r.ours.rps / r.baseline.rps,
        sameResponse,
        queriesPerRequest: single,
        list: { rows100: list100, rows10: list10, constant: list100.queries === list10.queries && list100.rows === 100 },
        target: '≥ 0.9× lean; ≥ 0.8× mercurius',
      };
      mark('query');
    }

    // ── 2. upstream-backed query ─────────────────────────────────────────────────────────────────
    if (o.only.includes(2) && ours && sandboxUrl) {
      o.log(
        '2. banks(countryCode: "BR", first: 20): ours vs lean Apollo + TypeGraphQL + graphql-jit vs a bare Fastify route, same undici call',
      );
      const { c: bare, info: b } = await baselines.bareUpstream();
      const { c: lean, info: l } = await baselines.lean();
      const banksOf = async (url: string) =>
        fetchJson(`${url}/graphql`, { method: 'POST', headers: gqlHeaders(main.token), body: gqlBody(BANKS_QUERY) });
      const sample = await banksOf(main.url);
      if (!sample?.data?.banks) throw new Error(`banks query failed: ${JSON.stringify(sample)}`);
      const leanSample = await banksOf(l.url);
      // the bare route answers the gateway's own JSON: the same banks, before the GraphQL shape
      const bareSample = (await fetchJson(`${b.url}/banks`)) as {
        banks?: { bankCode: string; bankName: string; countryCode: string; swift?: string }[];
      };
      const bareNodes = (bareSample.banks ?? []).map((x) => ({
        bankCode: x.bankCode,
        name: x.bankName,
        countryCode: x.countryCode,
        swift: x.swift ?? null,
      }));
      const oursNodes = (sample.data.banks.edges as { node: unknown }[]).map((e) => e.node);
      const sameResponse = {
        lean: JSON.stringify(sample) === JSON.stringify(leanSample),
        bare: oursNodes.length > 0 && JSON.stringify(oursNodes) === JSON.stringify(bareNodes),
      };
      if (!sameResponse.lean || !sameResponse.bare)
        o.log(
          `   responses differ!\n   ours: ${JSON.stringify(sample)}\n   lean: ${JSON.stringify(leanSample)}\n   bare: ${JSON.stringify(bareSample)}`,
        );
      const gqlRun = (url: string): HttpRun => ({
        url: `${url}/graphql`,
        method: 'POST',
        headers: gqlHeaders(main.token),
        body: gqlBody(BANKS_QUERY),
        connections: o.connections,
        durationS: o.durationS,
      });
      const oursRun = gqlRun(main.url);
      const leanRun = gqlRun(l.url);
      const baseRun: HttpRun = { url: `${b.url}/banks`, method: 'GET', connections: o.connections, durationS: o.durationS };
      // Upstream calls per request, exactly: one closed window per side. The sandbox's call log is emptied,
      // the load generator sends exactly `n` requests at `connections` concurrency and returns only once each
      // one was answered (a timed run instead cuts off the requests in flight when it closes its connections,
      // and they still reach the upstream), then the log is read once it has settled. Calls and requests are
      // counted over the same window; any error, timeout or non-2xx marks the window inexact.
      const n = Math.max(o.connections, o.upstreamSampleRequests);
      const countWindow = async (run: HttpRun) => {
        await fetch(`${sandboxUrl}/__sandbox/calls`, { method: 'DELETE' });
        const res = await load.call<HttpResult>('http', { ...run, amount: n });
        const calls = await settledCount(`${sandboxUrl}/__sandbox/calls?path=/gateway/bank/list`);
        const exact = res.total === n && res.sent === n && res.ok === n && res.errors === 0 && res.timeouts === 0;
        return {
          requests: res.total,
          sent: res.sent,
          ok: res.ok,
          errors: res.errors,
          timeouts: res.timeouts,
          calls,
          perRequest: calls / Math.max(1, res.total),
          exact,
        };
      };
      const windows = { ours: await countWindow(oursRun), lean: await countWindow(leanRun), baseline: await countWindow(baseRun) };
      for (const [who, w] of Object.entries(windows))
        o.log(
          `    ${who.padEnd(8)} ${w.calls} upstream calls for ${w.requests} requests${w.exact ? '' : ` (inexact: sent ${w.sent}, 2xx ${w.ok}, errors ${w.errors}, timeouts ${w.timeouts})`}`,
        );
      const r = await alternate(load, o, {
        ours: { ...oursRun, server: ours },
        lean: { ...leanRun, server: lean },
        baseline: { ...baseRun, server: bare },
      });
      const pairedRun = o.paired
        ? await paired(pairedLoads(), o, { ours: { ...oursRun, server: ours }, lean: { ...leanRun, server: lean } })
        : null;
      await stop(bare);
      await stopLean();
      const perReq = { ours: windows.ours.perRequest, lean: windows.lean.perRequest, baseline: windows.baseline.perRequest };
      const ws = Object.values(windows);
      report.benchmarks.upstream = {
        title: 'banks (one upstream page)',
        baseline: 'bare Fastify route, same undici call (no auth, no GraphQL)',
        lean: "Apollo Server 5 + TypeGraphQL (the same resolver and service) + graphql-jit, the bare route's undici call, token check, nothing else",
        ours: r.ours,
        lean_: r.lean,
        baseline_: r.baseline,
        leanRatio: r.ours.rps / r.lean.rps,
        paired: pairedRun,
        ratio: r.ours.rps / r.baseline.rps,
        sameResponse,
        upstreamCallsPerRequest: perReq,
        upstreamWindow: windows,
        sameCalls: ws.every((w) => w.exact && w.calls * ws[0]!.requests === ws[0]!.calls * w.requests),
        target: '≥ 0.9× lean; ≥ 0.33× the bare route; same upstream calls',
      };
      mark('upstream');
    }

    // ── 3. webhook ingest ────────────────────────────────────────────────────────────────────────
    if (o.only.includes(3) && ours) {
      o.log('3. signed webhook ingest: ours (verify + inbox dedupe + processor) vs bare HMAC + INSERT … ON CONFLICT DO NOTHING');
      const { c: bare, info: b } = await baselines.bareWebhook();
      const drains: number[] = [];
      const backlog: number[] = [];
      let pendingBefore = 0;
      const webhookRun = (server: Child, origin: string): SideRun => ({
        server,
        url: `${origin}/webhooks/remittances`,
        connections: o.connections,
        durationS: o.durationS,
        webhook: { secret: 'bench-webhook-secret' },
      });
      const drainMs = Number(process.env.BENCH_DRAIN_S ?? 15) * 1000;
      const r = await alternate(
        load,
        o,
        { ours: webhookRun(ours, main.url), baseline: webhookRun(bare, b.url) },
        {
          before: async (who) => {
            if (who === 'ours') pendingBefore = await ours!.call<number>('inboxPending');
          },
          after: async (who, res) => {
            if (who !== 'ours') return;
            // the processor applies what was acknowledged: give it a bounded drain window, count what it applied
            const t0 = wallMs();
            let pending: number;
            for (;;) {
              pending = await ours!.call<number>('inboxPending');
              if (pending === 0 || wallMs() - t0 > drainMs) break;
              await new Promise((x) => setTimeout(x, 100));
            }
            drains.push((pendingBefore + res.ok - pending) / (res.durationS + (wallMs() - t0) / 1000));
            backlog.push(pending);
          },
        },
      );
      await stop(bare);
      report.benchmarks.webhooks = {
        title: 'signed webhook ingest (acknowledged events/s)',
        baseline: `bare Fastify route: HMAC + one INSERT … ON CONFLICT DO NOTHING (${b.dbKind})`,
        ours: r.ours,
        baseline_: r.baseline,
        ratio: r.ours.rps / r.baseline.rps,
        p99Ratio: r.ours.p99 / r.baseline.p99,
        processedPerSecond: median(drains),
        backlogAfterDrain: backlog,
        target: '≥ 0.5×, p99 ≤ 2× the bare route',
      };
      mark('webhooks');
    }
    if (ours && !shared) await stop(ours);
    if (sandbox && !shared) {
      await stop(sandbox);
      sandbox = null;
    }

    // ── 4. subscription fan-out ──────────────────────────────────────────────────────────────────
    if (o.only.includes(4)) {
      const n = o.subscribers; // sockets
      const subsPerSocket = o.subscriptionsPerSocket;
      const total = n * subsPerSocket; // subscribers: one per subscription
      o.log(
        `4. fan-out to ${total} subscribers${subsPerSocket > 1 ? ` (${n} sockets × ${subsPerSocket} subscriptions)` : ''}: graphql-ws transferUpdated vs a raw ws broadcast of the same JSON`,
      );
      const subsOurs = shared && ours ? ours : start('ours-ws', 'servers/ours.ts', server, ['--expose-gc']);
      const s =
        shared && ours
          ? main
          : await subsOurs.call('start', { env: { ...baseEnv, WS_CONNECTION_INIT_TIMEOUT_MS: '60000' }, seed: fanoutSeed });
      const { c: raw, info: rw } = await baselines.rawWs();
      const wsUrl = `${s.url.replace(/^http/, 'ws')}/graphql`;
      const steps: [string, string][] = [
        ['AUTHORIZED', 'worker'],
        ['CAPTURED', 'worker'],
        ['PAYOUT_PENDING', 'webhook'],
      ];
      const lat = { ours: [] as number[][], baseline: [] as number[][] };
      const rate = { ours: [] as number[], baseline: [] as number[] };
      const mem = { ours: [] as number[], baseline: [] as number[] };
      // whole-process resident memory once the subscribers are connected and after their deliveries (the target's "< 1 GiB")
      const rss = { ours: [] as number[], baseline: [] as number[] };
      const missing = { ours: 0, baseline: 0 };
      let json = '';
      const timeoutMs = Math.max(30_000, total * 10);
      // What a subscriber costs, broken down (first block): the same number of graphql-ws connections that only
      // connected (connection_init → ack) first, then the subscribers; the raw ws sockets of the baseline below
      const perSocket = { connectedRss: NaN, connectedHeap: NaN, subscribedHeap: NaN, rawHeap: NaN };
      for (let blk = 0; blk < o.subscriberBlocks; blk++) {
        const id = transferId(1000 + blk);
        if (blk === 0) {
          const i0 = await subsOurs.call('mem');
          await load.call(
            'wsConnect',
            { url: wsUrl, n, mode: 'graphql-ws-idle', token: s.token, parallel: o.subscriberConnectParallel },
            timeoutMs * 4,
          );
          const i1 = await subsOurs.call('mem');
          perSocket.connectedRss = ((i1.rss - i0.rss) / n) * 1000;
          perSocket.connectedHeap = ((i1.heapUsed - i0.heapUsed) / n) * 1000;
          await load.call('wsClose');
        }
        // ours
        const m0 = await subsOurs.call('mem');
        const c = await load.call(
          'wsConnect',
          {
            url: wsUrl,
            n,
            mode: 'graphql-ws',
            token: s.token,
            query: SUBSCRIPTION_QUERY,
            variables: { id },
            parallel: o.subscriberConnectParallel,
            perSocket: subsPerSocket,
          },
          timeoutMs * 4,
        );
        const m1 = await subsOurs.call('mem');
        if (blk === 0) perSocket.subscribedHeap = ((m1.heapUsed - m0.heapUsed) / n) * 1000;
        mem.ours.push(((m1.rss - m0.rss) / total) * 1000);
        rss.ours.push(m1.rss);
        o.log(
          `    block ${blk + 1} ours: ${c.connected} subscribed in ${(c.ms / 1000).toFixed(1)} s, +${((m1.rss - m0.rss) / 2 ** 20).toFixed(0)} MiB RSS (${(m1.rss / 2 ** 20).toFixed(0)} MiB in all, heap ${(m1.heapUsed / 2 ** 20).toFixed(0)} MiB)`,
        );
        for (const [to, cause] of steps) {
          await load.call('wsArm');
          const t = await subsOurs.call('transition', { transferId: id, to, cause });
          const w = await load.call('wsWait', { timeoutMs });
          const l = (w.at as number[]).map((x) => x - t.t0).sort((x, y) => x - y);
          lat.ours.push(l);
          missing.ours += w.missing;
          rate.ours.push((w.received / ((w.at as number[]).reduce((a, b) => Math.max(a, b), -Infinity) - t.t0)) * 1000);
          json = w.sample;
          o.log(`      → ${to}: p50 ${percentile(l, 50).toFixed(1)} ms p99 ${percentile(l, 99).toFixed(1)} ms, missing ${w.missing}`);
        }
        rss.ours.push((await subsOurs.call('mem')).rss);
        await load.call('wsClose');
        // baseline: the same JSON (the last graphql-ws `next` message ours sent), broadcast by raw ws
        const r0 = await raw.call('mem');
        await load.call(
          'wsConnect',
          { url: rw.url, n, mode: 'raw', parallel: o.subscriberConnectParallel, perSocket: subsPerSocket },
          timeoutMs * 4,
        );
        const r1 = await raw.call('mem');
        if (blk === 0) perSocket.rawHeap = ((r1.heapUsed - r0.heapUsed) / n) * 1000;
        mem.baseline.push(((r1.rss - r0.rss) / total) * 1000);
        rss.baseline.push(r1.rss);
        for (let k = 0; k < steps.length; k++) {
          await load.call('wsArm');
          const t = await raw.call('broadcast', { json, times: subsPerSocket });
          const w = await load.call('wsWait', { timeoutMs });
          const l = (w.at as number[]).map((x) => x - t.t0).sort((x, y) => x - y);
          lat.baseline.push(l);
          missing.baseline += w.missing;
          rate.baseline.push((w.received / ((w.at as number[]).reduce((a, b) => Math.max(a, b), -Infinity) - t.t0)) * 1000);
        }
        await load.call('wsClose');
      }
      if (subsOurs !== ours) await stop(subsOurs);
      await stop(raw);
      const side = (k: 'ours' | 'baseline') => ({
        p50: median(lat[k].map((l) => percentile(l, 50))),
        p99: median(lat[k].map((l) => percentile(l, 99))),
        messagesPerSecond: median(rate[k]),
        rssPer1000: median(mem[k]),
        rssMax: Math.max(...rss[k]),
        missing: missing[k],
      });
      const so = side('ours');
      const sb = side('baseline');
      report.benchmarks.fanout = {
        title: `fan-out to ${total} subscribers`,
        baseline: 'raw ws broadcast of the same JSON',
        subscribers: total,
        sockets: n,
        subscriptionsPerSocket: subsPerSocket,
        ours: so,
        baseline_: sb,
        ratio: so.messagesPerSecond / sb.messagesPerSecond,
        // bytes per 1,000: a raw ws socket's heap; a graphql-ws connection that only connected (heap, RSS); what its
        // subscription adds to the heap; and the time of the (pinned, busy) server core per delivered message
        perSocket: {
          ...perSocket,
          // per 1,000 subscriptions (a socket carries subsPerSocket)
          subscriptionHeap: (perSocket.subscribedHeap - perSocket.connectedHeap) / subsPerSocket,
          usPerMessage: 1e6 / so.messagesPerSecond,
          rawUsPerMessage: 1e6 / sb.messagesPerSecond,
        },
        message: json,
        target: '50,000 subscribers: delivery p99 < 1 s, < 2 GiB RSS',
      };
      mark('fanout');
    }

    // ── 5. saga throughput ───────────────────────────────────────────────────────────────────────
    if (o.only.includes(5)) {
      o.log(
        `5. saga: ${o.sagaTransfers} transfers, createTransfer → COMPLETED, against the sandbox (zero latency; ${o.smoke ? 'built in' : 'its own process'})`,
      );
      // smoke: the shared service (its built-in sandbox), its worker started now. Otherwise the upstreams are the
      // sandbox in its own process on the load generator's core — as the real upstreams are elsewhere, the service's
      // core does only the service's work — and the service registers for its webhooks at its PUBLIC_URL.
      const sharedSaga = shared && ours && sandboxUrl ? ours : null;
      const sagaOurs = sharedSaga ?? start('ours-saga', 'servers/ours.ts', server);
      let s: { url: string; token: string; sandboxUrl: string };
      if (sharedSaga) {
        s = { url: main.url, token: main.token, sandboxUrl };
        await sagaOurs.call('startSagaWorker');
      } else {
        const started = await startWithSaga(sagaOurs);
        s = { url: started.url, token: started.token, sandboxUrl };
      }
      await fetch(`${s.sandboxUrl}/__sandbox/faults`, { method: 'DELETE' });
      // Before the window: the customer's person, its checked cards and one quote per transfer.
      const lone = o.smoke ? 0 : 3; // transfers run one at a time after the burst: the time the flow takes unloaded
      await load.call('sagaPrepare', { url: s.url, token: s.token, n: o.sagaTransfers + lone, concurrency: o.sagaConcurrency }, 300_000);
      // Statements of the idle service (the worker's and the inbox processor's polls) over a quiet window: the
      // run's count minus this rate × its duration is the transfers' own work. (The bench's own status reads are
      // tagged and never counted.)
      type Counted = {
        count: number;
        byKind: Record<string, number>;
        topStatements: [string, number][];
        byPhase: Record<string, { count: number; statements: [string, number][] }>;
        cpuMs: number;
      };
      const idleMs = o.smoke ? 1000 : 5000;
      await sagaOurs.call('queriesStart');
      const i0 = wallMs();
      await new Promise((x) => setTimeout(x, idleMs));
      const idle = await sagaOurs.call<Counted>('queriesStop');
      const idleS = (wallMs() - i0) / 1000;
      const idlePerSecond = idle.count / idleS;
      await fetch(`${s.sandboxUrl}/__sandbox/calls`, { method: 'DELETE' });
      const windowProfile = process.env.BENCH_WINDOW_PROF ? path.resolve(process.env.BENCH_WINDOW_PROF, 'saga-window.cpuprofile') : null;
      if (windowProfile) await sagaOurs.call('profileStart');
      await sagaOurs.call('queriesStart');
      // CPU of the other side of the window (µs so far): the sandbox (a stand-in for three remote platforms, here
      // sharing the load generator's core) and the load generator itself — to see which core bounds the throughput
      const otherCpu0 = { sandbox: sandbox ? await sandbox.call<number>('cpu') : NaN, load: await load.call<number>('cpu') };
      const w0 = wallMs();
      const d = await load.call('saga', {
        url: s.url,
        token: s.token,
        n: o.sagaTransfers,
        concurrency: o.sagaConcurrency,
        keyPrefix: `bench-${Date.now()}`,
      });
      const terminal = ['COMPLETED', 'VOIDED', 'DECLINED', 'FAILED', 'EXPIRED', 'REJECTED'];
      let statuses: Record<string, number> = {};
      const deadline = wallMs() + 120_000 + o.sagaTransfers * 1000;
      o.log(
        `    ${d.ids.length} created in ${((d.created - d.started) / 1000).toFixed(1)} s; idle service: ${idlePerSecond.toFixed(1)} statements/s`,
      );
      let lastLog = wallMs();
      for (;;) {
        statuses = await sagaOurs.call('countStatus', { ids: d.ids });
        if (terminal.reduce((acc, k) => acc + (statuses[k] ?? 0), 0) === d.ids.length || wallMs() > deadline) break;
        if (wallMs() - lastLog > 5000) {
          lastLog = wallMs();
          o.log(`    ${((lastLog - d.started) / 1000).toFixed(0)} s: ${JSON.stringify(statuses)}`);
        }
        await new Promise((x) => setTimeout(x, 50));
      }
      const end = wallMs();
      const otherCpuMs = {
        sandbox: sandbox ? ((await sandbox.call<number>('cpu')) - otherCpu0.sandbox) / 1000 : NaN,
        load: ((await load.call<number>('cpu')) - otherCpu0.load) / 1000,
      };
      const q = await sagaOurs.call<Counted>('queriesStop');
      if (windowProfile) await sagaOurs.call('profileStop', { file: windowProfile });
      // the upstream calls of the window (before anything else calls the sandbox)
      const calls = (await fetchJson(`${s.sandboxUrl}/__sandbox/calls`)) as { service: string; method: string; path: string }[];
      const windowS = (end - w0) / 1000;
      // where the time went: ms from created to each status reached (first time), the inbox's received → processed lag
      const timeline = await sagaOurs.call<{
        byStatus: Record<string, number[]>;
        inbox: Record<string, number>;
        outcomes: unknown[];
        perTransfer: { created: number; approvedReceived: number | null; paidReceived: number | null; reached: Record<string, number> }[];
      }>('sagaTimeline', { ids: d.ids });
      const reached: Record<string, { n: number; p50: number; p99: number }> = {};
      for (const [k, v] of Object.entries(timeline.byStatus)) {
        const xs = [...v].sort((a, b) => a - b);
        reached[k] = { n: xs.length, p50: percentile(xs, 50), p99: percentile(xs, 99) };
      }
      const breakdown = sagaBreakdown(timeline.perTransfer, SANDBOX_DEFAULTS.lifecycleStepMs);
      // …and alone: each of `lone` transfers created once the previous one completed (no other work in the service)
      const aloneIds: string[] = [];
      for (let k = 0; k < lone; k++) {
        const one = await load.call<{ ids: string[] }>('saga', {
          url: s.url,
          token: s.token,
          n: 1,
          from: o.sagaTransfers + k,
          concurrency: 1,
          keyPrefix: `bench-alone-${Date.now()}`,
        });
        aloneIds.push(...one.ids);
        for (const until = wallMs() + 30_000; wallMs() < until;) {
          const st = await sagaOurs.call<Record<string, number>>('countStatus', { ids: one.ids });
          if (terminal.some((k2) => st[k2])) break;
          await new Promise((x) => setTimeout(x, 20));
        }
      }
      const alone = lone
        ? sagaBreakdown(
            (await sagaOurs.call<{ perTransfer: Parameters<typeof sagaBreakdown>[0] }>('sagaTimeline', { ids: aloneIds })).perTransfer,
            SANDBOX_DEFAULTS.lifecycleStepMs,
          )
        : null;
      if (alone)
        o.log(
          `    alone (${lone} transfers one at a time): createTransfer → COMPLETED p50 ${f0(alone.toCompletedP50)} ms, the sandbox's own steps ${alone.floorMs} ms; ` +
            alone.phases
              .map((p) => `${p.phase} ${f0(p.p50)} ms${p.trigger ? ` (ours from ${p.trigger} ${f0(p.oursP50)})` : ''}`)
              .join(', '),
        );
      for (const ph of breakdown.phases)
        o.log(
          `    ${ph.phase.padEnd(22)} p50 ${f0(ph.p50)} / p99 ${f0(ph.p99)} ms` +
            (ph.trigger
              ? ` = the platform until ${ph.trigger} received p50 ${f0(ph.platformP50)} ms (its own steps ${ph.floorMs} ms) + ours from then p50 ${f0(ph.oursP50)} ms`
              : ' (ours: no platform step on the way)'),
        );
      o.log(`    inbox (transaction events): ${JSON.stringify(timeline.inbox)}; outcomes ${JSON.stringify(timeline.outcomes)}`);
      if (!sharedSaga) {
        await stop(sagaOurs);
        // the sandbox would go on delivering to the stopped service's webhook URL: benchmark 6 starts its own
        if (sandbox && !shared) {
          await stop(sandbox);
          sandbox = null;
        }
      }
      const byOp: Record<string, number> = {};
      for (const c of calls) {
        const p = c.path
          .split('?')[0]!
          .replace(/[0-9a-f]{8}-[0-9a-f-]{27}/gi, ':id')
          .replace(/\/\d+(?=\/|$)/g, '/:n')
          .replace(/^\/remittances\/organizations\/[^/]+/, '/remittances/organizations/:tenant');
        const k = `${c.method} ${p}`;
        byOp[k] = (byOp[k] ?? 0) + 1;
      }
      // The minimum the flow needs from createTransfer on, per operation: one authorization per transfer, one read of the platform transaction per authorized transfer (a webhook's platform
      // id is confirmed before it is linked), one capture per transfer that reached CAPTURED; each service's access
      // token at most once (lifetime ≫ the run; it may have been fetched before the window). Anything else (a reconcile
      // read, a retry, a repeat) is above the minimum. (The person, the customer's own card checks and the quotes are
      // made before the window.)
      const n = d.ids.length;
      const minimumByOp: Record<string, number> = {
        // every card was checked (APPROVED) by the customer moments before the window: the transfers reuse those checks
        'POST /gateway/v2/check-card-account': 0,
        'GET /remittances/organizations/:tenant/fx/transactions/:id': reached.AUTHORIZED?.n ?? 0,
        'POST /gateway/v2/payment': reached.AUTHORIZED?.n ?? 0,
        'POST /gateway/payments/:id/capture': reached.CAPTURED?.n ?? 0,
        'POST /gateway/oauth/token': Math.min(1, byOp['POST /gateway/oauth/token'] ?? 0),
      };
      const ops = [...new Set([...Object.keys(minimumByOp), ...Object.keys(byOp)])];
      const upstream = Object.fromEntries(ops.map((k) => [k, { calls: byOp[k] ?? 0, minimum: minimumByOp[k] ?? 0 }]));
      const totalCalls = ops.reduce((a, k) => a + (byOp[k] ?? 0), 0);
      const totalMinimum = ops.reduce((a, k) => a + (minimumByOp[k] ?? 0), 0);
      const excess = Object.fromEntries(
        ops.filter((k) => (byOp[k] ?? 0) > (minimumByOp[k] ?? 0)).map((k) => [k, (byOp[k] ?? 0) - (minimumByOp[k] ?? 0)]),
      );
      const perTransfer = Object.fromEntries(Object.entries(byOp).map(([k, v]) => [k, Math.round((v / n) * 100) / 100]));
      const statementsNet = Math.max(0, q.count - idlePerSecond * windowS);
      // per kind of work, the idle polls of that kind subtracted
      const byPhase = Object.fromEntries(
        Object.entries(q.byPhase).map(([phase, v]) => {
          const idleRate = (idle.byPhase[phase]?.count ?? 0) / idleS;
          return [
            phase,
            {
              perTransfer: Math.round((Math.max(0, v.count - idleRate * windowS) / n) * 10) / 10,
              statements: v.statements.map(([sql, c]) => ({ sql, perTransfer: Math.round((c / n) * 100) / 100 })),
            },
          ];
        }),
      );
      const completed = [...(timeline.byStatus.COMPLETED ?? [])].sort((a, b) => a - b);
      const transfersPerSecond = (n / (end - d.started)) * 1000;
      const statementsPerTransfer = statementsNet / n;
      report.benchmarks.saga = {
        title: 'saga end to end (createTransfer → COMPLETED, sandbox webhooks)',
        transfers: n,
        statuses,
        transfersPerSecond,
        seconds: (end - d.started) / 1000,
        createSeconds: (d.created - d.started) / 1000,
        completedP50Ms: percentile(completed, 50),
        completedP99Ms: percentile(completed, 99),
        reached,
        breakdown,
        alone,
        inbox: timeline.inbox,
        statementsPerTransfer,
        // CPU time of the service process (with its built-in sandbox: the gateway, the platform and its deliveries) per
        // transfer, the idle polls' subtracted: independent of what else runs on the machine (wall times are not)
        cpuMsPerTransfer: Math.max(0, q.cpuMs - (idle.cpuMs / idleS) * windowS) / n,
        // the window's CPU use of each core's processes, as a share of the window (1 = a whole core busy)
        coreBusy: {
          service: q.cpuMs / (windowS * 1000),
          sandboxAndLoad: (otherCpuMs.sandbox + otherCpuMs.load) / (windowS * 1000),
        },
        sandboxCpuMsPerTransfer: otherCpuMs.sandbox / n,
        statementsRaw: q.count,
        idleStatementsPerSecond: idlePerSecond,
        windowSeconds: windowS,
        statementsByPhase: byPhase,
        statementsByKind: Object.fromEntries(Object.entries(q.byKind).map(([k, v]) => [k, Math.round((v / n) * 10) / 10])),
        topStatements: q.topStatements.map(([sql, c]) => ({ sql, perTransfer: Math.round((c / n) * 100) / 100 })),
        upstream,
        upstreamExcess: excess,
        upstreamCallsPerTransfer: totalCalls / n,
        upstreamMinimumPerTransfer: totalMinimum / n,
        upstreamByOperation: perTransfer,
        // the baseline: what the sandbox itself takes (its lifecycle steps on the way to COMPLETED), the upstream
        // calls the flow needs, and the targets
        baseline_: {
          toCompletedMs: breakdown.floorMs,
          upstreamCallsPerTransfer: totalMinimum / n,
          statementsPerTransfer: SAGA_TARGETS.statementsPerTransfer,
          transfersPerSecond: SAGA_TARGETS.transfersPerSecond,
        },
        ratios: {
          toCompleted: breakdown.floorMs / percentile(completed, 50),
          upstream: totalMinimum / totalCalls,
          statements: SAGA_TARGETS.statementsPerTransfer / statementsPerTransfer,
          throughput: transfersPerSecond / SAGA_TARGETS.transfersPerSecond,
        },
        ratio: breakdown.floorMs / percentile(completed, 50),
        target: `≤ ${SAGA_TARGETS.statementsPerTransfer} SQL/transfer, ≥ ${SAGA_TARGETS.transfersPerSecond} transfers/s, upstream calls = the minimum, time to COMPLETED bounded by the sandbox's own steps`,
      };
      mark('saga');
    }

    // ── 6. latency an app feels ──────────────────────────────────────────────────────────────────
    if (o.only.includes(6)) {
      o.log(
        `6. latency: ${o.latencyUsers} app users at once, each createQuote → createTransfer in a loop (the sagas running behind), against the sandbox (${o.smoke ? 'built in' : 'its own process'})`,
      );
      const sharedApp = shared && ours && sandboxUrl ? ours : null;
      const appOurs = sharedApp ?? start('ours-app', 'servers/ours.ts', server);
      let s: { url: string; token: string };
      if (sharedApp) {
        s = { url: main.url, token: main.token };
        if (!o.only.includes(5)) await appOurs.call('startSagaWorker');
      } else {
        s = await startWithSaga(appOurs);
      }
      await fetch(`${sandboxUrl}/__sandbox/faults`, { method: 'DELETE' });
      // the customer's person and the cards its users fund with, checked before the window (as an app does)
      await load.call('sagaPrepare', { url: s.url, token: s.token, n: o.latencyUsers, concurrency: o.latencyUsers }, 300_000);
      if (o.warmupS > 0)
        await load.call('appLatency', {
          url: s.url,
          token: s.token,
          users: o.latencyUsers,
          durationS: o.warmupS,
          keyPrefix: `warm-${Date.now()}`,
        });
      const m0 = parseMetrics(await (await fetch(`${s.url}/metrics`)).text());
      const r = await load.call<AppLatency>(
        'appLatency',
        { url: s.url, token: s.token, users: o.latencyUsers, durationS: o.durationS, keyPrefix: `lat-${Date.now()}` },
        o.durationS * 1000 + 120_000,
      );
      const m1 = parseMetrics(await (await fetch(`${s.url}/metrics`)).text());
      if (!sharedApp) await stop(appOurs);
      // The upstream share of an operation: the time its upstream calls took (our client's histogram, the same
      // process) over the time the operation took (the GraphQL histogram), both summed over the window.
      const delta = (name: string, labels: Record<string, string>) => sumOf(m1, name, labels) - sumOf(m0, name, labels);
      const share = (operation: string, answered: number, upstreamOps: string[]) => {
        const total = delta('graphql_request_duration_seconds_sum', { operation });
        const calls = upstreamOps.reduce((a, op) => a + delta('upstream_requests_total', { operation: op }), 0);
        const up = upstreamOps.reduce((a, op) => a + delta('upstream_request_duration_seconds_sum', { operation: op }), 0);
        return {
          upstreamShare: total > 0 ? up / total : NaN,
          upstreamMsPerRequest: (up * 1000) / Math.max(1, answered),
          upstreamCalls: calls,
        };
      };
      const quote = { ...r.createQuote, ...share('CreateQuote', r.createQuote.n, ['createFxQuote']) };
      // createTransfer calls no upstream before it answers (the saga does, after): its upstream share is what the
      // metrics show for it — none — and the createFxQuote calls above are all createQuote's
      const transfer = { ...r.createTransfer, upstreamShare: 0, upstreamMsPerRequest: 0 };
      for (const [op, x] of [
        ['createQuote', quote],
        ['createTransfer', transfer],
      ] as const)
        o.log(
          `    ${op.padEnd(15)} ${x.n} answered, p50 ${f0(x.p50)} / p99 ${f0(x.p99)} ms, mean ${f0(x.mean)} ms; upstream ${f0(x.upstreamMsPerRequest)} ms/request = ${(x.upstreamShare * 100).toFixed(0)} % of its time`,
        );
      report.benchmarks.latency = {
        title: `latency an app feels: ${o.latencyUsers} users, createQuote → createTransfer in a loop`,
        users: o.latencyUsers,
        seconds: o.durationS,
        createQuote: quote,
        createTransfer: transfer,
        // a closed loop without think time: what the users offer is what the instance manages (its core saturated,
        // the sagas of these transfers running on it too)
        transfersPerSecond: r.createTransfer.n / o.durationS,
        errors: r.errors,
        // the baseline: the upstream's own part of createQuote (the sandbox's answer as our client timed it)
        baseline_: { createQuoteUpstreamMs: quote.upstreamMsPerRequest },
        ratio: quote.upstreamShare,
        target: 'reported: p50/p99 per operation at 20 users and the upstream share',
      };
      mark('latency');
    }
  } finally {
    for (const c of [...children].reverse()) await c.stop().catch(() => undefined);
    await db.drop().catch(() => undefined);
    for (const d of flowDbs) await d.drop().catch(() => undefined);
    rmSync(dataDir, { recursive: true, force: true });
  }
  report.load.after = os.loadavg();
  return report;
}

type Latencies = { n: number; p50: number; p99: number; mean: number };
type AppLatency = { createQuote: Latencies; createTransfer: Latencies; errors: { createQuote: number; createTransfer: number } };

/** Prometheus text → samples (name, labels, value); enough for the counters and histogram sums read here. */
function parseMetrics(text: string): { name: string; labels: Record<string, string>; value: number }[] {
  const out: { name: string; labels: Record<string, string>; value: number }[] = [];
  for (const line of text.split('\n')) {
    const m = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!m) continue;
    const labels: Record<string, string> = {};
    for (const l of (m[2] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)) labels[l[1]!] = l[2]!;
    out.push({ name: m[1]!, labels, value: Number(m[3]) });
  }
  return out;
}

/** The sum of the samples of `name` whose labels include `labels`. */
const sumOf = (samples: ReturnType<typeof parseMetrics>, name: string, labels: Record<string, string>) =>
  samples.filter((x) => x.name === name && Object.entries(labels).every(([k, v]) => x.labels[k] === v)).reduce((a, x) => a + x.value, 0);

/** Benchmark 5's targets (docs/performance.md). */
export const SAGA_TARGETS = { statementsPerTransfer: 40, transfersPerSecond: 50 };

/**
 * Where a transfer's time went, per phase: p50/p99 of the phase; for the phases that wait on the platform, the part
 * until its decisive webhook was received (the sandbox's own lifecycle steps — `floorMs` — plus the delivery) and
 * ours from then on (applying it and the saga's step). The sandbox's steps on the way: compliance approval 6 steps
 * after the authorization (Created, PaymentProcessing, PaymentAuthorized, ProcessingPayout, PayoutAccepted, the
 * review), Paid 3 steps after the capture (PaymentCaptured, WaitingPayout, Paid).
 */
export function sagaBreakdown(
  per: { created: number; approvedReceived: number | null; paidReceived: number | null; reached: Record<string, number> }[],
  stepMs: number,
) {
  const sorted = (xs: (number | null | undefined)[]) =>
    xs.filter((x): x is number => typeof x === 'number' && Number.isFinite(x)).sort((a, b) => a - b);
  const diff = (a: number | null | undefined, b: number | null | undefined) => (a == null || b == null ? null : b - a);
  const phase = (
    name: string,
    from: (x: (typeof per)[number]) => number | null | undefined,
    to: (x: (typeof per)[number]) => number | null | undefined,
    trigger: { name: string; at: (x: (typeof per)[number]) => number | null | undefined; steps: number } | null,
  ) => {
    const total = sorted(per.map((x) => diff(from(x), to(x))));
    const platform = trigger ? sorted(per.map((x) => diff(from(x), trigger.at(x)))) : [];
    const oursPart = trigger ? sorted(per.map((x) => diff(trigger.at(x), to(x)))) : total;
    return {
      phase: name,
      n: total.length,
      p50: percentile(total, 50),
      p99: percentile(total, 99),
      trigger: trigger?.name ?? null,
      platformP50: trigger ? percentile(platform, 50) : 0,
      oursP50: percentile(oursPart, 50),
      floorMs: (trigger?.steps ?? 0) * stepMs,
    };
  };
  const phases = [
    phase(
      'created → AUTHORIZED',
      (x) => x.created,
      (x) => x.reached.AUTHORIZED,
      null,
    ),
    phase(
      'AUTHORIZED → CAPTURED',
      (x) => x.reached.AUTHORIZED,
      (x) => x.reached.CAPTURED,
      {
        name: 'compliance Approved',
        at: (x) => x.approvedReceived,
        steps: 6,
      },
    ),
    phase(
      'CAPTURED → COMPLETED',
      (x) => x.reached.CAPTURED,
      (x) => x.reached.COMPLETED,
      { name: 'Paid', at: (x) => x.paidReceived, steps: 3 },
    ),
  ];
  const total = sorted(per.map((x) => diff(x.created, x.reached.COMPLETED)));
  const floorMs = phases.reduce((a, p) => a + p.floorMs, 0);
  return { stepMs, floorMs, toCompletedP50: percentile(total, 50), beyondFloorP50: percentile(total, 50) - floorMs, phases };
}

const f0 = (x: number | undefined) => (x === undefined || Number.isNaN(x) ? '—' : x >= 100 ? x.toFixed(0) : x.toFixed(1));
const pct = (x: number | undefined) => (x === undefined || Number.isNaN(x) ? '—' : `${(x * 100).toFixed(0)} %`);
const mib = (bytes: number | undefined) => f0(bytes === undefined ? undefined : bytes / 2 ** 20);
const fx = (x: number | undefined) => (x === undefined || Number.isNaN(x) ? '—' : `${x.toFixed(2)}×`);

/** The row of a paired measurement (see `paired`): CPU per request of each side and lean's over ours. */
const pairedRow = (n: string, p: Paired) => {
  const cpu = (who: 'ours' | 'lean') => f0(median(p.rounds.map((r) => r[who].cpuUs)));
  return [
    `${n}. (paired with lean)`,
    `CPU ${cpu('ours')} µs/req`,
    `lean, at the same time: CPU ${cpu('lean')} µs/req`,
    fx(p.ratio),
    '≥ 0.9×',
    `lean's CPU per request over ours, both loaded at once on one core (rounds ${p.rounds.map((r) => r.ratio.toFixed(2)).join(', ')})`,
  ];
};

/** The table printed at the end (also pasted into docs/performance.md). */
export function formatTable(r: Report): string {
  const b = r.benchmarks;
  const rows: string[][] = [['benchmark', 'ours', 'baseline', 'ratio', 'target', 'notes']];
  const http = (x: Side, unit = 'req/s') =>
    `${f0(x.rps)} ${unit}, p50 ${x.p50} / p99 ${x.p99} ms${Number.isNaN(x.cpuUs) ? '' : `, CPU ${f0(x.cpuUs)} µs/req`}`;
  if (b.query) {
    const q = b.query;
    const notes = `same response (ours, lean, mercurius): ${q.sameResponse}; ${q.queriesPerRequest} SQL/request; 100-row list ${q.list.rows100.queries} SQL, 10-row ${q.list.rows10.queries}`;
    rows.push([
      '1. transfer(id) + events',
      http(q.ours),
      `lean Apollo + TypeGraphQL + jit: ${http(q.lean_)}`,
      fx(q.leanRatio),
      '≥ 0.9×',
      notes,
    ]);
    if (q.paired) rows.push(pairedRow('1', q.paired));
    rows.push(['1. (vs mercurius)', '', `mercurius + graphql-jit: ${http(q.baseline_)}`, fx(q.ratio), '≥ 0.8×', '']);
  }
  if (b.upstream) {
    const u = b.upstream;
    const w = u.upstreamWindow;
    const calls = `upstream calls/request ${u.upstreamCallsPerRequest.ours.toFixed(2)} / ${u.upstreamCallsPerRequest.lean.toFixed(2)} / ${u.upstreamCallsPerRequest.baseline.toFixed(2)} (ours ${w.ours.calls}/${w.ours.requests}, lean ${w.lean.calls}/${w.lean.requests}, bare ${w.baseline.calls}/${w.baseline.requests}${u.sameCalls ? ', equal' : ', NOT equal'}); same banks: ${u.sameResponse.lean && u.sameResponse.bare}`;
    rows.push(['2. banks (upstream)', http(u.ours), `lean Apollo + TypeGraphQL + jit: ${http(u.lean_)}`, fx(u.leanRatio), '≥ 0.9×', calls]);
    if (u.paired) rows.push(pairedRow('2', u.paired));
    rows.push(['2. (vs bare route)', '', `bare Fastify + undici: ${http(u.baseline_)}`, fx(u.ratio), '≥ 0.33×', '']);
  }
  if (b.webhooks)
    rows.push([
      '3. webhook ingest',
      `${f0(b.webhooks.ours.rps)} ev/s, p99 ${b.webhooks.ours.p99} ms`,
      `${f0(b.webhooks.baseline_.rps)} ev/s, p99 ${b.webhooks.baseline_.p99} ms`,
      fx(b.webhooks.ratio),
      '≥ 0.5×, p99 ≤ 2×',
      `p99 ratio ${fx(b.webhooks.p99Ratio)}; applied by the processor ${f0(b.webhooks.processedPerSecond)} ev/s (backlog after ${process.env.BENCH_DRAIN_S ?? 15} s drain: ${b.webhooks.backlogAfterDrain?.join('/')})`,
    ]);
  if (b.fanout)
    rows.push([
      `4. fan-out ×${b.fanout.subscribers}${b.fanout.subscriptionsPerSocket > 1 ? ` (${b.fanout.sockets} sockets × ${b.fanout.subscriptionsPerSocket})` : ''}`,
      `p50 ${f0(b.fanout.ours.p50)} / p99 ${f0(b.fanout.ours.p99)} ms, ${f0(b.fanout.ours.messagesPerSecond)} msg/s, ${f0(b.fanout.ours.rssPer1000 / 2 ** 20)} MiB/1k subs, ${f0(b.fanout.ours.rssMax / 2 ** 20)} MiB RSS max`,
      `p50 ${f0(b.fanout.baseline_.p50)} / p99 ${f0(b.fanout.baseline_.p99)} ms, ${f0(b.fanout.baseline_.messagesPerSecond)} msg/s, ${f0(b.fanout.baseline_.rssPer1000 / 2 ** 20)} MiB/1k`,
      fx(b.fanout.ratio),
      '50k: p99 < 1 s, < 2 GiB',
      `msg/s ratio; missing ${b.fanout.ours.missing}/${b.fanout.baseline_.missing}; per 1k sockets: heap of raw sockets ${mib(b.fanout.perSocket.rawHeap)}, ` +
        `graphql-ws connections ${mib(b.fanout.perSocket.connectedHeap)} (RSS ${mib(b.fanout.perSocket.connectedRss)}); per 1k subscriptions ${mib(b.fanout.perSocket.subscriptionHeap)} MiB more; ` +
        `${f0(b.fanout.perSocket.usPerMessage)} µs of the server core per delivered message (raw ${f0(b.fanout.perSocket.rawUsPerMessage)})`,
    ]);
  if (b.saga) {
    const sg = b.saga;
    const ph = (sg.breakdown?.phases ?? []) as {
      phase: string;
      p50: number;
      platformP50: number;
      oursP50: number;
      floorMs: number;
      trigger: string | null;
    }[];
    rows.push([
      '5. saga end to end',
      `${f0(sg.transfersPerSecond)} transfers/s (${sg.transfers} in ${f0(sg.seconds)} s), createTransfer → COMPLETED p50 ${f0(sg.completedP50Ms)} / p99 ${f0(sg.completedP99Ms)} ms; ${f0(sg.statementsPerTransfer)} SQL/transfer; ${sg.upstreamCallsPerTransfer.toFixed(2)} upstream calls/transfer; ${f0(sg.cpuMsPerTransfer)} ms CPU/transfer; cores busy: service ${pct(sg.coreBusy?.service)}, sandbox + load generator ${pct(sg.coreBusy?.sandboxAndLoad)}`,
      `the sandbox's own steps ${sg.baseline_.toCompletedMs} ms to COMPLETED; minimum ${sg.upstreamMinimumPerTransfer.toFixed(2)} upstream calls/transfer; targets ≤ ${sg.baseline_.statementsPerTransfer} SQL, ≥ ${sg.baseline_.transfersPerSecond}/s`,
      fx(sg.ratio),
      `≤ ${SAGA_TARGETS.statementsPerTransfer} SQL, ≥ ${SAGA_TARGETS.transfersPerSecond}/s, upstream = minimum`,
      `ratios: time ${fx(sg.ratios.toCompleted)} (sandbox steps / ours), SQL ${fx(sg.ratios.statements)} (target / ours), throughput ${fx(sg.ratios.throughput)}, upstream ${fx(sg.ratios.upstream)}; ` +
        ph
          .map(
            (p) =>
              `${p.phase} p50 ${f0(p.p50)} ms${p.trigger ? ` (platform ${f0(p.platformP50)}, of it its steps ${p.floorMs}; ours ${f0(p.oursP50)})` : ''}`,
          )
          .join(', ') +
        `; SQL by work: ${Object.entries(sg.statementsByPhase as Record<string, { perTransfer: number }>)
          .map(([k, v]) => `${k} ${v.perTransfer}`)
          .join(', ')}; excess ${JSON.stringify(sg.upstreamExcess)}; ${JSON.stringify(sg.statuses)}`,
    ]);
  }
  if (b.latency) {
    const l = b.latency;
    const op = (name: string, x: Latencies & { upstreamShare: number; upstreamMsPerRequest: number }) =>
      `${name} p50 ${f0(x.p50)} / p99 ${f0(x.p99)} ms (${x.n}), upstream ${f0(x.upstreamMsPerRequest)} ms = ${(x.upstreamShare * 100).toFixed(0)} %`;
    rows.push([
      `6. latency (${l.users} users)`,
      `${op('createQuote', l.createQuote)}; ${op('createTransfer', l.createTransfer)}`,
      `the sandbox's part of createQuote: ${f0(l.baseline_.createQuoteUpstreamMs)} ms/request`,
      `${(l.ratio * 100).toFixed(0)} % upstream`,
      'reported',
      `${f0(l.transfersPerSecond)} transfers/s created (closed loop, no think time: the core saturated, their sagas on it too); errors ${JSON.stringify(l.errors)}; createTransfer answers before any upstream call`,
    ]);
  }
  const w = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
  const line = (r: string[]) => `| ${r.map((c, i) => c.padEnd(w[i]!)).join(' | ')} |`;
  return [line(rows[0]!), `|${w.map((x) => '-'.repeat(x + 2)).join('|')}|`, ...rows.slice(1).map(line)].join('\n');
}
