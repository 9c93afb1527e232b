import { createPublicKey, verify as verifySig } from 'node:crypto';
import { call, type Harness, startHarness } from './remittances.harness';

let h: Harness;
let base: string;
const V = '/verification';
const C1 = { client_id: 'sandbox-verification', client_secret: 'sandbox-verification-secret' };
const C2 = { client_id: 'sandbox-verification-2', client_secret: 'sandbox-verification-secret-2' };

beforeAll(async () => {
  h = await startHarness({ options: { verificationTokenLifetimeS: 600 } });
  base = h.url;
});
afterAll(async () => h.close());
beforeEach(() => h.ctx.reset());

async function token(form: Record<string, string> = C1): Promise<string> {
  const res = await call(base, 'POST', `${V}/oauth/token`, { form: { grant_type: 'client_credentials', ...form } });
  expect(res.status).toBe(200);
  return res.body.access_token;
}
const bearer = (t: string) => ({ authorization: `Bearer ${t}` });

describe('POST /oauth/token', () => {
  it('issues an RS256 JWT with the granted scopes (credentials in the body)', async () => {
    const res = await call(base, 'POST', `${V}/oauth/token`, { form: { grant_type: 'client_credentials', ...C1 } });
    expect(res.status).toBe(200);
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.body).toEqual({ access_token: expect.any(String), token_type: 'Bearer', expires_in: 600, scope: 'sessions verifications' });
    const [hdr, payload, sig] = res.body.access_token.split('.');
    expect(JSON.parse(Buffer.from(hdr, 'base64url').toString())).toMatchObject({ alg: 'RS256' });
    const claims = JSON.parse(Buffer.from(payload, 'base64url').toString());
    expect(claims).toMatchObject({ sub: 'sandbox-verification', scope: 'sessions verifications', tenant_id: 'sandbox-tenant' });
    expect(claims.exp - claims.iat).toBe(600);
    // verify the signature independently with the published JWKS
    const jwks = await call(base, 'GET', `${V}/.well-known/jwks.json`);
    const key = createPublicKey({ key: jwks.body.keys[0], format: 'jwk' });
    expect(verifySig('RSA-SHA256', Buffer.from(`${hdr}.${payload}`), key, Buffer.from(sig, 'base64url'))).toBe(true);
  });

  it('accepts HTTP Basic credentials and a narrower scope', async () => {
    const basic = Buffer.from(`${C2.client_id}:${C2.client_secret}`).toString('base64');
    const res = await call(base, 'POST', `${V}/oauth/token`, {
      headers: { authorization: `Basic ${basic}` },
      form: { grant_type: 'client_credentials', scope: 'sessions' },
    });
    expect(res.status).toBe(200);
    expect(res.body.scope).toBe('sessions');
  });

  it.each([
    ['grant_type absent', 400, 'unsupported_grant_type', { ...C1 }],
    ['grant_type password', 400, 'unsupported_grant_type', { grant_type: 'password', ...C1 }],
    ['unknown scope', 400, 'invalid_scope', { grant_type: 'client_credentials', ...C1, scope: 'sessions admin' }],
    ['no credentials', 401, 'invalid_client', { grant_type: 'client_credentials' }],
    ['unknown client', 401, 'invalid_client', { grant_type: 'client_credentials', client_id: 'nope', client_secret: 'x' }],
    ['wrong secret', 401, 'invalid_client', { grant_type: 'client_credentials', client_id: C1.client_id, client_secret: 'wrong' }],
  ])('%s → %i %s (RFC 6749 §5.2 body)', async (_name, status, error, form) => {
    const res = await call(base, 'POST', `${V}/oauth/token`, { form: form as Record<string, string> });
    expect(res.status).toBe(status);
    expect(res.body).toEqual({ error, error_description: expect.any(String) });
    if (status === 401) expect(res.headers['www-authenticate']).toMatch(/^Basic realm="[^"]+"$/);
    else expect(res.headers['www-authenticate']).toBeUndefined();
  });

  it('wrong Basic credentials → 401 invalid_client with a Basic challenge', async () => {
    const res = await call(base, 'POST', `${V}/oauth/token`, {
      headers: { authorization: `Basic ${Buffer.from('sandbox-verification:bad').toString('base64')}` },
      form: { grant_type: 'client_credentials' },
    });
    expect(res.status).toBe(401);
    expect(res.body.error).toBe('invalid_client');
    expect(res.headers['www-authenticate']).toMatch(/^Basic realm=/);
  });
});

