/**
 * The service under test, in its own process: dist/app.js (the shipped build) started with the given
 * environment, plus the data a benchmark needs. Commands: start, transition, mem, queriesStart/Stop,
 * startSagaWorker, countStatus, inboxPending.
 */
import 'reflect-metadata';
import path from 'node:path';
import { DIST, serveCommands, wallMs } from '../rpc';
import { OWNER, seedTransfers } from '../seed';
import type * as AppModule from '../../../src/app';
import type * as ConfigModule from '../../../src/config';

const { createApp } = require(path.join(DIST, 'app.js')) as typeof AppModule;
const { loadConfig } = require(path.join(DIST, 'config.js')) as typeof ConfigModule;

let app: AppModule.App | null = null;
type Seed = { count: number; events: number; status?: string; from?: number };
let counting: { n: number; byKind: Map<string, number>; stop: () => void } | null = null;

serveCommands(
  {
    async start(args: { env: Record<string, string>; seed?: Seed | Seed[]; webhookSecret?: string }) {
      const config = loadConfig({ NODE_ENV: 'test', HOST: '127.0.0.1', PORT: '0', SANDBOX_PORT: '0', LOG_LEVEL: 'warn', ...args.env });
      app = await createApp(config);
      const { url } = await app.start();
      const ids: string[] = [];
      for (const s of args.seed === undefined ? [] : [args.seed].flat()) ids.push(...(await seedTransfers(app.db.prisma, s.count, s.events, { status: s.status, from: s.from })));
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
      const r = await app!.transfers.repository.transition({ transferId: args.transferId, to: args.to as never, cause: args.cause as never, actor: 'bench', patch: args.to ? undefined : { complianceStatus: 'Pending' } });
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
      const c = { n: 0, byKind: new Map<string, number>(), stop: () => undefined as void };
      c.stop = app!.db.onQuery((e) => {
        c.n++;
        const kind = (/^\s*(\w+)/.exec(e.sql)?.[1] ?? '?').toUpperCase();
        c.byKind.set(kind, (c.byKind.get(kind) ?? 0) + 1);
      });
      counting = c;
      return true;
    },
    queriesStop() {
      const c = counting;
      counting = null;
      c?.stop();
      return { count: c?.n ?? 0, byKind: Object.fromEntries(c?.byKind ?? []) };
    },
    /** Starts the saga worker of a service started with SAGA_WORKER_ENABLED=false (one process for every benchmark). */
    startSagaWorker() {
      app!.transfers.worker.start();
      return true;
    },
    async countStatus(args: { ids: string[] }) {
      const rows = await app!.db.prisma.transfer.groupBy({ by: ['status'], where: { id: { in: args.ids } }, _count: true });
      return Object.fromEntries(rows.map((r) => [r.status, r._count]));
    },
    async inboxPending() {
      return app!.db.prisma.webhookInbox.count({ where: { processedAt: null } });
    },
  },
  async () => {
    await app?.close();
  },
);
