import { createHash } from 'node:crypto';
import {
  AGENT_ID,
  agentHeaders,
  call,
  type Harness,
  Receiver,
  startHarness,
  subscribe,
  TENANT,
  tenantHeaders,
  waitFor,
} from './remittances.harness';

let h: Harness;
let base: string;
const R = '/remittances';

beforeAll(async () => {
  h = await startHarness({ options: { remittancesRatePerSecond: 1000, lifecycleStepMs: 5, webhookRetryDelaysMs: [20, 20] } });
  base = h.url;
});
afterAll(async () => h.close());
beforeEach(() => h.ctx.reset());

describe('tenant API key', () => {
  it('401 without or with a wrong x-api-key, in the documented error envelope', async () => {
    for (const headers of [{}, tenantHeaders('wrong')]) {
      const res = await call(base, 'GET', `${R}/organizations/${TENANT}/webhooks`, { headers });
      expect(res.status).toBe(401);
      expect(res.body).toEqual({ statusCode: 401, error: 'Unauthorized', code: 'INVALID_API_KEY', message: expect.any(String) });
    }
  });

  it('another tenant in the path → 404', async () => {
    const res = await call(base, 'GET', `${R}/organizations/other-tenant/webhooks`, { headers: tenantHeaders() });
    expect(res.status).toBe(404);
    expect(res.body.code).toBe('NOT_FOUND');
  });

  it('agent-level endpoint without agent headers → 403; wrong agent key → 401', async () => {
    const id = await subscribe(base, 'https://example.com/hook', ['TransactionStatusChanged']);
    const noAgent = await call(base, 'POST', `${R}/organizations/${TENANT}/webhooks/${id}/secret`, { headers: tenantHeaders() });
    expect(noAgent.status).toBe(403);
    expect(noAgent.body.code).toBe('AGENT_AUTH_REQUIRED');
    const wrong = await call(base, 'POST', `${R}/organizations/${TENANT}/webhooks/${id}/secret`, {
      headers: agentHeaders(AGENT_ID, 'nope'),
    });
    expect(wrong.status).toBe(401);
    expect(wrong.body.code).toBe('INVALID_AGENT_CREDENTIALS');
    const ok = await call(base, 'POST', `${R}/organizations/${TENANT}/webhooks/${id}/secret`, { headers: agentHeaders() });
    expect(ok.status).toBe(200);
  });

  it('accepts a bodiless POST with Content-Type application/json', async () => {
    const id = await subscribe(base, 'https://example.com/hook', ['TransactionStatusChanged']);
    const res = await call(base, 'POST', `${R}/organizations/${TENANT}/webhooks/${id}/secret`, {
      headers: { ...agentHeaders(), 'content-type': 'application/json' },
    });
    expect(res.status).toBe(200);
  });

  it('malformed JSON → 400 in the envelope', async () => {
    const res = await call(base, 'POST', `${R}/people`, {
      headers: { ...tenantHeaders(), 'content-type': 'application/json' },
      raw: '{nope',
    });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('INVALID_JSON');
  });
});

describe('rate limit', () => {
  it('429 with Retry-After once the per-key rate is exceeded', async () => {
    const limited = await startHarness({ options: { remittancesRatePerSecond: 5 } });
    try {
      const statuses: number[] = [];
      let retryAfter: string | string[] | undefined;
      for (let i = 0; i < 8; i++) {
        const res = await call(limited.url, 'GET', `${R}/organizations/${TENANT}/webhooks`, { headers: tenantHeaders() });
        statuses.push(res.status);
        if (res.status === 429) {
          retryAfter = res.headers['retry-after'];
          expect(res.body.code).toBe('RATE_LIMITED');
        }
      }
      expect(statuses.slice(0, 5)).toEqual([200, 200, 200, 200, 200]);
      expect(statuses.slice(5)).toEqual([429, 429, 429]);
      expect(Number(retryAfter)).toBeGreaterThanOrEqual(1);
      await new Promise((r) => setTimeout(r, 1050));
      const again = await call(limited.url, 'GET', `${R}/organizations/${TENANT}/webhooks`, { headers: tenantHeaders() });
      expect(again.status).toBe(200);
    } finally {
      await limited.close();
    }
  });
});

