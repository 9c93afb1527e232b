/**
 * Production mode (the built service as a child process, NODE_ENV=production): no unsigned webhook is ever
 * accepted. The service registers its own subscription and a signing secret it holds at start, retries in the
 * background while the platform is unreachable, and is not ready until it has them. Deliveries signed by the
 * platform move transfers; unsigned or badly signed ones are 401 and store nothing.
 *
 * The remittances platform is reached through a switchable proxy: 503 for everything until `platformUp()`.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import pg from 'pg';
import { request } from 'undici';
import { startProductionService, freePort, type ProductionService } from '../helpers/production';
import { spawnService, type ServiceProcess } from '../helpers/process';
import { gql } from '../helpers/app';
import { http } from '../helpers/sandbox';
import { signatureHeaderFor } from '../../src/modules/webhook/webhook.signature';
import { createTransfer, newPerson, newQuote, transferInput } from '../e2e/transfer-helpers';
import { nowS, postWebhook } from './webhook.helpers';
import { waitFor } from '../helpers/wait';

let prod: ProductionService;
let proxy: Server;
let target: string | null = null;
let db: pg.Client;

/** Forwards to `target` (the sandbox's origin) once set; 503 before. */
function startProxy(): Promise<number> {
  proxy = createServer((req, res) => {
    if (!target) {
      res.writeHead(503, { 'content-type': 'application/json' }).end('{"error":"unavailable"}');
      return;
    }
    const chunks: Buffer[] = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', async () => {
      try {
        const headers = { ...req.headers };
        delete headers.host;
        delete headers.connection;
        const up = await request(`${target}${req.url}`, {
          method: req.method as 'GET',
          headers,
          body: chunks.length ? Buffer.concat(chunks) : undefined,
        });
        const body = Buffer.from(await up.body.arrayBuffer());
        const out: Record<string, string> = {};
        for (const [k, v] of Object.entries(up.headers))
          if (typeof v === 'string' && k !== 'transfer-encoding' && k !== 'connection') out[k] = v;
        res.writeHead(up.statusCode, out).end(body);
      } catch {
        res.writeHead(502).end();
      }
    });
  });
  return new Promise((r) => proxy.listen(0, '127.0.0.1', () => r((proxy.address() as AddressInfo).port)));
}
const platformUp = () => (target = new URL(prod.sandbox.remittancesUrl).origin);

const readyz = async () => {
  // the checks' details: on the metrics listener (anonymous callers of the API port get the status only)
  const r = await http('GET', `${prod.metricsUrl}/readyz`);
  return {
    status: r.status,
    webhooks: (r.body as any)?.checks?.find?.((c: any) => c.name === 'webhooks') ?? (r.body as any)?.checks?.webhooks,
  };
};
const inboxCount = async (where = 'true') =>
  Number((await db.query(`SELECT count(*)::int AS n FROM webhook_inbox WHERE ${where}`)).rows[0].n);
const captures = async (externalPaymentId: string) =>
  (await http<{ path: string }[]>('GET', `${prod.sandbox.controlUrl}/calls?service=gateway&method=POST`)).body.filter((c) =>
    c.path.endsWith(`/payments/${externalPaymentId}/capture`),
  );
const ownSubs = async () =>
  ((await http<any>('GET', `${prod.sandbox.controlUrl}/webhooks`)).body.webhooks as any[]).filter(
    (s) => s.url === `${prod.env.PUBLIC_URL}/webhooks/remittances`,
  );

const compliance = (transactionId: string, externalTransactionId: string, value: string) =>
  JSON.stringify({
    event: 'TransactionComplianceStatusChangedEvent',
    transactionId,
    externalTransactionId,
    tenantId: prod.env.REMITTANCES_TENANT_ID,
    oldComplianceStatus: 'Pending',
    newComplianceStatus: value,
    newStatusMessages: [],
  });

beforeAll(async () => {
  const port = await startProxy();
  prod = await startProductionService({ REMITTANCES_BASE_URL: `http://127.0.0.1:${port}/remittances`, WEBHOOK_POLL_INTERVAL_MS: '100' });
  db = new pg.Client({ connectionString: prod.env.DATABASE_URL });
  await db.connect();
}, 120_000);
afterAll(async () => {
  await db?.end().catch(() => undefined);
  await prod?.close();
  await new Promise((r) => proxy?.close(r));
});

it('platform unreachable at start: not ready, unsigned and badly signed deliveries are 401 and store nothing', async () => {
  const r = await readyz();
  expect(r.status).toBe(503);
  expect(JSON.stringify(r.webhooks)).toMatch(/false|fail/);

  const body = compliance('11111111-1111-4111-8111-111111111111', 'some-transfer', 'Approved');
  expect((await postWebhook(prod.url, body)).status).toBe(401);
  expect((await postWebhook(prod.url, body, { 'x-service-signature': signatureHeaderFor('guessed', nowS(), body) })).status).toBe(401);
  expect((await postWebhook(prod.url, body, { 'x-service-signature': 'garbage' })).status).toBe(401);
  expect(await inboxCount()).toBe(0);
  expect((await readyz()).status).toBe(503);
}, 30_000);

