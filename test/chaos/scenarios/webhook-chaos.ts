/**
 * 3. Webhook chaos: the sandbox platform duplicates (30 %), shuffles (per transaction) and delays its signed
 * deliveries; every transfer has a graphql-ws subscriber from its creation on. Then every stored event is
 * delivered again, re-signed (a replay any time later: the dedupe key is in the database, not a time-bound
 * cache), plus a sample with a 3-day-old signature timestamp (must be refused).
 * Oracle: final states equal in-order delivery's; no subscriber ever sees a status move backwards, a version
 * gap or a change after a terminal status, and each ends with the transfer's last version; the replays change
 * nothing (same versions); the money checker finds no double effect.
 */
import { signatureHeaderFor } from '../../../src/modules/webhook/webhook.signature';
import { startTestApp } from '../../helpers/app';
import { collect, wsClient } from '../../helpers/ws';
import { waitFor } from '../../helpers/wait';
import { newPerson, readTransfers } from '../lib/client';
import { pool, RANK, rng, fastSagaEnv, TERMINAL, type Scenario, withServiceErrors } from '../lib/common';
import { PaymentLedger } from '../lib/ledger';
import { awaitFinal, createOne, decideReviews, oracle, plan, statusCounts, type Target } from '../lib/workload';

type Msg = { data?: { transferUpdated: { id: string; status: string; version: number } }; errors?: unknown[] };

/** Violations in one subscriber's stream. */
export function streamViolations(id: string, msgs: Msg[]): string[] {
  const v: string[] = [];
  let prev: { status: string; version: number } | null = null;
  for (const m of msgs) {
    if (m.errors?.length || !m.data) {
      v.push(`subscriber ${id}: error message ${JSON.stringify(m.errors ?? m).slice(0, 200)}`);
      continue;
    }
    const cur = m.data.transferUpdated;
    if (prev) {
      if (cur.version !== prev.version + 1) v.push(`subscriber ${id}: version ${prev.version} → ${cur.version} (gap or repeat)`);
      if (RANK[cur.status]! < RANK[prev.status]!) v.push(`subscriber ${id}: status moved backwards ${prev.status} → ${cur.status}`);
      if (TERMINAL.includes(prev.status) && cur.status !== prev.status)
        v.push(`subscriber ${id}: terminal ${prev.status} changed to ${cur.status}`);
    }
    prev = cur;
  }
  return v;
}

