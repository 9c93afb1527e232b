/**
 * The service under test, in its own process: dist/app.js (the shipped build) started with the given
 * environment, plus the data a benchmark needs. Commands: start, transition, mem, queriesStart/Stop,
 * startSagaWorker, countStatus, inboxPending.
 */
import 'reflect-metadata';
import { fromDist, serveCommands, wallMs } from '../rpc';
import { OWNER, seedTransfers } from '../seed';
import type * as AppModule from '../../../src/app';
import type * as ConfigModule from '../../../src/config';

const { createApp } = fromDist<typeof AppModule>('app.js');
const { loadConfig } = fromDist<typeof ConfigModule>('config.js');

let app: AppModule.App | null = null;
let profiler: import('node:inspector').Session | null = null;
/** Marks the benchmark's own statements (the query counter skips them). */
const BENCH_TAG = '/* bench */';
type Seed = { count: number; events: number; status?: string; from?: number };
let counting: {
  n: number;
  byKind: Map<string, number>;
  bySql: Map<string, number>;
  byPhase: Map<string, Map<string, number>>;
  raw: Map<string, Map<string, number>>;
  cpu: NodeJS.CpuUsage;
  stop: () => void;
} | null = null;

serveCommands(
  {
    async start(args: { env: Record<string, string>; seed?: Seed | Seed[]; webhookSecret?: string }) {
      const config = loadConfig({ NODE_ENV: 'test', HOST: '127.0.0.1', PORT: '0', SANDBOX_PORT: '0', LOG_LEVEL: 'warn', ...args.env });
      app = await createApp(config);
      const { url } = await app.start();
      const ids: string[] = [];
      for (const s of args.seed === undefined ? [] : [args.seed].flat())
        ids.push(...(await seedTransfers(app.db.prisma, s.count, s.events, { status: s.status, from: s.from })));
      if (args.webhookSecret) {
        await app.webhooks.secrets.put('bench-subscription', `${url}/webhooks/remittances`, args.webhookSecret, new Date());
        await app.webhooks.secrets.reload();
      }
      return {
        url,
        sandboxUrl: app.sandbox?.url ?? null,
        dbKind: app.db.kind,
        ids,
        token: await app.auth.issueDevToken(OWNER, 'customer'),
        staffToken: await app.auth.issueDevToken('bench-staff', 'backoffice'),
      };
    },
    /** One change of a transfer (with its audit event, then the publish); t0 = just before. */
    async transition(args: { transferId: string; to?: string; cause: string }) {
      const t0 = wallMs();
      const r = await app!.transfers.repository.transition({
        transferId: args.transferId,
        to: args.to as never,
        cause: args.cause as never,
        actor: 'bench',
        patch: args.to ? undefined : { complianceStatus: 'Pending' },
      });
      if (!r.ok) throw new Error(`transition refused: ${r.reason}`);
      return { t0, t1: wallMs(), version: r.transfer.version };
    },
    mem() {
      (globalThis as { gc?: () => void }).gc?.();
      const m = process.memoryUsage();
      return { rss: m.rss, heapUsed: m.heapUsed, external: m.external };
    },
    queriesStart() {
      counting?.stop();
      const c = {
        n: 0,
        byKind: new Map<string, number>(),
        bySql: new Map<string, number>(),
        byPhase: new Map<string, Map<string, number>>(),
        raw: new Map<string, Map<string, number>>(),
        cpu: process.cpuUsage(),
        stop: () => undefined as void,
      };
      c.stop = app!.db.onQuery((e) => {
        if (e.sql.endsWith(BENCH_TAG)) return; // the benchmark's own reads (countStatus) are not the service's work
        c.n++;
        // counted by the work it was issued for (withQueryPhase in the service; untagged: an API request) and by text
        // (the statement's own string, whose hash its prepared-statement name already computed: no key is built);
        // classified when the window closes — as little work as can be inside the measured process
        const phase = e.phase ?? 'api';
        let texts = c.raw.get(phase);
        if (!texts) c.raw.set(phase, (texts = new Map()));
        texts.set(e.sql, (texts.get(e.sql) ?? 0) + 1);
      });
      counting = c;
      return true;
    },
    queriesStop() {
      const c = counting;
      counting = null;
      c?.stop();
      // CPU time of the whole process over the window (read first: what follows is the benchmark's own work)
      const cpu = c ? process.cpuUsage(c.cpu) : { user: 0, system: 0 };
      for (const [phase, texts] of c?.raw ?? [])
        for (const [sql, n] of texts) {
          const kind = (/^\s*(\w+)/.exec(sql)?.[1] ?? '?').toUpperCase();
          c!.byKind.set(kind, (c!.byKind.get(kind) ?? 0) + n);
          const text = sql.replace(/\s+/g, ' ').slice(0, 90);
          c!.bySql.set(text, (c!.bySql.get(text) ?? 0) + n);
          let statements = c!.byPhase.get(phase);
          if (!statements) c!.byPhase.set(phase, (statements = new Map()));
          statements.set(text, (statements.get(text) ?? 0) + n);
        }
      const top = [...(c?.bySql ?? [])].sort((a, b) => b[1] - a[1]).slice(0, 40);
      const byPhase = Object.fromEntries(
        [...(c?.byPhase ?? [])].map(([phase, m]) => [
          phase,
          { count: [...m.values()].reduce((x, y) => x + y, 0), statements: [...m].sort((a, b) => b[1] - a[1]).slice(0, 25) },
        ]),
      );
      return {
        count: c?.n ?? 0,
        byKind: Object.fromEntries(c?.byKind ?? []),
        topStatements: top,
        byPhase,
        cpuMs: (cpu.user + cpu.system) / 1000,
      };
    },
    /** A V8 CPU profile of a window only (BENCH_WINDOW_PROF=<dir>: benchmark 5's createTransfer → final status). */
    async profileStart() {
      const { Session } = await import('node:inspector');
      profiler = new Session();
      profiler.connect();
      const post = (m: string, p?: object) => new Promise((r, j) => profiler!.post(m, p ?? {}, (e, v) => (e ? j(e) : r(v))));
      await post('Profiler.enable');
      await post('Profiler.setSamplingInterval', { interval: 200 });
      await post('Profiler.start');
      return true;
    },
    async profileStop(args: { file: string }) {
      const s = profiler!;
      const { profile } = await new Promise<{ profile: unknown }>((r, j) => s.post('Profiler.stop', (e, v) => (e ? j(e) : r(v as never))));
      (await import('node:fs')).writeFileSync(args.file, JSON.stringify(profile));
      s.disconnect();
      profiler = null;
      return true;
    },
    /** Starts the saga worker of a service started with SAGA_WORKER_ENABLED=false (one process for every benchmark). */
    startSagaWorker() {
      app!.transfers.worker.start();
      return true;
    },
    async countStatus(args: { ids: string[] }) {
      const rows = await app!.db.prisma.$queryRawUnsafe<{ status: string; n: number }[]>(
        `SELECT status::text AS status, count(*)::int AS n FROM transfers WHERE id = ANY($1::text[]) GROUP BY status ${BENCH_TAG}`,
        args.ids,
      );
      return Object.fromEntries(rows.map((r) => [r.status, r.n]));
    },
    /**
     * Where the saga's time went, per transfer: ms from created to the first event reaching each status, and
     * the webhook inbox's received → processed lag (ms) of the transfers' platform events.
     */
    async sagaTimeline(args: { ids: string[] }) {
      const rows = await app!.db.prisma.$queryRaw<{ id: string; created: Date; to_status: string; at: Date }[]>`
        SELECT t.id, t.created_at AS created, e.to_status::text AS to_status, min(e.at) AS at
        FROM transfers t JOIN transfer_events e ON e.transfer_id = t.id
        WHERE t.id = ANY(${args.ids}::text[]) GROUP BY t.id, t.created_at, e.to_status`;
      const byStatus: Record<string, number[]> = {};
      for (const r of rows) (byStatus[r.to_status] ??= []).push(r.at.getTime() - r.created.getTime());
      const lag = await app!.db.prisma.$queryRaw<{ n: number; p50: number; p99: number; max: number; first: Date; last: Date }[]>`
        SELECT count(*)::int AS n,
               percentile_cont(0.5) WITHIN GROUP (ORDER BY extract(epoch FROM processed_at - received_at) * 1000)::float8 AS p50,
               percentile_cont(0.99) WITHIN GROUP (ORDER BY extract(epoch FROM processed_at - received_at) * 1000)::float8 AS p99,
               max(extract(epoch FROM processed_at - received_at) * 1000)::float8 AS max,
               min(received_at) AS first, max(received_at) AS last
        FROM webhook_inbox WHERE kind = 'transaction'`;
      const outcomes = await app!.db.prisma.$queryRaw<{ outcome: string | null; attempts: number; n: number; err: string | null }[]>`
        SELECT outcome, attempts, count(*)::int AS n, min(last_error) AS err FROM webhook_inbox WHERE kind = 'transaction' GROUP BY outcome, attempts ORDER BY n DESC`;
      // per transfer: when each status was first reached, and when the platform's decisive events were received
      // (compliance Approved: the capture follows; Paid: the transfer completes)
      const marks = await app!.db.prisma.$queryRaw<{ id: string; created: Date; approved: Date | null; paid: Date | null }[]>`
        SELECT t.id, t.created_at AS created,
               min(i.received_at) FILTER (WHERE i.payload->>'newComplianceStatus' = 'Approved') AS approved,
               min(i.received_at) FILTER (WHERE i.payload->>'newStatus' = 'Paid') AS paid
        FROM transfers t LEFT JOIN webhook_inbox i ON i.kind = 'transaction' AND i.payload->>'externalTransactionId' = t.external_payment_id
        WHERE t.id = ANY(${args.ids}::text[]) GROUP BY t.id, t.created_at`;
      const reached = new Map<string, Record<string, number>>();
      for (const r of rows) {
        const m = reached.get(r.id) ?? {};
        m[r.to_status] = r.at.getTime();
        reached.set(r.id, m);
      }
      const perTransfer = marks.map((m) => ({
        created: m.created.getTime(),
        approvedReceived: m.approved?.getTime() ?? null,
        paidReceived: m.paid?.getTime() ?? null,
        reached: reached.get(m.id) ?? {},
      }));
      return { byStatus, inbox: lag[0], outcomes, perTransfer };
    },
    async inboxPending() {
      return app!.db.prisma.webhookInbox.count({ where: { processedAt: null } });
    },
  },
  async () => {
    await app?.close();
  },
);
