/**
 * POST /webhooks/remittances over real HTTP, against the whole service with its built-in sandbox (which
 * registered the service's subscription and created its signing secret at start).
 */
import fc from 'fast-check';
import { gql, startTestApp, type TestApp } from '../helpers/app';
import { secretFingerprint } from '../../src/modules/webhook/webhook.crypto';
import { signatureHeaderFor } from '../../src/modules/webhook/webhook.signature';
import { SUBSCRIBED_EVENTS } from '../../src/modules/webhook/webhook.normalize';
import { documentEvent, nowS, ownSubscription, postSigned, postWebhook, sandboxSubscriptions } from './webhook.helpers';
import { waitFor } from '../helpers/wait';

let t: TestApp;
let secret: string;
let admin: string;
const inboxCount = () => t.app.db.prisma.webhookInbox.count();

beforeAll(async () => {
  t = await startTestApp({ WEBHOOK_POLL_INTERVAL_MS: '50' });
  admin = await t.token('root', 'admin');
  secret = (await ownSubscription(t)).signingSecret!;
}, 60_000);
afterAll(async () => t?.close());

describe('sandbox self-registration', () => {
  it('registered our URL with every event and a secret we hold; doing it again changes nothing', async () => {
    const sub = await ownSubscription(t);
    expect(sub.events).toEqual([...SUBSCRIBED_EVENTS]);
    expect(secret).toHaveLength(44);
    const res = await gql<{ webhookSubscriptions: { id: string; isOwn: boolean; secretStored: boolean; secretFingerprint: string }[] }>(
      t.url,
      '{ webhookSubscriptions { id isOwn secretStored secretFingerprint } }',
      { token: admin },
    );
    expect(res.body.data!.webhookSubscriptions).toEqual([
      { id: sub.id, isOwn: true, secretStored: true, secretFingerprint: secretFingerprint(secret) },
    ]);
    expect(await t.app.webhooks.subscriptions.ensureRegistration()).toEqual({ subscriptionId: sub.id, created: false, rotated: false });
    const again = await gql<{ registerWebhookSubscription: { created: boolean; secret: unknown; subscription: { id: string } } }>(
      t.url,
      'mutation { registerWebhookSubscription { created secret { fingerprint } subscription { id } } }',
      { token: admin },
    );
    expect(again.body.data!.registerWebhookSubscription).toEqual({ created: false, secret: null, subscription: { id: sub.id } });
    expect((await sandboxSubscriptions(t)).length).toBe(1);
    expect((await ownSubscription(t)).signingSecret).toBe(secret);
  });

  it('admin only', async () => {
    const customer = await t.token('alice', 'customer');
    for (const q of [
      '{ webhookSubscriptions { id } }',
      'mutation { rotateWebhookSecret { fingerprint } }',
      'mutation { deleteWebhookSecret }',
    ]) {
      const res = await gql(t.url, q, { token: customer });
      expect(res.body.errors![0]!.extensions!.code).toBe('FORBIDDEN');
      expect((await gql(t.url, q)).body.errors![0]!.extensions!.code).toBe('UNAUTHENTICATED');
    }
  });
});

