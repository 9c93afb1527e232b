import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { getIntrospectionQuery } from 'graphql';
import { loadConfig } from '../../src/config';
import { createApp, type App } from '../../src/app';
import { gql, startTestApp, type TestApp } from '../helpers/app';
import { pgliteTemplate } from '../helpers/db';
import { clearSandboxCalls, sandboxCalls } from '../helpers/surface';
import { CATALOGS } from '../../src/shared/messages';

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
  it('depth bomb (nested ofType) → QUERY_TOO_DEEP', async () => {
    let q = 'name';
    for (let i = 0; i < 20; i++) q = `ofType { ${q} }`;
    await expectNoUpstreamCall(async () => {
      const r = await gql<any>(
        t.url,
        `{ b: bank(countryCode: "BR", bankCode: "001") { name } __type(name: "Bank") { fields { type { ${q} } } } }`,
        { token },
      );
      expect(r.status).toBe(400);
      expect(r.body.data).toBeUndefined();
      expect(r.body.errors![0]).toEqual({
        message: CATALOGS.en.errors.QUERY_TOO_DEEP,
        extensions: expect.objectContaining({
          code: 'QUERY_TOO_DEEP',
          detail: 'The operation nests deeper than the limit of 15',
          limit: 15,
        }),
      });
    });
  });

  it("GraphiQL's own introspection query stays within the depth limit (development)", async () => {
    const r = await gql<any>(t.url, getIntrospectionQuery(), { token });
    expect(r.body.errors).toBeUndefined();
    expect(r.body.data.__schema.queryType.name).toBe('Query');
  });

  it('alias bomb → TOO_MANY_ALIASES, no bank looked up', async () => {
    await expectNoUpstreamCall(async () => {
      const r = await gql<any>(t.url, `{ ${Array.from({ length: 50 }, (_, i) => bankField(i)).join(' ')} }`, { token });
      expect(r.status).toBe(400);
      expect(r.body.errors![0]).toEqual({
        message: CATALOGS.en.errors.TOO_MANY_ALIASES,
        extensions: expect.objectContaining({
          code: 'TOO_MANY_ALIASES',
          detail: 'The operation uses more aliases than the limit of 15',
          limit: 15,
        }),
      });
    });
  });

  it('huge query (too many tokens) → TOO_MANY_TOKENS, refused while parsing', async () => {
    await expectNoUpstreamCall(async () => {
      const r = await gql<any>(t.url, `{ b: bank(countryCode: "BR", bankCode: "001") { ${'name '.repeat(3000)} } }`, { token });
      expect(r.status).toBe(400);
      expect(r.body.errors![0]).toEqual({
        message: CATALOGS.en.errors.TOO_MANY_TOKENS,
        extensions: expect.objectContaining({
          code: 'TOO_MANY_TOKENS',
          detail: 'The document has more tokens than the limit of 2000',
          limit: 2000,
        }),
      });
    });
  });

  it('too many directives → TOO_MANY_DIRECTIVES', async () => {
    await expectNoUpstreamCall(async () => {
      const r = await gql<any>(t.url, `{ b: bank(countryCode: "BR", bankCode: "001") { name ${'@include(if: true) '.repeat(60)} } }`, {
        token,
      });
      expect(r.status).toBe(400);
      expect(r.body.errors![0]).toEqual({
        message: CATALOGS.en.errors.TOO_MANY_DIRECTIVES,
        extensions: expect.objectContaining({
          code: 'TOO_MANY_DIRECTIVES',
          detail: 'The operation uses more directives than the limit of 50',
          limit: 50,
        }),
      });
    });
  });

  it("too costly (three 100-row lists with every row's 100 events) → QUERY_TOO_COMPLEX, a fixed message", async () => {
    const list = `transfers(first: 100) { edges { node { id status events(first: 100) { edges { node { seq toStatus at cause actor action } } } } } }`;
    await expectNoUpstreamCall(async () => {
      const r = await gql<any>(t.url, `{ a: ${list} b: ${list} c: ${list} }`, { token });
      expect(r.status).toBe(400);
      expect(r.body.errors).toEqual([
        {
          message: CATALOGS.en.errors.QUERY_TOO_COMPLEX,
          extensions: expect.objectContaining({
            code: 'QUERY_TOO_COMPLEX',
            detail: 'The operation costs more than the limit of 200000 (see the cost model in the README)',
            limit: 200000,
            cost: expect.any(Number),
          }),
        },
      ]);
    });
  });

  it('a `first` given as a variable counts as the largest page (100), so variables cannot hide a cost', async () => {
    const r = await gql<any>(
      t.url,
      `query($n: Int) { ${['a', 'b', 'c'].map((a) => `${a}: transfers(first: $n) { edges { node { id events(first: $n) { edges { node { seq toStatus at cause actor action upstreamRef fromStatus } } } } } }`).join(' ')} }`,
      { token, variables: { n: 100 } },
    );
    expect(r.body.errors![0]!.extensions!.code).toBe('QUERY_TOO_COMPLEX');
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

/** The selections docs/api.md (Cost model) calls realistic: each documented page size, with what a back-office screen shows. */
const TRANSFER_FIELDS =
  'id ownerId status version rate createdAt updatedAt platformStatus complianceStatus destinationCountry sendAmount { amount currency } receiveAmount { amount currency } failure { code message }';
const EVENT_FIELDS = 'seq fromStatus toStatus cause actor action at upstreamRef';
const events = (first: number) =>
  `events(first: ${first}) { edges { cursor node { ${EVENT_FIELDS} } } pageInfo { hasNextPage endCursor } }`;

describe('documented page sizes fit the cost limit with realistic selections', () => {
  let backoffice: string;
  beforeAll(async () => {
    backoffice = await t.token('limits-backoffice', 'backoffice');
  });
  const accepted = async (query: string, variables?: Record<string, unknown>) => {
    const r = await gql<any>(t.url, query, { token: backoffice, variables });
    expect(r.body.errors).toBeUndefined();
    expect(r.status).toBe(200);
  };

  it('transfers(first: 100), every row with its events at their largest page (100)', () =>
    accepted(
      `{ transfers(first: 100) { edges { cursor node { ${TRANSFER_FIELDS} ${events(100)} } } pageInfo { hasNextPage endCursor } } }`,
    ));
  it('transfers(first: 100) with events at their default page (no `first`), page size as a variable', () =>
    accepted(
      `query($n: Int) { transfers(first: $n) { edges { cursor node { ${TRANSFER_FIELDS} events { edges { cursor node { ${EVENT_FIELDS} } } } } } pageInfo { hasNextPage endCursor } } }`,
      { n: 100 },
    ));
  it("one transfer's events(first: 100) (an unknown id: answered, not refused)", async () => {
    const r = await gql<any>(t.url, `query($id: ID!) { transfer(id: $id) { ${TRANSFER_FIELDS} ${events(100)} } }`, {
      token: backoffice,
      variables: { id: '00000000-0000-4000-8000-000000000000' },
    });
    expect(r.status).toBe(200);
    expect((r.body.errors ?? []).map((e: any) => e.extensions.code)).toEqual((r.body.errors ?? []).map(() => 'NOT_FOUND'));
  });
});

describe('production settings', () => {
  let app: App;
  let url: string;
  let dataDir: string;

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'rbff-limits-'));
    const base = loadConfig({
      NODE_ENV: 'test',
      PORT: '0',
      HOST: '127.0.0.1',
      SANDBOX_PORT: '0',
      DATA_DIR: dataDir,
      DATABASE_URL: 'memory://',
      LOG_LEVEL: 'silent',
    });
    // What NODE_ENV=production changes for the GraphQL endpoint (the rest of production needs PostgreSQL,
    // real upstreams and an identity provider; see test/e2e/graphiql.test.ts for the whole thing).
    app = await createApp(
      { ...base, production: true, introspection: false, graphiql: false },
      { logDestination: new Writable({ write: (_c, _e, cb) => cb() }), pgliteLoadDataDir: await pgliteTemplate() },
    );
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
    expect(r.body.errors![0]!.extensions!.detail).toMatch(/introspection/i); // the same detail over the websocket (production-hardening)
    expect(await (await fetch(`${app.sandbox!.url}/__sandbox/calls?path=/gateway`)).json()).toEqual([]);
  });

  it('no field suggestions ("Did you mean …") in production', async () => {
    const token = await app.auth.issueDevToken('prod-user', 'customer');
    const r = await gql<any>(url, `{ bank(countryCode: "BR", bankCode: "001") { nam } }`, { token });
    expect(JSON.stringify(r.body.errors![0])).not.toMatch(/Did you mean/);
    const dev = await gql<any>(t.url, `{ bank(countryCode: "BR", bankCode: "001") { nam } }`, { token: await t.token('u', 'customer') });
    expect(dev.body.errors![0]!.extensions!.detail).toMatch(/Did you mean/);
  });
});