it('once the platform answers, the background retry registers our subscription with a secret: ready', async () => {
  platformUp();
  await waitFor(async () => (await readyz()).status === 200, { timeoutMs: 60_000, intervalMs: 25, what: '/readyz 200' });
  const subs = await ownSubs();
  expect(subs).toHaveLength(1);
  expect(subs[0].signingSecret).toEqual(expect.any(String));
  expect(Number((await db.query('SELECT count(*)::int AS n FROM webhook_secrets')).rows[0].n)).toBe(1);
}, 90_000);

it('a forged unsigned decision moves no money; the signed one from the platform completes the transfer', async () => {
  const alice = await prod.token('alice-prod', 'customer');
  const personId = await newPerson(prod.url, alice);
  const quoteId = await newQuote(prod.url, alice);
  const created = await createTransfer(
    prod.url,
    alice,
    transferInput({ quoteId, personId, key: 'prod-webhook-1', lastName: 'Compliance-Review' }),
  );
  expect(created.body.errors).toBeUndefined();
  const id = created.body.data.createTransfer.id as string;
  expect(id).toMatch(/^[0-9a-f-]{36}$/);
  // simple-query protocol (no bind parameters): the PGlite wire server shares one unnamed statement between connections
  const row = async () =>
    (await db.query(`SELECT status, external_payment_id, external_transaction_id FROM transfers WHERE id = '${id}'`)).rows[0];
  const held = await waitFor(
    async () => {
      const r = await row();
      return r.status === 'AUTHORIZED' && r.external_transaction_id ? r : null;
    },
    { timeoutMs: 30_000, intervalMs: 25, what: 'AUTHORIZED with its platform transaction linked (signed platform deliveries)' },
  );

  const forged = compliance(held.external_transaction_id, held.external_payment_id, 'Approved');
  expect((await postWebhook(prod.url, forged)).status).toBe(401);
  expect((await postWebhook(prod.url, forged, { 'x-service-signature': signatureHeaderFor('guessed', nowS(), forged) })).status).toBe(401);
  await new Promise((r) => setTimeout(r, 500));
  expect(await inboxCount('signed = false')).toBe(0);
  expect(await captures(held.external_payment_id)).toEqual([]);
  expect((await row()).status).toBe('AUTHORIZED');

  // the platform's own decision, delivered signed
  const decided = await http('POST', `${prod.sandbox.controlUrl}/transactions/${held.external_payment_id}/compliance`, {
    body: { decision: 'Approved' },
  });
  expect(decided.status).toBe(200);
  await waitFor(async () => (await row()).status === 'COMPLETED', { timeoutMs: 60_000, intervalMs: 25, what: 'COMPLETED' });
  expect((await captures(held.external_payment_id)).length).toBeGreaterThan(0);
}, 120_000);

it('deleting the signing secret of our own subscription, or the subscription, is refused: no unsigned window', async () => {
  const admin = await prod.token('root', 'admin');
  const res: any = await gql<any>(prod.url, 'mutation { deleteWebhookSecret }', { token: admin });
  expect(res.body.errors[0].extensions.code).toBe('INVALID_STATE');
  const [sub] = await ownSubs();
  const del: any = await gql<any>(prod.url, 'mutation($id: ID!) { deleteWebhookSubscription(id: $id) }', {
    token: admin,
    variables: { id: sub.id },
  });
  expect(del.body.errors[0].extensions.code).toBe('INVALID_STATE');
  expect((await ownSubs())[0].signingSecret).toEqual(expect.any(String));
  expect((await readyz()).status).toBe(200);
}, 30_000);

it('a second instance on the same database and PUBLIC_URL reuses the subscription and its secret', async () => {
  const [before] = await ownSubs();
  let second: ServiceProcess | null = null;
  try {
    second = await spawnService({ ...prod.env, PORT: String(await freePort()), METRICS_PORT: '0' }, 90_000);
    await waitFor(async () => (await http('GET', `${second!.url}/readyz`)).status === 200, {
      timeoutMs: 30_000,
      intervalMs: 25,
      what: 'second instance ready',
    });
    const after = await ownSubs();
    expect(after).toHaveLength(1);
    expect(after[0].id).toBe(before.id);
    expect(after[0].signingSecret).toBe(before.signingSecret);
  } finally {
    second?.proc.kill('SIGTERM');
    await second?.exited;
  }
}, 120_000);
