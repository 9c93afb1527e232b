import { gql, startTestApp, type TestApp } from '../helpers/app';
import { sandboxCalls } from '../helpers/surface';

let t: TestApp;

beforeAll(async () => {
  t = await startTestApp({ RATE_LIMIT_MUTATIONS_PER_MINUTE: '3', RATE_LIMIT_ALIAS_LOOKUPS_PER_MINUTE: '2' });
}, 90_000);
afterAll(() => t?.close());

const CREATE = `mutation { createWallet(input: { currency: "USD" }) { id } }`;

describe('per-user rate limits', () => {
  it('mutations: beyond the budget → RATE_LIMITED, HTTP 429, Retry-After, extensions.retryAfterSeconds; nothing runs', async () => {
    const alice = await t.token('rl-alice', 'customer');
    for (let i = 0; i < 3; i++) expect((await gql<any>(t.url, CREATE, { token: alice })).body.errors).toBeUndefined();
    const before = (await sandboxCalls(t, '/gateway/wallets')).length;

    const res = await fetch(`${t.url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${alice}`, 'x-request-id': 'rate-limit-test-1' },
      body: JSON.stringify({ query: CREATE }),
    });
    expect(res.status).toBe(429);
    const retryAfter = Number(res.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);
    const body = (await res.json()) as any;
    expect(body.errors[0].extensions).toEqual({
      code: 'RATE_LIMITED',
      detail: expect.stringMatching(/Too many createWallet requests; try again in \d+ s/),
      retryAfterSeconds: retryAfter,
      requestId: 'rate-limit-test-1',
    });
    expect((await sandboxCalls(t, '/gateway/wallets')).length).toBe(before);
  });

  it('keyed by caller and operation: another user, or another mutation, has its own budget', async () => {
    const bob = await t.token('rl-bob', 'customer');
    expect((await gql<any>(t.url, CREATE, { token: bob })).body.errors).toBeUndefined();
    const alice = await t.token('rl-alice', 'customer');
    const other = await gql<any>(t.url, `mutation { startVerificationSession { id } }`, { token: alice });
    expect(other.body.errors).toBeUndefined();
  });

  it('aliases and fragments cannot dodge it: every root field counts', async () => {
    const carol = await t.token('rl-carol', 'customer');
    const r = await gql<any>(
      t.url,
      `mutation { ...F a: createWallet(input: { currency: "EUR" }) { id } b: createWallet(input: { currency: "EUR" }) { id } } fragment F on Mutation { createWallet(input: { currency: "USD" }) { id } c: createWallet(input: { currency: "USD" }) { id } }`,
      { token: carol },
    );
    expect(r.status).toBe(429);
    expect(r.body.data).toBeUndefined();
    expect(r.body.errors![0]!.extensions!.code).toBe('RATE_LIMITED');
  });

  it('resolveAlias has its own, tighter per-user budget (the upstream quota)', async () => {
    const dave = await t.token('rl-dave', 'customer');
    const q = `{ resolveAlias(countryCode: "BR", keyType: "CPF", key: "12345678909") { __typename } }`;
    expect((await gql<any>(t.url, q, { token: dave })).body.errors).toBeUndefined();
    expect((await gql<any>(t.url, q, { token: dave })).body.errors).toBeUndefined();
    const third = await gql<any>(t.url, q, { token: dave });
    expect(third.status).toBe(429);
    expect(third.body.errors![0]!.extensions).toMatchObject({ code: 'RATE_LIMITED' });
    expect(third.body.errors![0]!.extensions!.retryAfterSeconds).toBeGreaterThan(0);
    // other queries are not limited
    expect((await gql<any>(t.url, `{ viewer { id } }`, { token: dave })).body.errors).toBeUndefined();
  });
});
