import { createHash } from 'node:crypto';
import { startTestApp, type TestApp } from '../helpers/app';

let t: TestApp;
let token: string;

beforeAll(async () => {
  t = await startTestApp();
  token = await t.token('apq-user', 'customer');
}, 90_000);
afterAll(() => t?.close());

const sha = (q: string) => createHash('sha256').update(q).digest('hex');
const ext = (q: string) => ({ persistedQuery: { version: 1, sha256Hash: sha(q) } });
const headers = () => ({ 'content-type': 'application/json', accept: 'application/json', authorization: `Bearer ${token}` });

async function post(body: unknown) {
  const res = await fetch(`${t.url}/graphql`, { method: 'POST', headers: headers(), body: JSON.stringify(body) });
  return { status: res.status, body: (await res.json()) as any };
}
async function get(params: Record<string, unknown>) {
  const qs = new URLSearchParams(
    Object.entries(params).map(([k, v]): [string, string] => [k, typeof v === 'string' ? v : JSON.stringify(v)]),
  );
  const res = await fetch(`${t.url}/graphql?${qs}`, { headers: { ...headers(), 'apollo-require-preflight': 'true' } });
  return { status: res.status, body: (await res.json()) as any };
}

describe('automatic persisted queries', () => {
  it('POST: hash only → PERSISTED_QUERY_NOT_FOUND; hash + query registers; hash only then hits', async () => {
    const q = '{ viewer { id role } }';
    const miss = await post({ extensions: ext(q) });
    expect(miss.body.errors[0].extensions.code).toBe('PERSISTED_QUERY_NOT_FOUND');
    const reg = await post({ query: q, extensions: ext(q) });
    expect(reg.body.data.viewer).toEqual({ id: 'apq-user', role: 'CUSTOMER' });
    const hit = await post({ extensions: ext(q) });
    expect(hit.body.errors).toBeUndefined();
    expect(hit.body.data.viewer.id).toBe('apq-user');
  });

  it('GET: the same flow over query parameters', async () => {
    const q = 'query Banks { banks(countryCode: "BR", first: 2) { edges { node { bankCode } } } }';
    const miss = await get({ extensions: ext(q) });
    expect(miss.body.errors[0].extensions.code).toBe('PERSISTED_QUERY_NOT_FOUND');
    const reg = await get({ query: q, extensions: ext(q) });
    expect(reg.body.data.banks.edges).toHaveLength(2);
    const hit = await get({ extensions: ext(q) });
    expect(hit.body.data).toEqual(reg.body.data);
  });

  it('a registration whose operation is refused registers nothing (subscription over HTTP, invalid text)', async () => {
    const sub = 'subscription ApqRefused { systemNotices { id } }';
    const refused = await post({ query: sub, extensions: ext(sub) });
    expect(refused.status).toBe(400);
    expect(refused.body.errors[0].extensions.code).toBe('SUBSCRIPTION_OVER_HTTP');
    expect((await post({ extensions: ext(sub) })).body.errors[0].extensions.code).toBe('PERSISTED_QUERY_NOT_FOUND');

    const nul = '{ banks(countryCode: "B\\u0000R") { edges { node { name } } } }';
    const bad = await post({ query: nul, extensions: ext(nul) });
    expect(bad.body.errors[0].extensions.code).toBe('BAD_USER_INPUT');
    expect((await post({ extensions: ext(nul) })).body.errors[0].extensions.code).toBe('PERSISTED_QUERY_NOT_FOUND');
  });

  it('a hash that does not match the query is refused', async () => {
    const r = await post({ query: '{ viewer { id } }', extensions: { persistedQuery: { version: 1, sha256Hash: sha('something else') } } });
    expect(r.status).toBe(400);
    expect(r.body.errors[0].extensions.detail).toMatch(/sha does not match/);
  });

  it('limits apply to persisted queries too (registration of an alias bomb is refused; 200 with application/json)', async () => {
    const q = `{ ${Array.from({ length: 40 }, (_, i) => `a${i}: viewer { id }`).join(' ')} }`;
    const reg = await post({ query: q, extensions: ext(q) });
    expect(reg.status).toBe(200);
    expect(reg.body.data).toBeUndefined();
    expect(reg.body.errors[0].extensions.code).toBe('TOO_MANY_ALIASES');
  });
});