describe('signature vectors', () => {
  const event = (n: number) => documentEvent(`sigdoc-${n}-${Math.random()}`, 'PENDING', new Date().toISOString());

  it('accepts a valid signature and stores the event', async () => {
    const before = await inboxCount();
    expect(await postSigned(t.url, secret, event(1))).toEqual({ status: 200, body: { received: true, duplicate: false } });
    expect(await inboxCount()).toBe(before + 1);
  });

  it('refuses tampered body, wrong secret, old and future timestamps, missing and malformed headers — storing nothing', async () => {
    const before = await inboxCount();
    const body = JSON.stringify(event(2));
    const good = signatureHeaderFor(secret, nowS(), body);
    const cases: [string, string | Buffer, Record<string, string>][] = [
      ['tampered body', body.replace('PENDING', 'VERIFIED'), { 'x-service-signature': good }],
      ['wrong secret', body, { 'x-service-signature': signatureHeaderFor('not-the-secret', nowS(), body) }],
      // Well outside ±300 s: the exact boundary (±300 accepted, ±301 refused) is proven on an injected clock in
      // test/unit/webhook.signature.test.ts; here a loaded machine's latency must not move a case across it.
      ['old timestamp', body, { 'x-service-signature': signatureHeaderFor(secret, nowS() - 360, body) }],
      ['future timestamp', body, { 'x-service-signature': signatureHeaderFor(secret, nowS() + 360, body) }],
      ['missing header', body, {}],
      ['no t', body, { 'x-service-signature': good.replace(/^t=\d+,/, '') }],
      ['no v1', body, { 'x-service-signature': good.replace(/,v1=.*/, '') }],
      ['garbage', body, { 'x-service-signature': 'hello' }],
      ['several v1, none valid', body, { 'x-service-signature': `t=${nowS()},v1=${'0'.repeat(64)},v1=${'f'.repeat(64)}` }],
      ['signature of another timestamp', body, { 'x-service-signature': good.replace(/^t=\d+/, `t=${nowS() - 1}`) }],
      ['malformed JSON with a bad signature', '{"event":', { 'x-service-signature': good }],
    ];
    for (const [name, b, headers] of cases) {
      const res = await postWebhook(t.url, b, headers);
      expect({ name, status: res.status }).toEqual({ name, status: 401 });
      expect(res.body).toEqual({ error: 'invalid_signature' }); // nothing about why
    }
    expect(await inboxCount()).toBe(before);
  });

  it('accepts several v1 values when one is valid, and timestamps inside the window', async () => {
    const body = JSON.stringify(event(3));
    const v1 = signatureHeaderFor(secret, nowS(), body).split('v1=')[1];
    expect(
      (await postWebhook(t.url, body, { 'x-service-signature': `t=${nowS()},v1=${'0'.repeat(64)},v1=${v1},v2=whatever` })).status,
    ).toBe(200);
    expect((await postSigned(t.url, secret, event(4), nowS() - 290)).status).toBe(200);
    expect((await postSigned(t.url, secret, event(5), nowS() + 290)).status).toBe(200);
  });

  it('verifies the raw bytes: the same JSON re-serialised differently does not verify', async () => {
    const body = `{ "event" : "DocumentUpdatedEvents", "id": "raw-${Math.random()}", "entityId": "e", "documentType": "PASSPORT", "verificationStatus": "PENDING", "occurredAt": "2026-01-01T00:00:00Z" }`;
    const header = signatureHeaderFor(secret, nowS(), body);
    expect((await postWebhook(t.url, JSON.stringify(JSON.parse(body)), { 'x-service-signature': header })).status).toBe(401);
    expect((await postWebhook(t.url, body, { 'x-service-signature': header, 'content-type': 'text/plain' })).status).toBe(200);
  });

  it('malformed JSON or a non-event with a valid signature → 400, nothing stored', async () => {
    const before = await inboxCount();
    for (const body of ['{"event":', 'not json', '[1,2]', '"x"', '{}', '{"event": 42}', ''])
      expect((await postSigned(t.url, secret, body)).status).toBe(400);
    expect(await inboxCount()).toBe(before);
  });
});

describe('fuzz', () => {
  it('malformed headers and bodies are never accepted and never crash the process', async () => {
    const before = await inboxCount();
    const validBody = JSON.stringify(documentEvent('fuzz-doc', 'PENDING', '2026-01-01T00:00:00Z'));
    const hex = (minLength: number, maxLength: number) =>
      fc.string({ unit: fc.constantFrom(...'0123456789abcdefABCDEF'), minLength, maxLength });
    const header = fc.oneof(
      fc.string({ maxLength: 200 }),
      fc.tuple(fc.oneof(fc.integer({ min: -1e6, max: 2 ** 31 - 1 }), fc.constant(nowS())), hex(0, 70)).map(([ts, h]) => `t=${ts},v1=${h}`),
      fc.tuple(fc.integer({ min: 0, max: 5 }), hex(64, 64)).map(([n, h]) => `t=${nowS()},${'v1=0,'.repeat(n)}v1=${h}`),
      fc.constant(undefined),
    );
    const body = fc.oneof(
      fc.string({ maxLength: 300 }),
      fc.uint8Array({ maxLength: 300 }).map((a) => Buffer.from(a)),
      fc.jsonValue({ maxDepth: 3 }).map((v) => JSON.stringify(v)),
      fc.constant(validBody),
    );
    await fc.assert(
      fc.asyncProperty(header, body, fc.constantFrom('application/json', 'text/plain', 'application/octet-stream'), async (h, b, type) => {
        const res = await postWebhook(t.url, b, { 'content-type': type, ...(h === undefined ? {} : { 'x-service-signature': h }) });
        expect([400, 401]).toContain(res.status);
      }),
      { numRuns: 150 },
    );
    expect(await inboxCount()).toBe(before);
    expect((await fetch(`${t.url}/healthz`)).status).toBe(200);
  });
});

