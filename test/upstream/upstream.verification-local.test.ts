/** Verification token endpoint errors against a scripted server: typed, never retried; redaction of the form. */
import { UpstreamError } from '../../src/upstream/http/upstream.errors';
import { harness, json, LocalServer, type Harness } from './helpers/upstream.local-server';

let server: LocalServer;
let h: Harness;
beforeEach(async () => {
  server = await new LocalServer().start();
});
afterEach(async () => {
  await h?.clients.close();
  await server.stop();
});

it.each([
  [400, 'unsupported_grant_type'],
  [400, 'invalid_scope'],
  [401, 'invalid_client'],
])('%i %s → token_rejected with that code, one request, no retry', async (status, code) => {
  h = harness(server.url);
  server.handler = (_req, res) =>
    json(res, status, { error: code, error_description: 'nope' }, status === 401 ? { 'www-authenticate': 'Basic realm="v"' } : {});
  const err = (await h.clients.verification.createSession({ userRef: 'u' }).catch((e: unknown) => e)) as UpstreamError;
  expect(err).toBeInstanceOf(UpstreamError);
  expect(err).toMatchObject({ service: 'verification', kind: 'token_rejected', status, upstreamCode: code, retryable: false });
  expect(server.paths()).toEqual(['POST /verification/oauth/token']);
  expect(h.sleeps).toEqual([]);
});

it('sends an RFC 6749 form (body credentials, scope) and logs it without the secret or the token', async () => {
  h = harness(server.url);
  server.handler = (req, res) => {
    if (req.url.endsWith('/oauth/token'))
      return json(res, 200, {
        access_token: 'eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJ4In0.c2ln',
        token_type: 'Bearer',
        expires_in: 300,
        scope: 'sessions',
      });
    json(res, 201, { id: 's1', userRef: 'user-secret-ref' });
  };
  await h.clients.verification.createSession({ userRef: 'user-secret-ref' });
  const form = new URLSearchParams(server.seen[0].body);
  expect(server.seen[0].headers['content-type']).toBe('application/x-www-form-urlencoded');
  expect(Object.fromEntries(form)).toEqual({
    grant_type: 'client_credentials',
    scope: 'sessions',
    client_id: 'sandbox-verification',
    client_secret: 'sandbox-verification-secret',
  });
  expect(server.seen[1].headers.authorization).toBe('Bearer eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJ4In0.c2ln');
  expect(h.logs.text).toContain('upstream request');
  expect(h.logs.text).not.toContain('sandbox-verification-secret');
  expect(h.logs.text).not.toContain('eyJhbGciOiJSUzI1NiJ9');
  expect(h.logs.text).not.toContain('user-secret-ref');
});

it('HTTP Basic: form-urlencoded id and secret, nothing in the body', async () => {
  h = harness(server.url, {
    VERIFICATION_AUTH_METHOD: 'basic',
    VERIFICATION_CLIENT_ID: 'id with space',
    VERIFICATION_CLIENT_SECRET: 's:e/c',
  });
  server.handler = (_req, res) => json(res, 200, { access_token: 't', token_type: 'Bearer', expires_in: 300 });
  await h.clients.verification.requestToken();
  const auth = String(server.seen[0].headers.authorization);
  expect(Buffer.from(auth.replace(/^Basic /, ''), 'base64').toString()).toBe('id+with+space:s%3Ae%2Fc');
  expect(server.seen[0].body).toBe('grant_type=client_credentials');
  expect(h.logs.text).not.toContain(auth.slice(6));
});

it('403 insufficient_scope is typed (forbidden, code from the challenge), not retried', async () => {
  h = harness(server.url);
  server.handler = (req, res) => {
    if (req.url.endsWith('/oauth/token')) return json(res, 200, { access_token: 't', token_type: 'Bearer', expires_in: 300 });
    res.writeHead(403, { 'www-authenticate': 'Bearer realm="v", error="insufficient_scope", scope="sessions"' });
    res.end();
  };
  const err = (await h.clients.verification.getSession('s1').catch((e: unknown) => e)) as UpstreamError;
  expect(err).toMatchObject({ kind: 'forbidden', status: 403, upstreamCode: 'insufficient_scope' });
  expect(server.paths('/verification/v1')).toHaveLength(1);
});