describe('/v1', () => {
  it('401 without a token, with garbage, or with a token of another environment', async () => {
    const none = await call(base, 'POST', `${V}/v1/sessions`, { json: { userRef: 'u1' } });
    expect(none.status).toBe(401);
    expect(none.headers['www-authenticate']).toMatch(/^Bearer/);
    const garbage = await call(base, 'POST', `${V}/v1/sessions`, { headers: bearer('a.b.c'), json: { userRef: 'u1' } });
    expect(garbage.status).toBe(401);
    const other = await startHarness();
    try {
      const res = await call(other.url, 'POST', `${V}/oauth/token`, { form: { grant_type: 'client_credentials', ...C1 } });
      const foreign = await call(base, 'GET', `${V}/v1/sessions/x`, { headers: bearer(res.body.access_token) });
      expect(foreign.status).toBe(401);
      expect(foreign.body.error).toBe('invalid_token');
    } finally {
      await other.close();
    }
  });

  it('creates and reads a session', async () => {
    const t = await token();
    const created = await call(base, 'POST', `${V}/v1/sessions`, { headers: bearer(t), json: { userRef: 'user-42' } });
    expect(created.status).toBe(201);
    expect(created.body).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      userRef: 'user-42',
      status: 'created',
      createdAt: expect.any(String),
      expiresAt: expect.any(String),
      url: expect.stringContaining(created.body.id),
      redirectUrl: null,
      metadata: {},
    });
    const page = await call(base, 'GET', new URL(created.body.url).pathname);
    expect(page.status).toBe(200);
    expect(page.headers['content-type']).toContain('text/html');
    const read = await call(base, 'GET', `${V}/v1/sessions/${created.body.id}`, { headers: bearer(t) });
    expect(read.status).toBe(200);
    expect(read.body).toEqual(created.body);
  });

  it('400 without userRef', async () => {
    const t = await token();
    for (const json of [{}, { userRef: '' }, { userRef: 42 }]) {
      const res = await call(base, 'POST', `${V}/v1/sessions`, { headers: bearer(t), json });
      expect(res.status).toBe(400);
      expect(res.body.error).toBe('invalid_request');
    }
  });

  it("another tenant's session → 404", async () => {
    const created = await call(base, 'POST', `${V}/v1/sessions`, { headers: bearer(await token()), json: { userRef: 'u' } });
    const res = await call(base, 'GET', `${V}/v1/sessions/${created.body.id}`, { headers: bearer(await token(C2)) });
    expect(res.status).toBe(404);
    expect(res.body.error).toBe('not_found');
  });

  it('403 with an insufficient_scope Bearer challenge naming the scope', async () => {
    const onlySessions = await token({ ...C1, scope: 'sessions' });
    const res = await call(base, 'POST', `${V}/v1/verifications`, { headers: bearer(onlySessions), json: { sessionId: 'x' } });
    expect(res.status).toBe(403);
    expect(res.headers['www-authenticate']).toMatch(/^Bearer .*error="insufficient_scope".*scope="verifications"/);
    expect(res.body.error).toBe('insufficient_scope');
    const onlyVerifications = await token({ ...C1, scope: 'verifications' });
    const res2 = await call(base, 'POST', `${V}/v1/sessions`, { headers: bearer(onlyVerifications), json: { userRef: 'u' } });
    expect(res2.status).toBe(403);
    expect(res2.headers['www-authenticate']).toContain('scope="sessions"');
  });

  it('verifications: approved, declined for userRef "Rejected", session completed; other tenant 404', async () => {
    const t = await token();
    const s = (await call(base, 'POST', `${V}/v1/sessions`, { headers: bearer(t), json: { userRef: 'u' } })).body;
    const v = await call(base, 'POST', `${V}/v1/verifications`, { headers: bearer(t), json: { sessionId: s.id } });
    expect(v.status).toBe(201);
    expect(v.body).toMatchObject({ sessionId: s.id, userRef: 'u', type: 'identity', status: 'approved' });
    expect((await call(base, 'GET', `${V}/v1/sessions/${s.id}`, { headers: bearer(t) })).body.status).toBe('completed');
    const r = (await call(base, 'POST', `${V}/v1/sessions`, { headers: bearer(t), json: { userRef: 'Rejected' } })).body;
    const d = await call(base, 'POST', `${V}/v1/verifications`, { headers: bearer(t), json: { sessionId: r.id } });
    expect(d.body.status).toBe('declined');
    const foreign = await call(base, 'POST', `${V}/v1/verifications`, { headers: bearer(await token(C2)), json: { sessionId: s.id } });
    expect(foreign.status).toBe(404);
    expect((await call(base, 'POST', `${V}/v1/verifications`, { headers: bearer(t), json: {} })).status).toBe(400);
  });

  it('tokens expire on the sandbox clock; sessions expire after 24 h', async () => {
    const t = await token();
    const s = (await call(base, 'POST', `${V}/v1/sessions`, { headers: bearer(t), json: { userRef: 'u' } })).body;
    h.ctx.advanceClock(599);
    expect((await call(base, 'GET', `${V}/v1/sessions/${s.id}`, { headers: bearer(t) })).status).toBe(200);
    h.ctx.advanceClock(1);
    const expired = await call(base, 'GET', `${V}/v1/sessions/${s.id}`, { headers: bearer(t) });
    expect(expired.status).toBe(401);
    expect(expired.body).toEqual({ error: 'invalid_token', error_description: 'token expired' });
    expect(expired.headers['www-authenticate']).toContain('error="invalid_token"');
    h.ctx.advanceClock(24 * 3600);
    const fresh = await token();
    expect((await call(base, 'GET', `${V}/v1/sessions/${s.id}`, { headers: bearer(fresh) })).body.status).toBe('expired');
  });

  it('reset forgets sessions', async () => {
    const t = await token();
    const s = (await call(base, 'POST', `${V}/v1/sessions`, { headers: bearer(t), json: { userRef: 'u' } })).body;
    h.ctx.reset();
    expect((await call(base, 'GET', `${V}/v1/sessions/${s.id}`, { headers: bearer(t) })).status).toBe(404);
  });
});