describe('inbox', () => {
  it('duplicates are stored once, whatever the key order or event-name spelling, and answered 200', async () => {
    const id = `dup-${Math.random()}`;
    const e = documentEvent(id, 'VERIFIED', '2026-01-05T00:00:00Z');
    const first = await postSigned(t.url, secret, e);
    expect(first.body).toEqual({ received: true, duplicate: false });
    const reordered = Object.fromEntries(Object.entries(e).reverse());
    for (const payload of [e, reordered, { ...e, event: 'documentUpdatedEvents' }, { ...e, event: 'DOCUMENTUPDATEDEVENTS' }]) {
      const res = await postSigned(t.url, secret, payload, nowS() - 5);
      expect(res).toEqual({ status: 200, body: { received: true, duplicate: true } });
    }
    expect(await t.app.db.prisma.webhookInbox.count({ where: { payload: { path: ['id'], equals: id } } })).toBe(1);
  });

  it('document events: spelling-insensitive, out of order → greatest occurredAt wins; agents (earlier generation) stored', async () => {
    const id = `doc-${Math.random()}`;
    await postSigned(t.url, secret, documentEvent(id, 'VERIFIED', '2026-02-01T00:00:02Z', 'documentupdatedevents'));
    await postSigned(t.url, secret, documentEvent(id, 'PENDING', '2026-02-01T00:00:01Z', 'DocumentUpdatedEvents'));
    await postSigned(t.url, secret, {
      event: 'agentStatusChangedEvent',
      id: 'agent-early-1',
      status: 'Active',
      tenantId: 'sandbox-tenant',
    });
    await waitFor(async () => (await t.app.db.prisma.webhookInbox.count({ where: { processedAt: null } })) === 0, {
      timeoutMs: 10_000,
      intervalMs: 25,
      what: 'processing',
    });
    expect(await t.app.db.prisma.platformDocument.findUnique({ where: { id } })).toMatchObject({
      verificationStatus: 'VERIFIED',
      documentType: 'PASSPORT',
    });
    expect(await t.app.db.prisma.platformAgent.findUnique({ where: { id: 'agent-early-1' } })).toMatchObject({ status: 'ACTIVE' });
  });

  it('transaction events of every spelling and both generations land in one stream per transaction', async () => {
    const transactionId = '33333333-3333-4333-8333-333333333333';
    const base = { transactionId, externalTransactionId: 'ext-33', tenantId: 'sandbox-tenant' };
    await postSigned(t.url, secret, {
      event: 'transactionstatuschanged',
      ...base,
      oldStatus: null,
      newStatus: 'Created',
      newStatusMessages: [],
    });
    await postSigned(t.url, secret, {
      event: 'TRANSACTIONCOMPLIANCESTATUSCHANGEDEVENT',
      ...base,
      oldComplianceStatus: null,
      newComplianceStatus: 'Pending',
      newStatusMessages: [],
    });
    await postSigned(t.url, secret, {
      event: 'TransactionComplianceStatusChanged',
      transactionId,
      tenantId: 'sandbox-tenant',
      externalId: 'ext-33',
      complianceStatus: 'Hold',
      payoutStatus: 'Pending',
      timestamp: '2026-01-01T00:00:00Z',
      messages: [],
    });
    const rows = await t.app.db.prisma.webhookInbox.findMany({ where: { streamKey: `tx:${transactionId}` }, orderBy: { seq: 'asc' } });
    expect(rows.map((r) => r.kind)).toEqual(['transaction', 'transaction', 'transaction']);
    // no transfer has this transaction: the head is retried during the grace period, the rest wait behind it
    const head = await waitFor(() => t.app.db.prisma.webhookInbox.findFirst({ where: { id: rows[0]!.id, attempts: { gte: 1 } } }), {
      timeoutMs: 10_000,
      intervalMs: 25,
      what: 'first attempt',
    });
    expect(head).toMatchObject({ processedAt: null, lastError: 'unknown transfer' });
    expect(await t.app.db.prisma.webhookInbox.count({ where: { id: { in: [rows[1]!.id, rows[2]!.id] }, attempts: 0 } })).toBe(2);
  });
});

