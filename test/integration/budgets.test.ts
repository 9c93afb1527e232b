/**
 * Abuse budgets beyond the per-mutation limits (src/graphql/rate-limits.ts, src/graphql/ws.ts):
 * - a per-caller upstream budget: every upstream-backed field occurrence (aliases too) costs a point, over
 *   HTTP and websocket together; over it the whole operation is RATE_LIMITED (429) before any upstream call;
 * - a per-IP budget of unauthenticated traffic: anonymous and bad-token HTTP requests, failed connection_init;
 * - caps on operations open per socket and sockets open per user.
 * Each test speaks from its own loopback address (127.0.0.x), so each has its own per-IP bucket.
 */
import WebSocket from 'ws';
import { request } from 'node:http';
import { createClient } from 'graphql-ws';
import { gql, startTestApp, type TestApp } from '../helpers/app';
import { clearSandboxCalls, sandboxCalls } from '../helpers/surface';
import { collect, wsClient } from '../helpers/ws';
import { CATALOGS } from '../../src/shared/messages';

let t: TestApp;

beforeAll(async () => {
  t = await startTestApp({
    RATE_LIMIT_UPSTREAM_POINTS_PER_MINUTE: '100',
    RATE_LIMIT_ANONYMOUS_PER_MINUTE: '5',
    WS_MAX_SUBSCRIPTIONS_PER_SOCKET: '3',
    WS_MAX_SOCKETS_PER_USER: '2',
  });
}, 90_000);
afterAll(() => t?.close());

const fx = (i: number) => `q${i}: fxQuoteV1(sourceCurrency: "USD", destinationCurrency: "BRL") { rate }`;
const fx15 = `{ ${Array.from({ length: 15 }, (_, i) => fx(i)).join(' ')} }`;
const fxCalls = async () => (await sandboxCalls(t, '/gateway')).filter((c) => c.path.startsWith('/gateway/foreign-exchange')).length;

/** POST /graphql from a given loopback address. */
function gqlFrom(
  localAddress: string,
  query: string,
  token?: string,
): Promise<{ status: number; retryAfter: string | undefined; requestId: string | undefined; body: any }> {
  const url = new URL(`${t.url}/graphql`);
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: url.hostname,
        port: url.port,
        path: url.pathname,
        method: 'POST',
        localAddress,
        headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
      },
      (res) => {
        let text = '';
        res.on('data', (c) => (text += c));
        res.on('end', () =>
          resolve({
            status: res.statusCode!,
            retryAfter: res.headers['retry-after'] as string | undefined,
            requestId: res.headers['x-request-id'] as string | undefined,
            body: JSON.parse(text),
          }),
        );
      },
    );
    req.on('error', reject);
    req.end(JSON.stringify({ query }));
  });
}

/** A graphql-ws client whose socket connects from a given loopback address; `closed` resolves with the close. */
function wsFrom(localAddress: string, token: string) {
  class From extends WebSocket {
    constructor(url: string, protocols?: string | string[]) {
      super(url, protocols, { localAddress });
    }
  }
  let resolveClosed!: (v: { code: number; reason: string }) => void;
  const closed = new Promise<{ code: number; reason: string }>((r) => (resolveClosed = r));
  const client = createClient({
    url: t.wsUrl,
    webSocketImpl: From,
    retryAttempts: 0,
    connectionParams: { authorization: `Bearer ${token}` },
    on: { closed: (e) => resolveClosed({ code: (e as { code: number }).code, reason: String((e as { reason: string }).reason) }) },
  });
  return { client, closed };
}

describe('per-caller upstream budget', () => {
  it('40 requests × 15 aliases of fxQuoteV1: refused RATE_LIMITED (429) once the budget is spent, before the gateway sees the excess', async () => {
    const token = await t.token('budget-fx', 'customer');
    await clearSandboxCalls(t);
    const results = await Promise.all(Array.from({ length: 40 }, () => gql<any>(t.url, fx15, { token })));
    const ok = results.filter((r) => r.status === 200 && !r.body.errors);
    const refused = results.filter((r) => r.status === 429);
    expect(ok.length).toBe(6); // 6 × 15 = 90 of 100 points; the 7th would need 105
    expect(refused.length).toBe(34);
    for (const r of refused) {
      expect(r.body.data).toBeUndefined();
      expect(r.body.errors![0]!.extensions).toMatchObject({ code: 'RATE_LIMITED', retryAfterSeconds: expect.any(Number) });
      expect(r.body.errors![0]!.extensions!.detail).toMatch(/^Too many upstream-backed requests; try again in \d+ s$/);
    }
    expect(await fxCalls()).toBe(90);
  }, 60_000);

  it('the budget is shared by HTTP and websocket, and another caller has its own', async () => {
    const token = await t.token('budget-ws', 'customer');
    for (let i = 0; i < 6; i++) expect((await gql<any>(t.url, fx15, { token })).status).toBe(200);
    await clearSandboxCalls(t);
    const { client } = wsClient(t.wsUrl, token);
    const r = collect<any>(client, fx15);
    await r.next(1);
    expect(r.results).toEqual([]);
    expect((r.error as any[])[0].extensions).toMatchObject({ code: 'RATE_LIMITED', retryAfterSeconds: expect.any(Number) });
    expect(await fxCalls()).toBe(0);
    await client.dispose();
    expect((await gql<any>(t.url, fx15, { token: await t.token('budget-other', 'customer') })).status).toBe(200);
  }, 60_000);

  it('local fields cost nothing', async () => {
    const token = await t.token('budget-local', 'customer');
    for (let i = 0; i < 7; i++) expect((await gql<any>(t.url, fx15, { token })).status).toBe(i < 6 ? 200 : 429);
    const r = await gql<any>(t.url, '{ viewer { id } transfers { edges { node { id } } } }', { token });
    expect(r.status).toBe(200);
    expect(r.body.errors).toBeUndefined();
  }, 60_000);
});

