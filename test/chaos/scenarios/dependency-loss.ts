/**
 * 5. Dependency loss: two instances share a PRIVATE PostgreSQL cluster and a PRIVATE redis-server (started for
 * this scenario on free ports; the shared 5432/6379 that other suites use are never touched). Transfers are
 * created on instance A (which receives the platform's webhooks) and watched by graphql-ws subscribers on
 * instance B. Redis is stopped for 30 s (CI: 8 s), later PostgreSQL is stopped and started again.
 * Checked: meanwhile /readyz says 503 and GraphQL answers are clear (SERVICE_UNAVAILABLE while the database is out of
 * reach, never INTERNAL_SERVER_ERROR, never a 5xx with a stack);
 * both instances recover by themselves (/readyz 200); every transfer ends where in-order processing takes it;
 * every subscriber ends with every version (gap-free, never backwards); the money checker.
 */
import { startTestApp, type TestApp } from '../../helpers/app';
import { startTestSandbox } from '../../helpers/sandbox';
import { collect, wsClient } from '../../helpers/ws';
import { waitFor } from '../../helpers/wait';
import { gqlRaw, newPerson, readTransfers } from '../lib/client';
import { freePort, pool, rng, sleep, TERMINAL, type Scenario } from '../lib/common';
import {
  privatePostgresUnavailable,
  privateRedisUnavailable,
  startPrivatePostgres,
  startPrivateRedis,
  type PrivatePostgres,
  type PrivateRedis,
} from '../lib/deps';
import { PaymentLedger } from '../lib/ledger';
import { awaitFinal, createOne, decideReviews, oracle, plan, statusCounts, type Item, type Target } from '../lib/workload';
import { streamViolations } from './webhook-chaos';

