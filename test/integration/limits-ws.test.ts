/**
 * The HTTP abuse limits hold over graphql-ws too (src/graphql/ws.ts onSubscribe): parse limit, GraphQL
 * Armor's depth/alias/directive/cost rules and the per-user mutation rate limit, each refused before any
 * resolver runs (no upstream call), over a real websocket.
 */
import { gql, startTestApp, type TestApp } from '../helpers/app';
import { clearSandboxCalls, sandboxCalls } from '../helpers/surface';
import { collect, wsClient } from '../helpers/ws';
import { CATALOGS } from '../../src/shared/messages';

let t: TestApp;

beforeAll(async () => {
  t = await startTestApp({ RATE_LIMIT_MUTATIONS_PER_MINUTE: '2' });
}, 90_000);
afterAll(() => t?.close());

type Err = { message: string; extensions?: Record<string, unknown> };

/** Runs one operation over a fresh authenticated socket; returns its errors (error message or result errors). */
async function overWs(token: string, query: string): Promise<{ errors: Err[] | undefined; data: unknown }> {
  const { client } = wsClient(t.wsUrl, token);
  try {
    const sub = collect<any>(client, query);
    await sub.next(1, 10_000);
    const errors = (Array.isArray(sub.error) ? (sub.error as Err[]) : undefined) ?? sub.results[0]?.errors;
    return { errors, data: sub.results[0]?.data };
  } finally {
    await client.dispose();
  }
}

async function expectNoUpstreamCall(run: () => Promise<void>) {
  await clearSandboxCalls(t);
  await run();
  expect(await sandboxCalls(t, '/gateway')).toEqual([]);
}

const bank = (i: number) => `b${i}: bank(countryCode: "BR", bankCode: "${String(i).padStart(3, '0')}") { name }`;

describe('query limits over graphql-ws', () => {
  let token: string;
  beforeAll(async () => {
    token = await t.token('ws-limits', 'customer');
  });

  it('depth bomb → QUERY_TOO_DEEP, nothing executed', async () => {
    let q = 'name';
    for (let i = 0; i < 20; i++) q = `ofType { ${q} }`;
    await expectNoUpstreamCall(async () => {
      const r = await overWs(
        token,
        `{ b: bank(countryCode: "BR", bankCode: "001") { name } __type(name: "Bank") { fields { type { ${q} } } } }`,
      );
      expect(r.data).toBeUndefined();
      expect(r.errors![0]).toEqual({
        message: CATALOGS.en.errors.QUERY_TOO_DEEP,
        extensions: expect.objectContaining({
          code: 'QUERY_TOO_DEEP',
          detail: 'The operation nests deeper than the limit of 15',
          limit: 15,
        }),
      });
    });
  });

  it('alias bomb → TOO_MANY_ALIASES', async () => {
    await expectNoUpstreamCall(async () => {
      const r = await overWs(token, `{ ${Array.from({ length: 50 }, (_, i) => bank(i)).join(' ')} }`);
      expect(r.errors![0]).toEqual({
        message: CATALOGS.en.errors.TOO_MANY_ALIASES,
        extensions: expect.objectContaining({
          code: 'TOO_MANY_ALIASES',
          detail: 'The operation uses more aliases than the limit of 15',
          limit: 15,
        }),
      });
    });
  });

  it('huge query (too many tokens) → TOO_MANY_TOKENS', async () => {
    await expectNoUpstreamCall(async () => {
      const r = await overWs(token, `{ b: bank(countryCode: "BR", bankCode: "001") { ${'name '.repeat(3000)} } }`);
      expect(r.errors![0]).toEqual({
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
      const r = await overWs(token, `{ b: bank(countryCode: "BR", bankCode: "001") { name ${'@include(if: true) '.repeat(60)} } }`);
      expect(r.errors![0]).toEqual({
        message: CATALOGS.en.errors.TOO_MANY_DIRECTIVES,
        extensions: expect.objectContaining({
          code: 'TOO_MANY_DIRECTIVES',
          detail: 'The operation uses more directives than the limit of 50',
          limit: 50,
        }),
      });
    });
  });

  it("too costly (three 100-row lists with every row's 100 events) → QUERY_TOO_COMPLEX", async () => {
    const list = `transfers(first: 100) { edges { node { id status events(first: 100) { edges { node { seq toStatus at cause actor action } } } } } }`;
    const r = await overWs(token, `{ a: ${list} b: ${list} c: ${list} }`);
    expect(r.data).toBeUndefined();
    expect(r.errors![0]).toEqual({
      message: CATALOGS.en.errors.QUERY_TOO_COMPLEX,
      extensions: expect.objectContaining({
        code: 'QUERY_TOO_COMPLEX',
        detail: 'The operation costs more than the limit of 200000 (see the cost model in the README)',
        limit: 200000,
        cost: expect.any(Number),
      }),
    });
  });

  it('an ordinary operation still runs', async () => {
    const r = await overWs(token, '{ viewer { id } }');
    expect(r.errors).toBeUndefined();
    expect(r.data).toEqual({ viewer: { id: 'ws-limits' } });
  });
});

describe('per-user mutation rate limit over graphql-ws', () => {
  it("beyond the budget → RATE_LIMITED with retryAfterSeconds and the operation's requestId; nothing runs; shared with HTTP", async () => {
    const token = await t.token('ws-rl', 'customer');
    const create = `mutation { createWallet(input: { currency: "USD" }) { id } }`;
    expect((await overWs(token, create)).errors).toBeUndefined();
    expect((await gql<any>(t.url, create, { token })).body.errors).toBeUndefined(); // HTTP draws on the same budget
    await expectNoUpstreamCall(async () => {
      const r = await overWs(token, create);
      expect(r.data).toBeUndefined();
      expect(r.errors![0]!.extensions).toMatchObject({ code: 'RATE_LIMITED', requestId: expect.stringMatching(/^[0-9a-f-]{36}$/) });
      expect(r.errors![0]!.extensions!.retryAfterSeconds).toEqual(expect.any(Number));
      expect(r.errors![0]!.extensions!.detail).toMatch(/Too many createWallet requests; try again in \d+ s/);
    });
    // another caller has its own budget
    expect((await overWs(await t.token('ws-rl-other', 'customer'), create)).errors).toBeUndefined();
  });
});