describe('agents', () => {
  it('a new agent is PENDING_APPROVAL, gets 403 until approved, then 200; apiKey shown once; AgentUpdatedEvents emitted', async () => {
    const rx = await new Receiver().start();
    try {
      await subscribe(base, rx.url, ['agentUpdatedEvents']);
      const created = await call(base, 'POST', `${R}/organizations/${TENANT}/agents`, {
        headers: tenantHeaders(),
        json: { email: 'agent@example.com', businessName: 'Acme Remit', externalId: 'ext-1' },
      });
      expect(created.status).toBe(201);
      expect(created.body).toEqual({
        id: expect.stringMatching(/^[0-9a-f-]{36}$/),
        email: 'agent@example.com',
        businessName: 'Acme Remit',
        externalId: 'ext-1',
        status: 'PENDING_APPROVAL',
        createdAt: expect.any(String),
        apiKey: expect.any(String),
      });
      const { id, apiKey } = created.body;
      const sub = await subscribe(base, 'https://example.com/x', ['TransactionStatusChanged']);
      const path = `${R}/organizations/${TENANT}/webhooks/${sub}/secret`;
      const pending = await call(base, 'POST', path, { headers: agentHeaders(id, apiKey) });
      expect(pending.status).toBe(403);
      expect(pending.body.code).toBe('AGENT_NOT_APPROVED');

      const approved = await call(base, 'POST', `/__sandbox/agents/${id}/approve`);
      expect(approved.status).toBe(200);
      expect(approved.body.status).toBe('ACTIVE');
      expect(approved.body.apiKey).toBeUndefined();
      expect((await call(base, 'POST', path, { headers: agentHeaders(id, apiKey) })).status).toBe(200);

      const creation = await waitFor(() => rx.events('agentUpdatedEvents').find((e) => e.before === null));
      expect(creation).toEqual({
        event: 'agentUpdatedEvents',
        id,
        before: null,
        after: {
          id,
          email: 'agent@example.com',
          businessName: 'Acme Remit',
          externalId: 'ext-1',
          status: 'PENDING_APPROVAL',
          createdAt: created.body.createdAt,
        },
        tenantId: TENANT,
        version: 1,
      });
      expect(JSON.stringify(rx.received.map((r) => r.raw))).not.toContain(apiKey);
    } finally {
      await rx.close();
    }
  });

  it('POST /agents (tenant auth) creates too; invalid body → 400 with details; unknown agent approve → 404', async () => {
    const ok = await call(base, 'POST', `${R}/agents`, { headers: tenantHeaders(), json: { email: 'b@example.com', businessName: 'B' } });
    expect(ok.status).toBe(201);
    expect(ok.body.externalId).toBeNull();
    const bad = await call(base, 'POST', `${R}/agents`, { headers: tenantHeaders(), json: { email: 'nope' } });
    expect(bad.status).toBe(400);
    expect(bad.body.details.map((d: { field: string }) => d.field).sort()).toEqual(['businessName', 'email']);
    expect((await call(base, 'POST', `/__sandbox/agents/00000000-0000-4000-8000-000000000000/approve`)).status).toBe(404);
  });
});

