/**
 * The remittances client against the sandbox running TLS with a required client certificate
 * (certificates made with openssl in the test): every endpoint, agent headers, 403 agent not approved,
 * 429 with Retry-After (on a plain-HTTP sandbox with a low rate limit).
 */
import { randomUUID } from 'node:crypto';
import { startSandbox, type RunningSandbox } from '@remittance-bff/sandbox';
import { UpstreamError } from '../../src/upstream/http/upstream.errors';
import { makePki, type TestPki } from './helpers/upstream.certs';
import { harness, type Harness } from './helpers/upstream.local-server';
import { SandboxControl } from './helpers/upstream.sandbox-control';

let pki: TestPki;
let sandbox: RunningSandbox;
let control: SandboxControl;
let h: Harness;
const tlsEnv = () => ({
  REMITTANCES_CLIENT_CERT: pki.paths.clientCert,
  REMITTANCES_CLIENT_KEY: pki.paths.clientKey,
  REMITTANCES_CLIENT_CA: pki.paths.caCert,
});

beforeAll(async () => {
  pki = makePki();
  sandbox = await startSandbox({
    port: 0,
    tls: { cert: pki.serverCert, key: pki.serverKey, ca: pki.caCert, requireClientCert: true },
  });
  expect(sandbox.url).toMatch(/^https:/);
  control = new SandboxControl(sandbox.url, { ca: pki.caCert });
});
afterAll(async () => {
  await control.close();
  await sandbox.close();
  pki.cleanup();
});
beforeEach(async () => {
  await control.reset();
  h = harness(sandbox.url, tlsEnv());
});
afterEach(async () => h.clients.close());

const rejection = async (p: Promise<unknown>): Promise<UpstreamError> => {
  const e = await p.then(
    () => null,
    (err: unknown) => err,
  );
  expect(e).toBeInstanceOf(UpstreamError);
  return e as UpstreamError;
};

