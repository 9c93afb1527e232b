/**
 * Input hygiene over HTTP: text PostgreSQL refuses (NUL, lone surrogates) in any string, numbers beyond what the
 * service stores, amounts beyond the per-transfer maximum, and subscriptions POSTed over HTTP are client errors
 * answered before any upstream call, never INTERNAL_SERVER_ERROR.
 */
import { gql, startTestApp, type TestApp } from '../helpers/app';
import { personInput } from '../e2e/transfer-helpers';

const CREATE_QUOTE = `mutation($input: CreateQuoteInput!) { createQuote(input: $input) { id } }`;
const CREATE_PERSON = `mutation($input: PersonInput!) { createPerson(input: $input) { id status } }`;

let t: TestApp;
let token: string;
let staff: string;
beforeAll(async () => {
  t = await startTestApp({ TRANSFER_CORRIDORS: 'USD>BRL=1..10000' });
  token = await t.token('hygiene-alice', 'customer');
  staff = await t.token('hygiene-bo', 'backoffice');
});
afterAll(() => t.close());

const upstreamCalls = () => t.app.sandbox!.ctx.calls.length;
const quote = (sourceAmount: string, sourceCurrency = 'USD') => ({
  sourceCurrency,
  destinationCurrency: 'BRL',
  paymentMethod: 'WALLET',
  sourceAmount,
});