describe('webhook subscriptions', () => {
  const path = `${R}/organizations/${TENANT}/webhooks`;

  it('creates with the documented shape, echoing the registered spelling', async () => {
    const res = await call(base, 'POST', path, {
      headers: tenantHeaders(),
      json: { url: 'https://example.com/hooks', events: ['transactionstatuschanged', 'documentUpdatedEvents'] },
    });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      url: 'https://example.com/hooks',
      events: ['transactionstatuschanged', 'documentUpdatedEvents'],
      isBatch: false,
      createdAt: expect.any(String),
      signatureVersion: null,
      secretFingerprint: null,
      secretRotatedAt: null,
    });
  });

  it.each([
    ['http to a public host', { url: 'http://example.com/h', events: ['TransactionStatusChanged'] }],
    ['not a URL', { url: 'not a url', events: ['TransactionStatusChanged'] }],
    ['a URL over 2048 characters', { url: `https://example.com/${'a'.repeat(2029)}`, events: ['TransactionStatusChanged'] }],
    ['no events', { url: 'https://example.com/h', events: [] }],
    ['missing events', { url: 'https://example.com/h' }],
    ['an unknown event name', { url: 'https://example.com/h', events: ['TransactionStatusChanged', 'NoSuchEvent'] }],
    ['the earlier generation name', { url: 'https://example.com/h', events: ['agentStatusChangedEvent'] }],
  ])('rejects %s with 400', async (_name, json) => {
    const res = await call(base, 'POST', path, { headers: tenantHeaders(), json });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('VALIDATION_ERROR');
    expect(res.body.details.length).toBeGreaterThan(0);
  });

  it('accepts exactly 2048 characters and http to loopback hosts', async () => {
    const url2048 = `https://example.com/${'a'.repeat(2028)}`;
    expect(url2048.length).toBe(2048);
    for (const url of [url2048, 'http://127.0.0.1:9/h', 'http://localhost:9/h', 'http://[::1]:9/h']) {
      const res = await call(base, 'POST', path, { headers: tenantHeaders(), json: { url, events: ['TransactionStatusChanged'] } });
      expect(res.status).toBe(201);
    }
  });

  it('lists without ever showing the secret; delete → 204 then 404', async () => {
    const id = await subscribe(base, 'https://example.com/a', ['TransactionStatusChanged']);
    await subscribe(base, 'https://example.com/b', ['AgentUpdatedEvents']);
    const secret = await call(base, 'POST', `${path}/${id}/secret`, { headers: agentHeaders() });
    const list = await call(base, 'GET', path, { headers: tenantHeaders() });
    expect(list.status).toBe(200);
    expect(list.body.webhooks).toHaveLength(2);
    expect(list.text).not.toContain(secret.body.signingSecret);
    expect(list.body.webhooks.find((w: { id: string }) => w.id === id)).toMatchObject({
      signatureVersion: 'v1',
      secretFingerprint: secret.body.secretFingerprint,
    });
    for (const w of list.body.webhooks) expect(Object.keys(w)).not.toContain('signingSecret');
    const del = await call(base, 'DELETE', `${path}/${id}`, { headers: tenantHeaders() });
    expect(del.status).toBe(204);
    expect(del.text).toBe('');
    expect((await call(base, 'DELETE', `${path}/${id}`, { headers: tenantHeaders() })).status).toBe(404);
    expect((await call(base, 'GET', path, { headers: tenantHeaders() })).body.webhooks).toHaveLength(1);
  });

  it('secret: 44-char base64 of 32 bytes, fingerprint = sha256 prefix, rotation replaces it, delete → 204', async () => {
    const id = await subscribe(base, 'https://example.com/a', ['TransactionStatusChanged']);
    const first = await call(base, 'POST', `${path}/${id}/secret`, { headers: agentHeaders() });
    expect(first.status).toBe(200);
    expect(first.body).toEqual({
      signingSecret: expect.any(String),
      secretFingerprint: expect.any(String),
      signatureVersion: 'v1',
      secretRotatedAt: expect.any(String),
    });
    const s1: string = first.body.signingSecret;
    expect(s1).toHaveLength(44);
    expect(Buffer.from(s1, 'base64')).toHaveLength(32);
    expect(first.body.secretFingerprint).toBe(createHash('sha256').update(s1).digest('hex').slice(0, 8));
    const second = await call(base, 'POST', `${path}/${id}/secret`, { headers: agentHeaders() });
    expect(second.body.signingSecret).not.toBe(s1);
    const control = await call(base, 'GET', '/__sandbox/webhooks');
    expect(control.body.webhooks[0].signingSecret).toBe(second.body.signingSecret);

    const del = await call(base, 'DELETE', `${path}/${id}/secret`, { headers: agentHeaders() });
    expect(del.status).toBe(204);
    const after = (await call(base, 'GET', path, { headers: tenantHeaders() })).body.webhooks[0];
    expect(after).toMatchObject({ signatureVersion: null, secretFingerprint: null });
    expect((await call(base, 'POST', `${path}/00000000-0000-4000-8000-000000000000/secret`, { headers: agentHeaders() })).status).toBe(404);
  });

  it('reset forgets subscriptions', async () => {
    await subscribe(base, 'https://example.com/a', ['TransactionStatusChanged']);
    h.ctx.reset();
    expect((await call(base, 'GET', path, { headers: tenantHeaders() })).body.webhooks).toEqual([]);
  });
});