describe('secrets', () => {
  it('encryption at rest: the row never contains the secret', async () => {
    const rows = await t.app.db.prisma.$queryRaw<{ row: string }[]>`SELECT row_to_json(w)::text AS row FROM webhook_secrets w`;
    expect(rows).toHaveLength(1);
    const forms = [
      secret,
      Buffer.from(secret, 'base64').toString('hex'),
      Buffer.from(secret).toString('base64'),
      Buffer.from(secret, 'base64').toString('base64url'),
    ];
    for (const f of forms) expect(rows[0]!.row).not.toContain(f);
    expect(rows[0]!.row).toContain(secretFingerprint(secret));
    expect(t.logs.join('\n')).not.toContain(secret);
  });

  it('rotation via the admin mutation: the sandbox then signs with the new secret, which verifies; the old one no longer does', async () => {
    const old = secret;
    const res = await gql<{ rotateWebhookSecret: { fingerprint: string; subscriptionId: string } }>(
      t.url,
      'mutation { rotateWebhookSecret { subscriptionId fingerprint rotatedAt } }',
      { token: admin },
    );
    expect(res.body.errors).toBeUndefined();
    const sub = await ownSubscription(t);
    secret = sub.signingSecret!;
    expect(secret).not.toBe(old);
    expect(res.body.data!.rotateWebhookSecret).toMatchObject({ subscriptionId: sub.id, fingerprint: secretFingerprint(secret) });
    expect(JSON.stringify(res.body)).not.toContain(secret);

    // a real delivery from the platform: creating an agent emits AgentUpdatedEvents
    const agent = await t.app.upstream.remittances.createAgent({ email: 'rotation@example.com', businessName: 'Rotation Ltd' });
    await waitFor(() => t.app.db.prisma.platformAgent.findUnique({ where: { id: agent.id } }), {
      timeoutMs: 10_000,
      intervalMs: 25,
      what: 'agent event',
    });
    const deliveries = (await ownSubscription(t)).deliveries.filter((d) => d.event === 'AgentUpdatedEvents');
    expect(deliveries.at(-1)).toMatchObject({ status: 200, signed: true });
    expect((await postSigned(t.url, old, documentEvent(`old-${Math.random()}`, 'PENDING', new Date().toISOString()))).status).toBe(401);
  });

  it('unsigned mode: deleting the secret makes it visible in /readyz and the logs, and accepts unsigned deliveries; a new secret ends it', async () => {
    const del = await gql(t.url, 'mutation { deleteWebhookSecret }', { token: admin });
    expect(del.body).toEqual({ data: { deleteWebhookSecret: true } });
    const adminHeaders = { authorization: `Bearer ${admin}` };
    const ready = (await (await fetch(`${t.url}/readyz`, { headers: adminHeaders })).json()) as {
      status: string;
      checks: { webhooks: { status: string; details: { mode: string } } };
    };
    expect(ready.status).toBe('ready'); // optional check
    expect(ready.checks.webhooks).toMatchObject({ status: 'fail', details: { mode: 'unsigned' } });
    expect(t.logs.some((l) => l.includes('UNSIGNED mode'))).toBe(true);
    const unsigned = await postWebhook(
      t.url,
      JSON.stringify(documentEvent(`unsigned-${Math.random()}`, 'PENDING', new Date().toISOString())),
    );
    expect(unsigned.status).toBe(200);
    // a platform delivery, unsigned now
    const agent = await t.app.upstream.remittances.createAgent({ email: 'unsigned@example.com', businessName: 'Unsigned Ltd' });
    await waitFor(() => t.app.db.prisma.platformAgent.findUnique({ where: { id: agent.id } }), {
      timeoutMs: 10_000,
      intervalMs: 25,
      what: 'unsigned agent event',
    });
    expect(await t.app.db.prisma.webhookInbox.count({ where: { signed: false } })).toBeGreaterThanOrEqual(2);

    const rot = await gql<{ rotateWebhookSecret: { fingerprint: string } }>(t.url, 'mutation { rotateWebhookSecret { fingerprint } }', {
      token: admin,
    });
    secret = (await ownSubscription(t)).signingSecret!;
    expect(rot.body.data!.rotateWebhookSecret.fingerprint).toBe(secretFingerprint(secret));
    const signedAgain = (await (await fetch(`${t.url}/readyz`, { headers: adminHeaders })).json()) as {
      checks: { webhooks: { status: string; details: { mode: string; secretFingerprints: string[] } } };
    };
    expect(signedAgain.checks.webhooks).toMatchObject({
      status: 'ok',
      details: { mode: 'signed', secretFingerprints: [secretFingerprint(secret)] },
    });
    expect(
      (await postWebhook(t.url, JSON.stringify(documentEvent(`unsigned2-${Math.random()}`, 'PENDING', new Date().toISOString())))).status,
    ).toBe(401);
  });
});