export const dependencyLoss: Scenario = async ({ seed, long, log }) => {
  const why = privatePostgresUnavailable() ?? privateRedisUnavailable();
  if (why)
    return {
      id: 5,
      name: 'dependency loss',
      operations: 0,
      faults: 0,
      figures: {} as Record<string, string | number>,
      violations: [] as string[],
      skipped: why,
    };
  const r = rng(seed);
  const n = long ? 60 : 12;
  const redisDownMs = long ? 30_000 : 8_000;
  const pgDownMs = long ? 10_000 : 3_000;
  const sb = await startTestSandbox();
  const ledger = new PaymentLedger(sb.ctx);
  let pg: PrivatePostgres | null = null;
  let redis: PrivateRedis | null = null;
  const apps: TestApp[] = [];
  const violations: string[] = [];
  let client: ReturnType<typeof wsClient>['client'] | null = null;
  // A subscriber the way an app writes one: when its stream ends with an error (e.g. the database was away),
  // it subscribes again with afterVersion = the last version it saw. Its whole history must still be gap-free.
  type Sub = { id: string; s: ReturnType<typeof collect<any>>; history: any[]; resubscribes: number; errors: string[] };
  const subs: Sub[] = [];
  const subscribe = (x: Sub, afterVersion?: number) => {
    x.s = collect<any>(
      client!,
      'subscription($id: ID!, $after: Int) { transferUpdated(transferId: $id, afterVersion: $after) { id status version } }',
      { id: x.id, after: afterVersion ?? null },
    );
  };
  const followUp = () => {
    for (const x of subs) {
      const lastStatus = x.s.results.at(-1)?.data?.transferUpdated.status ?? x.history.at(-1)?.data?.transferUpdated.status;
      if (x.s.error || (x.s.completed && !TERMINAL.includes(lastStatus))) {
        const ok = x.s.results.filter((m: any) => m.data);
        x.history.push(...ok);
        x.errors.push(JSON.stringify(x.s.error ?? 'completed').slice(0, 160));
        const lastV = x.history.at(-1)?.data?.transferUpdated.version;
        x.s.dispose();
        x.resubscribes++;
        subscribe(x, lastV);
      }
    }
  };
  const streamOf = (x: Sub) => [...x.history, ...x.s.results];
  try {
    pg = await startPrivatePostgres();
    redis = await startPrivateRedis();
    const portA = await freePort();
    const env = {
      LOG_LEVEL: 'silent',
      DATABASE_URL: pg.url,
      REDIS_URL: redis.url,
      GATEWAY_BASE_URL: sb.gatewayUrl,
      REMITTANCES_BASE_URL: sb.remittancesUrl,
      VERIFICATION_BASE_URL: sb.verificationUrl,
      SAGA_POLL_INTERVAL_MS: '100',
      SAGA_RETRY_BASE_MS: '100',
      SAGA_RETRY_MAX_MS: '1000',
      WEBHOOK_POLL_INTERVAL_MS: '100',
      RATE_LIMIT_MUTATIONS_PER_MINUTE: '1000000',
      RATE_LIMIT_UPSTREAM_POINTS_PER_MINUTE: '1000000',
    };
    const A = await startTestApp({ ...env, PORT: String(portA), PUBLIC_URL: `http://127.0.0.1:${portA}` });
    apps.push(A);
    const B = await startTestApp({ ...env, DATA_DIR: A.app.config.dataDir });
    apps.push(B);
    const admin = await A.token('chaos-dl-admin', 'admin');
    const reg = await gqlRaw(A.url, 'mutation { registerWebhookSubscription(input: {}) { subscription { id } } }', undefined, admin);
    if (!reg.body?.data) throw new Error(`registerWebhookSubscription: ${reg.text.slice(0, 300)}`);
    const customer = await A.token('chaos-dl-customer', 'customer');
    const staff = await A.token('chaos-dl-staff', 'backoffice');
    const target: Target = { url: () => A.url, customer, staff, personId: await newPerson(A.url, customer) };
    client = wsClient(B.wsUrl, customer, { lazy: false }).client;
    const items = plan(r, n, `dl-${seed}`, { happy: 0.6, reject: 0.15, declined: 0.1, review: 0.15, threeds: 0 });
    const create = (xs: Item[]) =>
      pool(xs, 4, async (it) => {
        await createOne(target, it, 120_000);
        const x: Sub = { id: it.id!, s: null as never, history: [], resubscribes: 0, errors: [] };
        subscribe(x);
        subs.push(x);
      });
    const half = Math.ceil(n / 2);

    // probes while a dependency is down: /readyz of both instances, a read and a write over GraphQL
    const seen = { ready503: 0, readyOk: 0, answers: new Map<string, number>() };
    let probing = true;
    const probe = async () => {
      while (probing) {
        for (const app of apps) {
          const s = await fetch(`${app.url}/readyz`)
            .then((x) => (x.body?.cancel(), x.status))
            .catch(() => 0);
          if (s === 503) seen.ready503++;
          else if (s === 200) seen.readyOk++;
          const q = await gqlRaw(app.url, '{ transfers(first: 5) { edges { node { id status } } } }', undefined, staff, 15_000);
          const c = q.body?.errors?.[0]?.extensions?.code ?? (q.body?.data ? 'ok' : `HTTP ${q.status}`);
          seen.answers.set(String(c), (seen.answers.get(String(c)) ?? 0) + 1);
          if (q.status >= 500 && q.status !== 503) violations.push(`during an outage: HTTP ${q.status} ${q.text.slice(0, 200)}`);
          if (/\n\s+at |stacktrace/.test(q.text)) violations.push(`during an outage: a stack trace in ${q.text.slice(0, 200)}`);
          // the database out of reach is a transient condition with its own code, not an unexpected error
          if (c === 'INTERNAL_SERVER_ERROR') violations.push(`during an outage: INTERNAL_SERVER_ERROR instead of SERVICE_UNAVAILABLE`);
        }
        await sleep(250);
      }
    };

    log(`dependency loss: ${half} transfers, then Redis down ${redisDownMs} ms while ${n - half} more are created`);
    await create(items.slice(0, half));
    await redis.stop();
    const p1 = probe();
    const redisDownAt = Date.now();
    await create(items.slice(half)).catch((e) => violations.push(`creating transfers while Redis was down: ${(e as Error).message}`));
    await decideReviews(
      sb.controlUrl,
      items.filter((x) => x.id),
      Date.now() + 10_000,
    );
    await sleep(Math.max(0, redisDownMs - (Date.now() - redisDownAt)));
    probing = false;
    await p1;
    const redis503 = seen.ready503;
    await redis.start();
    const back1 = Date.now();
    await waitFor(
      async () =>
        (await Promise.all(apps.map((a) => fetch(`${a.url}/readyz`).then((x) => (x.body?.cancel(), x.status))))).every((s) => s === 200),
      { timeoutMs: 60_000, intervalMs: 100, what: 'ready again after Redis', retryErrors: true },
    ).catch((e) => violations.push(`not ready 60 s after Redis came back: ${(e as Error).message}`));
    const redisRecoveryMs = Date.now() - back1;
    if (redis503 === 0) violations.push('/readyz never said 503 while Redis was down');

    log(`PostgreSQL down ${pgDownMs} ms`);
    seen.ready503 = 0;
    await pg.stop();
    probing = true;
    const p2 = probe();
    await sleep(pgDownMs);
    probing = false;
    await p2;
    const pg503 = seen.ready503;
    await pg.start();
    const back2 = Date.now();
    await waitFor(
      async () =>
        (await Promise.all(apps.map((a) => fetch(`${a.url}/readyz`).then((x) => (x.body?.cancel(), x.status))))).every((s) => s === 200),
      { timeoutMs: 60_000, intervalMs: 100, what: 'ready again after PostgreSQL', retryErrors: true },
    ).catch((e) => violations.push(`not ready 60 s after PostgreSQL came back: ${(e as Error).message}`));
    const pgRecoveryMs = Date.now() - back2;
    if (pg503 === 0) violations.push('/readyz never said 503 while PostgreSQL was down');
    await decideReviews(
      sb.controlUrl,
      items.filter((x) => x.id),
      Date.now() + 30_000,
    );

    const ok = items.filter((x) => x.id);
    const watcher = setInterval(followUp, 200);
    const views = await awaitFinal(target, ok, 90_000 + n * 2000);
    violations.push(...oracle(ok, views));
    const last = new Map(views.map((x) => [x.id, x.version!]));
    await waitFor(async () => subs.every((x) => streamOf(x).at(-1)?.data?.transferUpdated.version === last.get(x.id)), {
      timeoutMs: 60_000,
      intervalMs: 100,
      what: 'subscribers caught up',
      retryErrors: true,
    }).catch(() => undefined);
    clearInterval(watcher);
    let messages = 0;
    for (const x of subs) {
      const stream = streamOf(x);
      messages += stream.length;
      violations.push(...streamViolations(x.id, stream));
      const end = stream.at(-1)?.data?.transferUpdated.version;
      if (end !== last.get(x.id))
        violations.push(
          `subscriber on B ${x.id}: ended at version ${end}, the transfer is at ${last.get(x.id)} (errors: ${x.errors.join('; ')})`,
        );
    }
    const resubscribes = subs.reduce((a, x) => a + x.resubscribes, 0);
    const whyEnded = [...new Set(subs.flatMap((x) => x.errors))].slice(0, 2).join('; ');
    violations.push(
      ...ledger.check(
        await sb.control.calls('/gateway'),
        await readTransfers(
          A.url,
          staff,
          ok.map((x) => x.id!),
        ),
      ).violations,
    );
    return {
      id: 5,
      name: 'dependency loss',
      operations: ok.length + [...seen.answers.values()].reduce((a, b) => a + b, 0),
      faults: 2,
      figures: {
        instances: 2,
        transfers: ok.length,
        'Redis down': `${redisDownMs / 1000} s (readyz 503 ×${redis503}, ready again in ${(redisRecoveryMs / 1000).toFixed(1)} s)`,
        'PostgreSQL down': `${pgDownMs / 1000} s (readyz 503 ×${pg503}, ready again in ${(pgRecoveryMs / 1000).toFixed(1)} s)`,
        'answers during outages': [...seen.answers].map(([k, v]) => `${k}×${v}`).join(' '),
        'subscriber messages (instance B)': messages,
        'streams ended by an error and resumed with afterVersion': `${resubscribes}${whyEnded ? ` (${whyEnded})` : ''}`,
        final: statusCounts(views),
      },
      violations,
    };
  } finally {
    for (const x of subs) x.s.dispose();
    await client?.dispose();
    for (const a of apps.reverse()) await a.close().catch(() => undefined);
    ledger.detach();
    await sb.close();
    await redis?.destroy();
    await pg?.destroy();
  }
};