export const webhookChaos: Scenario = async ({ seed, long, log }) => {
  const n = long ? 500 : 20;
  const r = rng(seed);
  const app = await startTestApp({
    ...fastSagaEnv(),
  });
  const sbUrl = app.app.sandbox!.url;
  const ctx = app.app.sandbox!.ctx;
  const ledger = new PaymentLedger(ctx);
  const { client } = wsClient(app.wsUrl, await app.token('chaos-wh-customer', 'customer'), { lazy: false });
  const subs: { id: string; s: ReturnType<typeof collect<Msg['data']>> }[] = [];
  try {
    const customer = await app.token('chaos-wh-customer', 'customer');
    const staff = await app.token('chaos-wh-staff', 'backoffice');
    const target: Target = { url: () => app.url, customer, staff, personId: await newPerson(app.url, customer) };
    ctx.setFaults({ webhookDuplicateRate: 0.3, webhookShuffle: true, webhookDelayMs: 30, seed });
    const items = plan(r, n, `wh-${seed}`);
    log(`webhook chaos: ${n} transfers, duplicates 30 %, shuffled, delayed`);
    await pool(items, 6, async (it) => {
      await createOne(target, it);
      subs.push({
        id: it.id!,
        s: collect<Msg['data']>(client, 'subscription($id: ID!) { transferUpdated(transferId: $id) { id status version } }', { id: it.id }),
      });
    });
    await decideReviews(`${sbUrl}/__sandbox`, items, Date.now() + 60_000 + n * 500);
    let views = await awaitFinal(target, items, 60_000 + n * 1500);
    const violations = oracle(items, views);
    await waitFor(async () => (await app.app.db.prisma.webhookInbox.count({ where: { processedAt: null } })) === 0, {
      timeoutMs: 60_000 + n * 300,
      intervalMs: 100,
      what: 'inbox drained',
      retryErrors: true,
    }).catch((e) => violations.push(String((e as Error).message)));
    // Replays: every stored event again, re-signed now; a sample signed 3 days ago must be refused.
    const own = (
      (await (await fetch(`${sbUrl}/__sandbox/webhooks`)).json()) as {
        webhooks: { url: string; signingSecret: string | null; deliveries: { duplicate: boolean }[] }[];
      }
    ).webhooks.find((w) => w.url === `${app.url}/webhooks/remittances`);
    if (!own?.signingSecret) throw new Error('no signed subscription of ours at the sandbox');
    const stored = await app.app.db.prisma.webhookInbox.findMany({ select: { payload: true } });
    const replays = r.shuffle(stored).slice(0, long ? 3000 : stored.length);
    const now = Math.floor(Date.now() / 1000);
    const post = async (body: string, t: number) => {
      const res = await fetch(`${app.url}/webhooks/remittances`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-service-signature': signatureHeaderFor(own.signingSecret!, t, body) },
        body,
      });
      await res.body?.cancel().catch(() => undefined);
      return res.status;
    };
    const replayStatuses = await pool(replays, 8, (x) => post(JSON.stringify(x.payload), now));
    const refusedOld = await pool(replays.slice(0, 20), 4, (x) => post(JSON.stringify(x.payload), now - 3 * 86_400));
    if (replayStatuses.some((s) => s < 200 || s >= 300))
      violations.push(`replayed deliveries answered ${[...new Set(replayStatuses)].join(',')}`);
    if (refusedOld.some((s) => s !== 401))
      violations.push(`deliveries signed 3 days ago answered ${[...new Set(refusedOld)].join(',')} (expected 401)`);
    await waitFor(async () => (await app.app.db.prisma.webhookInbox.count({ where: { processedAt: null } })) === 0, {
      timeoutMs: 60_000,
      intervalMs: 100,
      what: 'inbox drained after replays',
      retryErrors: true,
    }).catch((e) => violations.push(String((e as Error).message)));
    const after = await readTransfers(
      app.url,
      staff,
      items.map((it) => it.id!),
    );
    for (const [k, a] of after.entries()) {
      if (a.version !== views[k]!.version || a.status !== views[k]!.status)
        violations.push(
          `transfer ${a.id}: replayed events changed it (${views[k]!.status} v${views[k]!.version} → ${a.status} v${a.version})`,
        );
    }
    views = after;
    // Subscribers: every stream gap-free, never backwards, ending at the transfer's last version.
    const last = new Map(views.map((x) => [x.id, x.version!]));
    await waitFor(async () => subs.every((x) => x.s.results.at(-1)?.data?.transferUpdated.version === last.get(x.id)), {
      timeoutMs: 30_000,
      intervalMs: 100,
      what: 'subscribers caught up',
      retryErrors: true,
    }).catch(() => undefined);
    let messages = 0;
    for (const x of subs) {
      messages += x.s.results.length;
      violations.push(...streamViolations(x.id, x.s.results as Msg[]));
      const end = x.s.results.at(-1)?.data?.transferUpdated.version;
      if (end !== last.get(x.id)) violations.push(`subscriber ${x.id}: ended at version ${end}, the transfer is at ${last.get(x.id)}`);
    }
    violations.push(
      ...ledger.check(
        ctx.calls.filter((c) => c.service === 'gateway'),
        views,
      ).violations,
    );
    const deliveries = own.deliveries.length;
    const duplicates = own.deliveries.filter((d) => d.duplicate).length;
    const inbox = await app.app.db.prisma.webhookInbox.count();
    return {
      id: 3,
      name: 'webhook chaos',
      operations: n + replays.length + refusedOld.length,
      faults: duplicates + replays.length + refusedOld.length,
      figures: {
        transfers: n,
        'events stored': inbox,
        'duplicates delivered': `${duplicates} (of the last ${deliveries} deliveries)`,
        'replays re-signed / signed 3 days ago': `${replays.length} / ${refusedOld.length}`,
        'subscriber messages': messages,
        final: statusCounts(views),
      },
      violations,
    };
  } catch (e) {
    throw withServiceErrors(e, app.logs);
  } finally {
    ctx.setFaults({ webhookDuplicateRate: 0, webhookShuffle: false, webhookDelayMs: 0 });
    for (const x of subs) x.s.dispose();
    await client.dispose();
    ledger.detach();
    await app.close();
  }
};