/** Runs `fn`, expects one BAD_USER_INPUT error that echoes nothing, and no upstream call in between. */
async function refusedBeforeUpstream(fn: () => Promise<Awaited<ReturnType<typeof gql>>>, mustNotEcho: string[] = []) {
  const before = upstreamCalls();
  const r = await fn();
  expect(r.body.errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
  for (const s of mustNotEcho) expect(JSON.stringify(r.body)).not.toContain(s);
  expect(upstreamCalls()).toBe(before);
  return r;
}

describe('text PostgreSQL refuses (NUL byte, lone surrogate) is BAD_USER_INPUT in any string input', () => {
  const bad = ['a\u0000b', 'a\ud800b', '\udc00'];

  test.each(bad.map((s) => [JSON.stringify(s), s]))('%s in an id, a cursor, a name, a quote id (variables)', async (_label, s) => {
    await refusedBeforeUpstream(() => gql(t.url, 'query($id: ID!) { transfer(id: $id) { id } }', { token, variables: { id: s } }));
    await refusedBeforeUpstream(() =>
      gql(t.url, 'query($after: String) { transfers(first: 1, after: $after) { edges { cursor } } }', {
        token: staff,
        variables: { after: s },
      }),
    );
    await refusedBeforeUpstream(() => gql(t.url, CREATE_PERSON, { token, variables: { input: { ...personInput(), firstName: s } } }));
    await refusedBeforeUpstream(() =>
      gql(t.url, 'mutation($input: CaptureTransferInput!) { captureTransfer(input: $input) { id } }', {
        token: staff,
        variables: { input: { transferId: s, idempotencyKey: 'k-1' } },
      }),
    );
  });

  test('in a literal of the document (refused by the parser or by the input check)', async () => {
    for (const [query, tk] of [
      ['{ transfer(id: "x\\u0000y") { id } }', token],
      ['{ transfers(first: 1, after: "\\ud800") { edges { cursor } } }', staff],
      [
        'mutation { createPerson(input: { type: INDIVIDUAL, firstName: "J\\u0000", lastName: "D", identificationType: "SSN", identification: "1", email: "j@example.com", phoneNumber: "+14155550100", address: { line1: "1", city: "S", region: "CA", postalCode: "94105", countryCode: "US" } }) { id } }',
        token,
      ],
    ] as const) {
      const before = upstreamCalls();
      const r = await gql(t.url, query, { token: tk });
      expect(r.status).toBe(400);
      expect(['BAD_USER_INPUT', 'GRAPHQL_PARSE_FAILED']).toContain(r.body.errors?.[0]?.extensions?.code);
      expect(upstreamCalls()).toBe(before);
    }
  });
});

describe('amounts', () => {
  test('createQuote with 20 integer digits → BAD_USER_INPUT before the upstream quote is created', async () => {
    await refusedBeforeUpstream(
      () => gql(t.url, CREATE_QUOTE, { token, variables: { input: quote('12345678901234567890') } }),
      ['12345678901234567890'],
    );
    await refusedBeforeUpstream(() => gql(t.url, CREATE_QUOTE, { token, variables: { input: quote('99999999999999.99') } }));
  });

  test('createQuote above the corridor maximum (in the source currency) → BAD_USER_INPUT naming the maximum; at the maximum it works', async () => {
    const r = await refusedBeforeUpstream(() => gql(t.url, CREATE_QUOTE, { token, variables: { input: quote('10000.01') } }));
    expect(r.body.errors![0]!.extensions!.detail).toMatch(/10000/);
    expect(r.body.errors![0]!.extensions!.fields).toEqual([expect.objectContaining({ path: 'input.sourceAmount', code: 'ABOVE_MAXIMUM' })]);
    const ok = await gql<any>(t.url, CREATE_QUOTE, { token, variables: { input: quote('10000.00') } });
    expect(ok.body.errors).toBeUndefined();
  });

  test('more decimals than the currency has → BAD_USER_INPUT before the upstream call', async () => {
    await refusedBeforeUpstream(() => gql(t.url, CREATE_QUOTE, { token, variables: { input: quote('10.001') } }));
    await refusedBeforeUpstream(() => gql(t.url, CREATE_QUOTE, { token, variables: { input: quote('10.5', 'JPY') } }));
  });

  test('an out-of-range amount filter is BAD_USER_INPUT, not a database error', async () => {
    const r = await gql(t.url, 'query($f: TransferFilter) { transfers(first: 1, filter: $f) { edges { cursor } } }', {
      token: staff,
      variables: { f: { minSendAmount: '12345678901234567890' } },
    });
    expect(r.body.errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
  });
});

describe('a subscription POSTed over HTTP', () => {
  test('is a 400 client error with a clear code, never INTERNAL_SERVER_ERROR', async () => {
    const r = await gql(t.url, 'subscription { systemNotices { id } }', { token });
    expect(r.status).toBe(400);
    expect(r.body.errors?.[0]?.extensions?.code).toBe('SUBSCRIPTION_OVER_HTTP');
    expect(r.body.errors?.[0]?.extensions?.detail).toMatch(/websocket/i);
  });
});

describe('instants beyond what the database stores (years 1–9999 UTC)', () => {
  const LIST = 'query($f: TransferFilter, $after: String) { transfers(first: 2, filter: $f, after: $after) { edges { cursor } } }';
  const keyset = (at: string) => Buffer.from(`k:${at}|00000000-0000-4000-8000-000000000000`).toString('base64url');
  const warnings = () => t.logs.filter((l) => (JSON.parse(l) as { level: number }).level >= 30);

  it.each([
    ['createdFrom of year 0000', { f: { createdFrom: '0000-01-01T00:00:00Z' } }],
    ['createdTo of year 0000', { f: { createdTo: '0000-06-01T00:00:00Z' } }],
    ['createdFrom that is year 0 in UTC', { f: { createdFrom: '0001-01-01T00:30:00+01:00' } }],
    ['a keyset cursor of year 0000', { after: keyset('0000-01-01T00:00:00.000Z') }],
    ['a keyset cursor past year 9999', { after: keyset('+010000-01-01T00:00:00.000Z') }],
  ])('%s → BAD_USER_INPUT, nothing logged at info or above', async (_label, variables) => {
    const before = warnings().length;
    for (const who of [token, staff]) {
      const r = await gql<any>(t.url, LIST, { token: who, variables });
      expect(r.body.errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
    }
    expect(warnings().slice(before)).toEqual([]);
  });

  it('the edges of the range are accepted', async () => {
    const r = await gql<any>(t.url, LIST, {
      token: staff,
      variables: { f: { createdFrom: '0001-01-01T00:00:00Z', createdTo: '9999-12-31T23:59:59Z' } },
    });
    expect(r.body.errors).toBeUndefined();
  });
});

describe('JSONObject nesting (objects the platform defines, passed through)', () => {
  const QUOTE = 'mutation($r: JSONObject!) { createPlatformPayoutQuote(request: $r) }';
  const nested = (depth: number): Record<string, unknown> => {
    const root: Record<string, unknown> = {};
    let at = root;
    for (let i = 1; i < depth; i++) at = (at.k = {}) as Record<string, unknown>;
    return root;
  };

  it.each([33, 2_000])('%i levels deep → BAD_USER_INPUT before any upstream call, nothing echoed', async (depth) => {
    const r = await refusedBeforeUpstream(() => gql(t.url, QUOTE, { token: staff, variables: { r: nested(depth) } }), ['"k"']);
    expect(r.status).toBeLessThan(500);
  });

  it('as a literal of the document too', async () => {
    const literal = `${'{k: '.repeat(33)}1${' }'.repeat(33)}`;
    const before = upstreamCalls();
    const r = await gql(t.url, `mutation { createPlatformPayoutQuote(request: ${literal}) }`, { token: staff });
    expect(r.body.errors?.[0]?.extensions?.code).toBe('GRAPHQL_VALIDATION_FAILED'); // as any literal of the wrong shape
    expect(upstreamCalls()).toBe(before);
  });

  it('32 levels reach the platform', async () => {
    const before = upstreamCalls();
    await gql(t.url, QUOTE, { token: staff, variables: { r: nested(32) } });
    expect(upstreamCalls()).toBeGreaterThan(before);
  });
});
