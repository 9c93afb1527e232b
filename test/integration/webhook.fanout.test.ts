/**
 * Two service processes sharing PostgreSQL and Redis, one platform (an external sandbox), one webhook
 * subscription: the signing secret is registered through instance B and stored (encrypted) in the shared
 * database; the platform delivers to instance A, which verifies with it; a graphql-ws subscriber on B
 * sees the transfer complete. Runs only where DATABASE_URL (postgres) and REDIS_URL are set; needs dist/.
 */
import { randomBytes } from 'node:crypto';
import { checkCardAs, personInput } from '../helpers/funding';
import { RECIPIENT } from '../e2e/transfer-helpers';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { gql } from '../helpers/app';
import { runNode, spawnService, type ServiceProcess } from '../helpers/process';
import { cardToken, startTestSandbox, type TestSandbox } from '../helpers/sandbox';
import { collect, wsClient } from '../helpers/ws';
import { waitFor } from '../helpers/wait';

const pgUrl = process.env.DATABASE_URL?.startsWith('postgres') ? process.env.DATABASE_URL : undefined;
const redis = process.env.REDIS_URL;

const freePort = () =>
  new Promise<number>((resolve, reject) => {
    const s = createServer();
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
    s.on('error', reject);
  });

if (!pgUrl || !redis) {
  console.warn('webhook fan-out across two processes skipped: needs DATABASE_URL=postgres://… and REDIS_URL');
  it.skip('webhook into one instance, subscriber on the other (needs PostgreSQL and Redis)', () => undefined);
} else {
  describe('two instances, PostgreSQL + Redis, one platform subscription', () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'rbff-webhook-fanout-'));
    const dbName = `test_webhook_fanout_${randomBytes(4).toString('hex')}`;
    const admin = new pg.Client({ connectionString: pgUrl });
    const procs: ServiceProcess[] = [];
    let sandbox: TestSandbox;

    beforeAll(async () => {
      await admin.connect();
      await admin.query(`CREATE DATABASE ${dbName}`);
      sandbox = await startTestSandbox({ options: { lifecycleStepMs: 30 } });
    });
    afterAll(async () => {
      for (const p of procs) {
        p.proc.kill('SIGTERM');
        await p.exited;
      }
      await sandbox?.close();
      await admin.query(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`).catch(() => undefined);
      await admin.end();
      rmSync(dataDir, { recursive: true, force: true });
    });

    it('a webhook received by A moves the transfer; the subscriber on B sees COMPLETED', async () => {
      const u = new URL(pgUrl);
      u.pathname = `/${dbName}`;
      const portA = await freePort();
      const env = {
        DATA_DIR: dataDir,
        DATABASE_URL: u.toString(),
        REDIS_URL: redis,
        GATEWAY_BASE_URL: sandbox.gatewayUrl,
        REMITTANCES_BASE_URL: sandbox.remittancesUrl,
        VERIFICATION_BASE_URL: sandbox.verificationUrl,
        PUBLIC_URL: `http://127.0.0.1:${portA}`, // the "load balancer" sends every webhook to A
        WEBHOOK_SECRET_ENCRYPTION_KEY: randomBytes(32).toString('base64'),
        WEBHOOK_POLL_INTERVAL_MS: '100',
        SAGA_POLL_INTERVAL_MS: '100',
        RATE_LIMIT_MUTATIONS_PER_MINUTE: '100000',
        RATE_LIMIT_UPSTREAM_POINTS_PER_MINUTE: '100000',
      };
      procs.push(...(await Promise.all([spawnService({ ...env, PORT: String(portA) }), spawnService(env)])));
      const [a, b] = procs as [ServiceProcess, ServiceProcess];
      const tokenOf = async (sub: string, role: string) =>
        (await runNode('dist/auth/token.cli.js', ['--sub', sub, '--role', role], { DATA_DIR: dataDir })).stdout.trim();
      const root = await tokenOf('root', 'admin');
      const gina = await tokenOf('gina', 'customer');

      // registered at start by both (one at a time, under the shared lease); asking B again finds it
      const reg = await gql<{
        registerWebhookSubscription: { created: boolean; subscription: { url: string }; secret: { fingerprint: string } };
      }>(b.url, 'mutation { registerWebhookSubscription { created subscription { url } secret { fingerprint } } }', { token: root });
      expect(reg.body.errors).toBeUndefined();
      expect(reg.body.data!.registerWebhookSubscription).toMatchObject({
        created: false,
        subscription: { url: `${a.url}/webhooks/remittances` },
      });

      const must = async <T>(url: string, q: string, variables: Record<string, unknown>) => {
        const r = await gql<T>(url, q, { token: gina, variables });
        if (r.body.errors) throw new Error(JSON.stringify(r.body.errors));
        return r.body.data!;
      };
      const person = await must<{ createPerson: { id: string } }>(a.url, 'mutation($i: PersonInput!) { createPerson(input: $i) { id } }', {
        i: { ...personInput(), firstName: 'Gina', email: 'gina@example.com' },
      });
      const quote = await must<{ createQuote: { id: string } }>(
        a.url,
        'mutation($i: CreateQuoteInput!) { createQuote(input: $i) { id } }',
        {
          i: { sourceCurrency: 'USD', destinationCurrency: 'BRL', paymentMethod: 'CARD', sourceAmount: '100.00' },
        },
      );
      await checkCardAs(a.url, gina, cardToken('1234')); // a card funds only the transfers of the customer who checked it
      const tr = await must<{ createTransfer: { id: string } }>(
        a.url,
        'mutation($i: CreateTransferInput!) { createTransfer(input: $i) { id } }',
        {
          i: {
            idempotencyKey: 'fanout-1',
            quoteId: quote.createQuote.id,
            personId: person.createPerson.id,
            recipient: RECIPIENT,
            funding: { type: 'CARD', cardToken: cardToken('1234') },
          },
        },
      );

      const { client } = wsClient(`${b.url.replace('http', 'ws')}/graphql`, gina);
      const sub = collect<{ transferUpdated: { status: string; version: number } }>(
        client,
        'subscription($id: ID!) { transferUpdated(transferId: $id) { status version } }',
        {
          id: tr.createTransfer.id,
        },
      );
      try {
        await waitFor(() => sub.results.some((r) => r.data?.transferUpdated.status === 'COMPLETED'), {
          timeoutMs: 30_000,
          intervalMs: 25,
          what: 'COMPLETED on B',
        });
      } finally {
        sub.dispose();
        await client.dispose();
      }
      const hooks = (
        await sandbox.request<{ webhooks: { url: string; deliveries: { status: number; signed: boolean }[] }[] }>(
          'GET',
          '/__sandbox/webhooks',
        )
      ).body.webhooks;
      expect(hooks).toHaveLength(1);
      expect(hooks[0]!.deliveries.length).toBeGreaterThan(0);
      expect(hooks[0]!.deliveries.every((d) => d.signed && d.status === 200)).toBe(true);
      for (const p of [a, b]) {
        const ready = (await (await fetch(`${p.url}/readyz`, { headers: { authorization: `Bearer ${root}` } })).json()) as {
          checks: { webhooks: { details: { mode: string } } };
        };
        expect(ready.checks.webhooks.details.mode).toBe('signed');
      }
    }, 90_000);
  });
}
