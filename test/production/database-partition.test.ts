/**
 * The built service in production mode keeps running through a database partition longer than its pool's connect
 * timeout (5 s), with the background paths at work meanwhile — the saga worker's polls, the webhook inbox's poller, a
 * delivery whose signature makes the receiver re-read the signing secrets, the readiness check — each logging its
 * failure (asserted) and none ending the process; it recovers by itself once the database answers again: no unhandled
 * rejection ends it (it would exit 1), and the transfers in flight end COMPLETED. The partition is a TCP proxy that
 * drops every connection and holds new ones unanswered. A platform decision's kick and the wake-up it falls back to
 * need a decision recorded while the database fails under them: test/integration/background-failures.test.ts.
 */
import { partitionProxy, type PartitionProxy } from '../helpers/partition-proxy';
import { startProductionService, type ProductionService } from '../helpers/production';
import { waitFor } from '../helpers/wait';
import { gql } from '../helpers/app';
import { collect, wsClient } from '../helpers/ws';
import { createTransfer, newPerson, newQuote, transferInput } from '../e2e/transfer-helpers';

jest.setTimeout(120_000);

let proxy: PartitionProxy | null = null;
let p: ProductionService;

beforeAll(async () => {
  p = await startProductionService(
    {
      SAGA_POLL_INTERVAL_MS: '200',
      WEBHOOK_POLL_INTERVAL_MS: '200',
      SAGA_RETRY_BASE_MS: '100',
      SAGA_RETRY_MAX_MS: '1000',
      SAGA_RECONCILE_AFTER_MS: '2000',
      LOG_LEVEL: 'warn',
    },
    {
      reach: async (url) => {
        const u = new URL(url);
        proxy = await partitionProxy({ host: u.hostname, port: Number(u.port) });
        return proxy.via(url);
      },
    },
  );
});
afterAll(async () => {
  await p?.close();
  await proxy?.close();
});

const readyz = () => fetch(`${p.url}/readyz`).then((r) => r.status);
const alive = () => p.svc.proc.exitCode === null && p.svc.proc.signalCode === null;

it('stays up through a partition longer than the connect timeout, and the transfers in flight complete after it', async () => {
  const token = await p.token('partition-alice', 'customer');
  const personId = await newPerson(p.url, token);
  const ids: string[] = [];
  for (let i = 0; i < 3; i++) {
    const quoteId = await newQuote(p.url, token);
    const r = await createTransfer(p.url, token, transferInput({ quoteId, personId, key: `partition-${i}` }));
    if (!r.body.data) throw new Error(JSON.stringify(r.body.errors));
    ids.push(r.body.data.createTransfer.id as string);
  }
  proxy!.cut();
  const cutAt = p.svc.stdout.length;
  // a delivery whose signature does not verify makes the receiver re-read the signing secrets from the database
  const badDelivery = fetch(`${p.url}/webhooks/remittances`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-service-signature': 't=1,v1=00' },
    body: JSON.stringify({ event: 'Transaction.Updated' }),
  }).then((r) => r.status);
  const until = Date.now() + 8_000;
  let sawUnready = false;
  while (Date.now() < until) {
    if ((await readyz()) === 503) sawUnready = true;
    const r = await gql<any>(p.url, '{ transfers(first: 3) { edges { node { id } } } }', { token });
    expect(r.body.errors?.[0]?.extensions?.code).toBe('SERVICE_UNAVAILABLE');
    expect(alive()).toBe(true);
    await new Promise((res) => setTimeout(res, 500));
  }
  expect(sawUnready).toBe(true);
  expect([401, 503]).toContain(await badDelivery); // refused, never accepted without its secret
  // every background path met the partition meanwhile, and logged it instead of ending the process
  const duringCut = p.svc.stdout.slice(cutAt).join('');
  expect(duringCut).toMatch(/transfer worker tick failed|saga step failed/);
  expect(duringCut).toMatch(/webhook processor pass failed/);
  expect(duringCut).toMatch(/webhook secrets: reload failed|webhook refused: cannot read the signing secrets/);
  // a subscription asked for meanwhile ends with the same code as over HTTP
  const { client } = wsClient(p.wsUrl, token);
  try {
    const sub = collect<any>(client, 'subscription($id: ID!) { transferUpdated(transferId: $id) { id status } }', { id: ids[0] });
    await sub.next(1, 15_000);
    const errors = (sub.error as { extensions?: { code?: string } }[] | undefined) ?? sub.results[0]?.errors ?? [];
    expect(errors[0]?.extensions?.code).toBe('SERVICE_UNAVAILABLE');
  } finally {
    await client.dispose();
  }
  proxy!.heal();
  await waitFor(async () => (await readyz()) === 200, { timeoutMs: 30_000, intervalMs: 250, what: '/readyz 200 after the partition' });
  const statuses = await waitFor(
    async () => {
      const r = await gql<any>(p.url, '{ transfers(first: 3) { edges { node { id status } } } }', { token });
      const got = (r.body.data?.transfers.edges ?? []).map((e: any) => e.node.status as string);
      return got.length === 3 && got.every((s: string) => s === 'COMPLETED') ? got : null;
    },
    { timeoutMs: 45_000, intervalMs: 500, retryErrors: true, what: 'every transfer COMPLETED' },
  );
  expect(statuses).toEqual(['COMPLETED', 'COMPLETED', 'COMPLETED']);
  expect(alive()).toBe(true);
  expect(p.svc.stderr.join('')).not.toMatch(/unhandled|UnhandledPromiseRejection/i);
});