describe('remittances platform over mutual TLS', () => {
  it('webhook subscriptions: create, list, rotate secret (agent), delete secret (agent), delete', async () => {
    const r = h.clients.remittances;
    const sub = await r.createWebhook({ url: 'https://example.com/hooks', events: ['TransactionStatusChanged'] });
    expect(sub).toMatchObject({ url: 'https://example.com/hooks', secretFingerprint: null });
    await expect(r.listWebhooks()).resolves.toMatchObject({ webhooks: [{ id: sub.id }] });
    const secret = await r.rotateWebhookSecret(sub.id);
    expect(secret.signingSecret).toHaveLength(44);
    expect(secret.signatureVersion).toBe('v1');
    await expect(r.deleteWebhookSecret(sub.id)).resolves.toBeUndefined();
    await expect(r.deleteWebhook(sub.id)).resolves.toBeUndefined();
    await expect(r.listWebhooks()).resolves.toEqual({ webhooks: [] });
    const calls = await control.calls('/remittances/');
    expect(calls.every((c) => c.status < 400)).toBe(true);
    // the signing secret never reached the logs
    expect(h.logs.text).not.toContain(secret.signingSecret);
  });

  it('agents: created PENDING_APPROVAL → 403 AGENT_NOT_APPROVED (typed) → approved → works', async () => {
    const agent = await h.clients.remittances.createAgent({ email: 'ops@example.com', businessName: 'Example Remit' });
    expect(agent).toMatchObject({ status: 'PENDING_APPROVAL' });
    expect(agent.apiKey).toBeTruthy();
    expect(h.logs.text).not.toContain(agent.apiKey);
    const legacy = await h.clients.remittances.createAgentLegacy({ email: 'ops2@example.com', businessName: 'Other' });
    expect(legacy.id).not.toBe(agent.id);

    const asAgent = harness(sandbox.url, { ...tlsEnv(), REMITTANCES_AGENT_ID: agent.id, REMITTANCES_AGENT_API_KEY: agent.apiKey });
    const err = await rejection(asAgent.clients.remittances.getFxTransactionLimits());
    expect(err).toMatchObject({
      service: 'remittances',
      kind: 'forbidden',
      status: 403,
      upstreamCode: 'AGENT_NOT_APPROVED',
      retryable: false,
    });
    expect(err.toAppError().code).toBe('UPSTREAM_UNAVAILABLE');
    await control.approveAgent(agent.id);
    await expect(asAgent.clients.remittances.getFxTransactionLimits()).resolves.toBeDefined();
    await asAgent.clients.close();
  });

  it('people, compliance levels, documents, address check (tenant endpoints)', async () => {
    const r = h.clients.remittances;
    const person = await r.createPerson({ firstName: 'Ana', lastName: 'Silva', email: 'ana@example.com' });
    await expect(r.updatePerson(person.id, { phone: '+14155550100' })).resolves.toMatchObject({ id: person.id });
    await expect(r.getPerson(person.id)).resolves.toMatchObject({ id: person.id });
    await expect(r.getComplianceLevels(person.id)).resolves.toHaveProperty('levels');
    await expect(r.uploadDocument(person.id, { fileName: 'p.pdf' }, 'PASSPORT')).resolves.toMatchObject({ documentType: 'PASSPORT' });
    await expect(r.uploadDocument(person.id, { documentType: 'SSN' })).resolves.toMatchObject({ documentType: 'SSN' });
    await expect(r.checkAddress({ line1: '1 Market St', city: 'San Francisco', country: 'US' })).resolves.toMatchObject({ valid: true });
    const missing = await rejection(r.getPerson(randomUUID()));
    expect(missing).toMatchObject({ kind: 'not_found', upstreamCode: 'NOT_FOUND' });
    // the agent headers are not sent to tenant-level endpoints (nothing to prove over TLS; see the local test)
  });

  it('payout: quote, funding and recipient accounts, reference data (agent endpoints)', async () => {
    const r = h.clients.remittances;
    const person = await r.createPerson({ firstName: 'Ana', lastName: 'Silva' });
    await expect(
      r.createPayoutQuote({ sourceCurrency: 'USD', destinationCurrency: 'BRL', sourceAmount: '100.00' }),
    ).resolves.toHaveProperty('quoteId');
    await expect(r.createFundingAccount(person.id, { type: 'CARD', cardTokenId: randomUUID() })).resolves.toMatchObject({
      participantId: person.id,
    });
    await expect(r.createGatewayRecipientAccount(person.id, { pixKey: 'ana@example.com' })).resolves.toMatchObject({ provider: 'gateway' });
    const dest = await r.listDestinations();
    expect(dest).toHaveProperty('destinations');
    await expect(r.listDestinationBanks('BR')).resolves.toHaveProperty('banks');
    for (const kind of ['recipient', 'account', 'transaction'] as const)
      await expect(r.getPayoutSchema(kind, 'BR')).resolves.toMatchObject({ kind });
  });

  it('FX transactions: create (exact decimal amount), get by external id, list, history, metadata, limits, cancel', async () => {
    const r = h.clients.remittances;
    const ext = `tx-${randomUUID()}`;
    const t = await r.createFxTransaction({ externalTransactionId: ext, amount: { total: '100.10', currency: 'USD' }, metadata: { a: 1 } });
    expect(t).toMatchObject({ externalTransactionId: ext, amount: { total: 100.1, currency: 'USD' } });
    await expect(r.getFxTransaction(ext)).resolves.toMatchObject({ transactionId: t.transactionId });
    await expect(r.listFxTransactions({ externalTransactionId: ext })).resolves.toMatchObject({ total: 1 });
    await expect(r.getFxTransactionStatusHistory(t.transactionId)).resolves.toHaveProperty('history');
    await expect(r.setFxTransactionMetadata(t.transactionId, { b: 2 }, 'merge')).resolves.toBeDefined();
    await expect(r.setFxTransactionMetadata(t.transactionId, { c: 3 })).resolves.toBeDefined();
    await expect(r.getFxTransactionMetadata(t.transactionId)).resolves.toEqual({ metadata: { c: 3 } });
    await expect(r.getFxTransactionLimits()).resolves.toHaveProperty('perTransaction');
    await expect(r.cancelFxTransaction(t.transactionId)).resolves.toMatchObject({ transactionId: t.transactionId });
    const dup = await rejection(r.createFxTransaction({ externalTransactionId: ext }));
    expect(dup).toMatchObject({ kind: 'rejected', status: 409 });
    expect(dup.toAppError().code).toBe('UPSTREAM_REJECTED');
  });

  it('wallet operations (agent)', async () => {
    const r = h.clients.remittances;
    await expect(r.listWallets()).resolves.toHaveProperty('wallets');
    await expect(r.depositToWallet('USD', { amount: '100.00' })).resolves.toBeDefined();
    await expect(r.getWallet('USD')).resolves.toBeDefined();
  });

  it('without a client certificate the platform refuses (403 CLIENT_CERTIFICATE_REQUIRED), typed', async () => {
    const noCert = harness(sandbox.url, { REMITTANCES_CLIENT_CA: pki.paths.caCert });
    const err = await rejection(noCert.clients.remittances.listWebhooks());
    expect(err).toMatchObject({ kind: 'forbidden', status: 403, upstreamCode: 'CLIENT_CERTIFICATE_REQUIRED' });
    await noCert.clients.close();
  });

  it('a wrong API key → unauthorized, not retried', async () => {
    const bad = harness(sandbox.url, { ...tlsEnv(), REMITTANCES_API_KEY: 'wrong' });
    const err = await rejection(bad.clients.remittances.listWebhooks());
    expect(err).toMatchObject({ kind: 'unauthorized', status: 401, upstreamCode: 'INVALID_API_KEY' });
    expect(await control.calls('/remittances/')).toHaveLength(1);
    expect(bad.logs.text).not.toContain('"wrong"');
    await bad.clients.close();
  });
});

describe('remittances rate limit', () => {
  it('429 → rate_limited with Retry-After; reads wait it out and retry, writes surface it', async () => {
    const limited = await startSandbox({ port: 0, options: { remittancesRatePerSecond: 5 } });
    const lh = harness(limited.url, {}, { realSleep: true });
    try {
      const results = await Promise.allSettled(
        Array.from({ length: 12 }, (_v, i) => lh.clients.remittances.createPerson({ firstName: 'A', lastName: `N${i}` })),
      );
      const errors = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected').map((r) => r.reason as UpstreamError);
      expect(errors.length).toBeGreaterThanOrEqual(7);
      for (const e of errors) {
        expect(e).toMatchObject({ kind: 'rate_limited', status: 429, upstreamCode: 'RATE_LIMITED' });
        expect(e.retryAfterMs).toBeGreaterThanOrEqual(1000);
        expect(e.toAppError().code).toBe('RATE_LIMITED');
      }
      // a read during the limit waits the Retry-After (real 1 s here) and then succeeds
      const t0 = performance.now();
      await expect(lh.clients.remittances.listWebhooks()).resolves.toEqual({ webhooks: [] });
      expect(performance.now() - t0).toBeGreaterThanOrEqual(500);
    } finally {
      await lh.clients.close();
      await limited.close();
    }
  });
});
