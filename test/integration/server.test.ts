import { gql, startTestApp, type TestApp } from '../helpers/app';
import { collect, rawSocketClose, wsClient } from '../helpers/ws';
import { waitFor } from '../helpers/wait';
import { CATALOGS } from '../../src/shared/messages';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp({ WS_CONNECTION_INIT_TIMEOUT_MS: '400' });
});
afterAll(async () => {
  await t?.close();
});

describe('HTTP routes', () => {
  it('GET /healthz answers 200', async () => {
    const res = await fetch(`${t.url}/healthz`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ status: 'ok' });
  });

  it('GET /readyz answers 200 once the database is migrated', async () => {
    const res = await fetch(`${t.url}/readyz`, { headers: { authorization: `Bearer ${await t.token('ready-admin', 'admin')}` } });
    expect(res.status).toBe(200);
    const body = (await res.json()) as { status: string; checks: Record<string, { status: string }> };
    expect(body.status).toBe('ready');
    expect(body.checks.database!.status).toBe('ok');
  });

  it('echoes a request id on every response', async () => {
    const res = await fetch(`${t.url}/healthz`, { headers: { 'x-request-id': 'req-12345678' } });
    expect(res.headers.get('x-request-id')).toBe('req-12345678');
    const other = await fetch(`${t.url}/healthz`);
    expect(other.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('GET /metrics exposes per-operation counts and latency histograms plus process metrics', async () => {
    const token = await t.token('metrics-user', 'customer');
    await gql(t.url, 'query MetricsProbe { viewer { id } }', { token });
    await gql(t.url, 'query MetricsProbe { viewer { id } }', { token });
    await gql(t.url, 'query MetricsMiss { wallet(id: "00000000-0000-4000-8000-000000000000") { id } }', { token });
    await gql(t.url, 'query MetricsMiss { wallet(id: "00000000-0000-4000-8000-000000000000") { id } }', { token });
    await gql(t.url, '{ viewer { id ', { token }); // does not parse: no operation
    // refused before it runs (no subscription over HTTP): counted under its own name and type
    expect((await gql(t.url, 'subscription MetricsRefused { systemNotices { message } }', { token })).status).toBe(400);
    // no query at all: answered by Apollo, no operation
    const empty = await fetch(`${t.url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
      body: JSON.stringify({ variables: {} }),
    });
    expect(empty.status).toBe(400);
    const res = await fetch(`${t.url}/metrics`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/text\/plain/);
    const text = await res.text();
    expect(text).toMatch(/graphql_requests_total\{operation="MetricsProbe",type="query",outcome="ok"\} 2/);
    expect(text).not.toMatch(/operation="MetricsProbe",type="query",outcome="error"/);
    expect(text).toMatch(/graphql_requests_total\{operation="MetricsMiss",type="query",outcome="error"\} 2/);
    expect(text).not.toMatch(/operation="MetricsMiss",type="query",outcome="ok"/);
    expect(text).toMatch(/graphql_requests_total\{operation="MetricsRefused",type="subscription",outcome="error"\} 1/);
    expect(text).toMatch(/graphql_requests_total\{operation="anonymous",type="unknown",outcome="error"\} 2/);
    expect(text).toMatch(/graphql_request_duration_seconds_count\{operation="MetricsProbe",type="query"\} 2/);
    expect(text).toMatch(/graphql_request_duration_seconds_bucket\{le="[^"]+",operation="MetricsProbe",type="query"\}/);
    expect(text).toMatch(/process_cpu_user_seconds_total/);
    expect(text).toMatch(/nodejs_eventloop_lag_seconds/);
  });
});

describe('GraphQL over HTTP', () => {
  it('viewer returns the caller from the token', async () => {
    const token = await t.token('alice', 'customer');
    const { status, body } = await gql(t.url, '{ viewer { id role } }', { token });
    expect(status).toBe(200);
    expect(body).toEqual({ data: { viewer: { id: 'alice', role: 'CUSTOMER' } } });
  });

  it('answers GET queries too', async () => {
    const token = await t.token('bob', 'backoffice');
    const res = await fetch(`${t.url}/graphql?query=${encodeURIComponent('{ viewer { id role } }')}`, {
      headers: { authorization: `Bearer ${token}`, accept: 'application/graphql-response+json' },
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/application\/graphql-response\+json/);
    expect(await res.json()).toEqual({ data: { viewer: { id: 'bob', role: 'BACKOFFICE' } } });
  });

  it('anonymous → UNAUTHENTICATED', async () => {
    const { body } = await gql(t.url, '{ viewer { id } }');
    expect(body.data).toBeNull();
    expect(body.errors![0]!.extensions!.code).toBe('UNAUTHENTICATED');
  });

  it('a forged or garbled token → UNAUTHENTICATED, never a stack trace', async () => {
    const token = await t.token('mallory', 'admin');
    const [h, p] = token.split('.');
    const tampered = `${h}.${p}.${'A'.repeat(86)}`;
    for (const bad of [tampered, 'not-a-jwt', `${h}.${Buffer.from('{"sub":"x","role":"admin"}').toString('base64url')}.`]) {
      const { body } = await gql(t.url, '{ viewer { id } }', { token: bad });
      expect(body.errors![0]!.extensions!.code).toBe('UNAUTHENTICATED');
      expect(JSON.stringify(body)).not.toMatch(/stacktrace|at .*\.(js|ts):\d+/);
    }
  });

  it('an "alg: none" token is refused', async () => {
    const enc = (o: object) => Buffer.from(JSON.stringify(o)).toString('base64url');
    const none = `${enc({ alg: 'none', typ: 'JWT' })}.${enc({ sub: 'x', role: 'admin', exp: 4102444800 })}.`;
    const { body } = await gql(t.url, '{ viewer { id } }', { token: none });
    expect(body.errors![0]!.extensions!.code).toBe('UNAUTHENTICATED');
  });

  it('an expired token is refused', async () => {
    const expired = await t.app.auth.issueDevToken('old', 'customer', -3600);
    const { body } = await gql(t.url, '{ viewer { id } }', { token: expired });
    expect(body.errors![0]!.extensions!.code).toBe('UNAUTHENTICATED');
  });

  it('wrong role → FORBIDDEN', async () => {
    const token = await t.token('carol', 'customer');
    const { body } = await gql(t.url, 'mutation { publishSystemNotice(input: { message: "hi" }) { id } }', { token });
    expect(body.errors![0]!.extensions!.code).toBe('FORBIDDEN');
  });

  it('validation errors carry BAD_USER_INPUT with the field path, code and message, never the value', async () => {
    const token = await t.token('root', 'admin');
    const secretish = `PII-${'x'.repeat(600)}`;
    const { body } = await gql(t.url, 'mutation($m: String!) { publishSystemNotice(input: { message: $m }) { id } }', {
      token,
      variables: { m: secretish },
    });
    const err = body.errors![0]!;
    expect(err.extensions!.code).toBe('BAD_USER_INPUT');
    expect(err.message).toBe(CATALOGS.en.errors.BAD_USER_INPUT);
    expect(err.extensions!.fields).toEqual([{ path: 'input.message', code: 'TOO_LONG', message: CATALOGS.en.fields.TOO_LONG }]);
    expect(err.extensions!.detail).toBe('Invalid input: message must be 1 to 500 characters');
    expect(JSON.stringify(body)).not.toContain('PII-');
  });

  it('variable coercion errors do not echo the value', async () => {
    const token = await t.token('root', 'admin');
    const { body } = await gql(
      t.url,
      'mutation($s: NoticeSeverity!) { publishSystemNotice(input: { message: "x", severity: $s }) { id } }',
      {
        token,
        variables: { s: 'SECRET-VALUE-123' },
      },
    );
    expect(body.errors![0]!.extensions!.code).toBe('BAD_USER_INPUT');
    expect(body.errors![0]!.extensions!.fields).toEqual([
      { path: 's', code: 'INVALID_CHOICE', message: CATALOGS.en.fields.INVALID_CHOICE },
    ]);
    expect(JSON.stringify(body)).not.toContain('SECRET-VALUE-123');
  });

  it('syntax errors are GRAPHQL_PARSE_FAILED', async () => {
    const { status, body } = await gql(t.url, '{ viewer { id ');
    expect(status).toBe(400);
    expect(body.errors![0]!.extensions!.code).toBe('GRAPHQL_PARSE_FAILED');
  });
});

describe('graphql-ws subscriptions', () => {
  it('closes with 4403 when connection_init carries no token', async () => {
    const closed = await rawSocketClose(t.wsUrl, (ws) => ws.send(JSON.stringify({ type: 'connection_init', payload: {} })));
    expect(closed.code).toBe(4403);
  });

  it('closes with 4403 when the token is bad', async () => {
    const closed = await rawSocketClose(t.wsUrl, (ws) =>
      ws.send(JSON.stringify({ type: 'connection_init', payload: { authorization: 'Bearer nope' } })),
    );
    expect(closed.code).toBe(4403);
  });

  it('closes with 4408 when no connection_init arrives in time', async () => {
    const closed = await rawSocketClose(t.wsUrl);
    expect(closed.code).toBe(4408);
  });

  it('delivers published notices to an authenticated subscriber', async () => {
    const token = await t.token('dave', 'customer');
    const { client } = wsClient(t.wsUrl, token);
    const sub = collect<{ systemNotices: { message: string; severity: string } }>(
      client,
      'subscription { systemNotices { message severity } }',
    );
    await waitFor(() => t.app.pubsub.subscriptionCount() > 0, { timeoutMs: 3000, what: 'the subscription to start' });
    const admin = await t.token('root', 'admin');
    const { body } = await gql(
      t.url,
      'mutation { publishSystemNotice(input: { message: "maintenance at 02:00", severity: WARNING }) { id } }',
      {
        token: admin,
      },
    );
    expect(body.errors).toBeUndefined();
    await sub.next(1);
    expect(sub.results[0]!.data!.systemNotices).toEqual({ message: 'maintenance at 02:00', severity: 'WARNING' });
    sub.dispose();
    await client.dispose();
  });
});
