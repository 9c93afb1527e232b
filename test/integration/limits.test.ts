import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { getIntrospectionQuery } from 'graphql';
import { loadConfig } from '../../src/config';
import { createApp, type App } from '../../src/app';
import { gql, startTestApp, type TestApp } from '../helpers/app';
import { clearSandboxCalls, sandboxCalls } from '../helpers/surface';

let t: TestApp;
let token: string;

beforeAll(async () => {
  t = await startTestApp();
  token = await t.token('limits-user', 'customer');
}, 90_000);
afterAll(() => t?.close());

/** Nothing reached the upstream (no resolver that calls the gateway ran). */
async function expectNoUpstreamCall(run: () => Promise<void>) {
  await clearSandboxCalls(t);
  await run();
  expect(await sandboxCalls(t, '/gateway')).toEqual([]);
}

const bankField = (i: number) => `b${i}: bank(countryCode: "BR", bankCode: "${String(i).padStart(3, '0')}") { name }`;

describe('query limits (GraphQL Armor), refused before any resolver runs', () => {
  it('depth bomb (nested ofType) → GRAPHQL_VALIDATION_FAILED', async () => {
    let q = 'name';
    for (let i = 0; i < 20; i++) q = `ofType { ${q} }`;
    await expectNoUpstreamCall(async () => {
      const r = await gql<any>(t.url, `{ b: bank(countryCode: "BR", bankCode: "001") { name } __type(name: "Bank") { fields { type { ${q} } } } }`, { token });
      expect(r.status).toBe(400);
      expect(r.body.data).toBeUndefined();
      expect(r.body.errors![0]!.extensions!.code).toBe('GRAPHQL_VALIDATION_FAILED');
      expect(r.body.errors!.some((e: any) => /depth limit of 15 exceeded/i.test(e.message))).toBe(true);
    });
  });

  it('GraphiQL\'s own introspection query stays within the depth limit (development)', async () => {
    const r = await gql<any>(t.url, getIntrospectionQuery(), { token });
    expect(r.body.errors).toBeUndefined();
    expect(r.body.data.__schema.queryType.name).toBe('Query');
  });

  it('alias bomb → refused, no bank looked up', async () => {
    await expectNoUpstreamCall(async () => {
      const r = await gql<any>(t.url, `{ ${Array.from({ length: 50 }, (_, i) => bankField(i)).join(' ')} }`, { token });
      expect(r.status).toBe(400);
      expect(r.body.errors![0]!.message).toMatch(/aliases limit/i);
    });
  });

  it('huge query (too many tokens) → refused while parsing', async () => {
    await expectNoUpstreamCall(async () => {
      const r = await gql<any>(t.url, `{ b: bank(countryCode: "BR", bankCode: "001") { ${'name '.repeat(3000)} } }`, { token });
      expect(r.status).toBe(400);
      expect(r.body.errors![0]).toMatchObject({ extensions: { code: 'GRAPHQL_PARSE_FAILED' } });
      expect(r.body.errors![0]!.message).toMatch(/more that 2000 tokens/);
    });
  });

  it('too many directives → refused', async () => {
    await expectNoUpstreamCall(async () => {
      const r = await gql<any>(t.url, `{ b: bank(countryCode: "BR", bankCode: "001") { name ${'@include(if: true) '.repeat(60)} } }`, { token });
      expect(r.status).toBe(400);
      expect(r.body.errors![0]!.message).toMatch(/directives limit/i);
    });
  });

  it('request body over the limit → 413', async () => {
    const res = await fetch(`${t.url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
      body: JSON.stringify({ query: '{ viewer { id } }', variables: { pad: 'x'.repeat(300 * 1024) } }),
    });
    expect(res.status).toBe(413);
  });

  it('batching is off: an array of operations is refused', async () => {
    await expectNoUpstreamCall(async () => {
      const res = await fetch(`${t.url}/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
        body: JSON.stringify([{ query: `{ ${bankField(1)} }` }, { query: `{ ${bankField(2)} }` }]),
      });
      expect(res.status).toBe(400);
    });
  });

  it('errors carry extensions.requestId (the x-request-id)', async () => {
    const res = await fetch(`${t.url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-request-id': 'limits-test-request-1' },
      body: JSON.stringify({ query: '{ viewer { id } }' }),
    });
    const body = (await res.json()) as any;
    expect(body.errors[0].extensions).toMatchObject({ code: 'UNAUTHENTICATED', requestId: 'limits-test-request-1' });
  });
});

describe('production settings', () => {
  let app: App;
  let url: string;
  let dataDir: string;

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'rbff-limits-'));
    const base = loadConfig({ NODE_ENV: 'test', PORT: '0', HOST: '127.0.0.1', SANDBOX_PORT: '0', DATA_DIR: dataDir, DATABASE_URL: 'memory://', LOG_LEVEL: 'silent' });
    // What NODE_ENV=production changes for the GraphQL endpoint (the rest of production needs PostgreSQL,
    // real upstreams and an identity provider; see test/e2e/graphiql.test.ts for the whole thing).
    app = await createApp({ ...base, production: true, introspection: false, graphiql: false }, { logDestination: new Writable({ write: (_c, _e, cb) => cb() }) });
    url = (await app.start()).url;
  }, 90_000);
  afterAll(async () => {
    await app?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('introspection refused, before any resolver runs', async () => {
    const token = await app.auth.issueDevToken('prod-user', 'customer');
    await fetch(`${app.sandbox!.url}/__sandbox/calls`, { method: 'DELETE' });
    const r = await gql<any>(url, `{ bank(countryCode: "BR", bankCode: "001") { name } __schema { types { name } } }`, { token });
    expect(r.status).toBe(400);
    expect(r.body.errors![0]!.message).toMatch(/introspection/i);
    expect(await (await fetch(`${app.sandbox!.url}/__sandbox/calls?path=/gateway`)).json()).toEqual([]);
  });

  it('no field suggestions ("Did you mean …") in production', async () => {
    const token = await app.auth.issueDevToken('prod-user', 'customer');
    const r = await gql<any>(url, `{ bank(countryCode: "BR", bankCode: "001") { nam } }`, { token });
    expect(r.body.errors![0]!.message).not.toMatch(/Did you mean/);
    const dev = await gql<any>(t.url, `{ bank(countryCode: "BR", bankCode: "001") { nam } }`, { token: await t.token('u', 'customer') });
    expect(dev.body.errors![0]!.message).toMatch(/Did you mean/);
  });
});