describe('per-IP budget of unauthenticated traffic', () => {
  it('anonymous and bad-token HTTP requests from one address are RATE_LIMITED (429, Retry-After) beyond the budget; a valid token still passes', async () => {
    const from = '127.0.0.2';
    for (let i = 0; i < 3; i++) expect((await gqlFrom(from, '{ viewer { id } }')).body.errors[0].extensions.code).toBe('UNAUTHENTICATED');
    for (let i = 0; i < 2; i++)
      expect((await gqlFrom(from, '{ viewer { id } }', 'not.a.jwt')).body.errors[0].extensions.code).toBe('UNAUTHENTICATED');
    for (const token of [undefined, 'not.a.jwt']) {
      const r = await gqlFrom(from, '{ viewer { id } }', token);
      expect(r.status).toBe(429);
      expect(Number(r.retryAfter)).toBeGreaterThan(0);
      // refused while the caller is established, before the operation: the error carries the request id all the same
      expect(r.body.errors[0].extensions).toEqual({
        code: 'RATE_LIMITED',
        detail: expect.stringMatching(/^Too many unauthenticated requests; try again in \d+ s$/),
        retryAfterSeconds: Number(r.retryAfter),
        requestId: r.requestId,
      });
      expect(r.requestId).toMatch(/^[0-9a-f-]{36}$/);
      expect(r.body.errors[0].message).toBe(CATALOGS.en.errors.RATE_LIMITED);
      expect(JSON.stringify(r.body)).not.toContain('not.a.jwt');
    }
    // a caller with a valid token is not counted per IP
    const ok = await gqlFrom(from, '{ viewer { id } }', await t.token('ip-ok', 'customer'));
    expect(ok.body).toEqual({ data: { viewer: { id: 'ip-ok' } } });
    // another address has its own budget
    expect((await gqlFrom('127.0.0.4', '{ viewer { id } }')).body.errors[0].extensions.code).toBe('UNAUTHENTICATED');
  });

  it('failed websocket connection_init counts too: beyond the budget the socket closes 4429; HTTP from that address is refused as well', async () => {
    const from = '127.0.0.3';
    for (let i = 0; i < 5; i++) {
      const { client, closed } = wsFrom(from, 'bad.token.here');
      client.subscribe({ query: '{ viewer { id } }' }, { next: () => undefined, error: () => undefined, complete: () => undefined });
      expect((await closed).code).toBe(4403);
      await client.dispose();
    }
    const { client, closed } = wsFrom(from, 'bad.token.here');
    client.subscribe({ query: '{ viewer { id } }' }, { next: () => undefined, error: () => undefined, complete: () => undefined });
    expect(await closed).toEqual({ code: 4429, reason: 'Too many requests' });
    await client.dispose();
    expect((await gqlFrom(from, '{ viewer { id } }')).status).toBe(429);
  });
});

describe('websocket caps', () => {
  it('operations open at once on one socket are capped: the one beyond gets RATE_LIMITED, the socket stays usable', async () => {
    const { client } = wsClient(t.wsUrl, await t.token('cap-subs', 'customer'));
    const subs = [0, 1, 2].map(() => collect<any>(client, 'subscription { systemNotices { message } }'));
    const over = collect<any>(client, '{ viewer { id } }');
    await over.next(1);
    expect((over.error as any[])[0]).toMatchObject({
      message: CATALOGS.en.errors.RATE_LIMITED,
      extensions: { code: 'RATE_LIMITED', detail: 'Too many operations open on this connection' },
    });
    subs[0]!.dispose();
    const again = collect<any>(client, '{ viewer { id } }');
    await again.next(1);
    expect(again.results[0]!.data).toEqual({ viewer: { id: 'cap-subs' } });
    await client.dispose();
  });

  it('sockets per user are capped on an instance: the one beyond closes 4429; closing one frees a place', async () => {
    const token = await t.token('cap-sockets', 'customer');
    const open = async () => {
      const c = wsClient(t.wsUrl, token);
      collect<any>(c.client, 'subscription { systemNotices { message } }');
      const probe = collect<any>(c.client, '{ viewer { id } }');
      await probe.next(1).catch(() => undefined);
      return { ...c, ok: probe.results[0]?.data !== undefined };
    };
    const a = await open();
    const b = await open();
    expect([a.ok, b.ok]).toEqual([true, true]);
    const c = await open();
    expect(c.ok).toBe(false);
    expect(await c.closed).toEqual({ code: 4429, reason: 'Too many connections' });
    await a.client.dispose();
    await a.closed;
    await new Promise((r) => setTimeout(r, 100));
    const d = await open();
    expect(d.ok).toBe(true);
    // another user is not affected
    const other = wsClient(t.wsUrl, await t.token('cap-sockets-2', 'customer'));
    const p = collect<any>(other.client, '{ viewer { id } }');
    await p.next(1);
    expect(p.results[0]!.data).toEqual({ viewer: { id: 'cap-sockets-2' } });
    await Promise.all([b.client.dispose(), c.client.dispose(), d.client.dispose(), other.client.dispose()]);
  });
});
