/**
 * The built service in production mode (`node dist/main.js`, NODE_ENV=production): it refuses a weak
 * configuration, keeps /metrics off the API port, and answers client mistakes without suggestions or echoes.
 */
import { randomBytes } from 'node:crypto';
import { runNode } from '../helpers/process';
import { SignJWT } from 'jose';
import { PROD_AUDIENCE, PROD_ISSUER, productionKeys, startProductionService, type ProductionService } from '../helpers/production';
import { wsClient, collect } from '../helpers/ws';

jest.setTimeout(120_000);

describe('configuration', () => {
  it('refuses to start without issuer, audience, PUBLIC_URL or any upstream credential, in one message naming each', async () => {
    const keys = await productionKeys();
    const r = await runNode('dist/main.js', [], {
      NODE_ENV: 'production',
      DATABASE_URL: 'postgresql://postgres@127.0.0.1:1/none',
      AUTH_PUBLIC_KEY: keys.publicPem.replace(/\n/g, '\\n'),
      WEBHOOK_SECRET_ENCRYPTION_KEY: randomBytes(32).toString('base64'),
      GATEWAY_BASE_URL: 'https://gateway.example',
      REMITTANCES_BASE_URL: 'https://remittances.example',
      VERIFICATION_BASE_URL: 'https://verification.example',
    });
    expect(r.code).toBe(1);
    const missing = [
      'AUTH_ISSUER',
      'AUTH_AUDIENCE',
      'PUBLIC_URL',
      'GATEWAY_CLIENT_ID',
      'GATEWAY_CLIENT_SECRET',
      'REMITTANCES_TENANT_ID',
      'REMITTANCES_API_KEY',
      'REMITTANCES_AGENT_ID',
      'REMITTANCES_AGENT_API_KEY',
      'VERIFICATION_CLIENT_ID',
      'VERIFICATION_CLIENT_SECRET',
      'SUPPORT_EMAIL',
    ];
    for (const v of missing) expect(r.stderr).toContain(`${v}:`);
    expect(r.stderr.match(/Invalid configuration/g)).toHaveLength(1);
    expect(r.stderr).not.toMatch(/\n\s+at /);
    expect(r.stdout).toBe('');
  });
});

describe('a running production service', () => {
  let p: ProductionService;
  let token: string;
  beforeAll(async () => {
    p = await startProductionService();
    token = await p.token('prod-alice', 'customer');
  });
  afterAll(() => p?.close());

  const post = async (query: string, variables?: Record<string, unknown>) => {
    const res = await fetch(`${p.url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
      body: JSON.stringify({ query, variables }),
    });
    return { status: res.status, text: await res.text() };
  };

  it('serves /metrics on the metrics port only (404 on the API port)', async () => {
    expect((await fetch(`${p.url}/metrics`)).status).toBe(404);
    const m = await fetch(`${p.metricsUrl}/metrics`);
    expect(m.status).toBe(200);
    expect(await m.text()).toMatch(/graphql_requests_total|http_requests_total/);
    expect((await fetch(`${p.metricsUrl}/graphql`)).status).toBe(404);
  });

  it('/readyz tells anonymous callers the status only; the metrics listener shows the checks with their details', async () => {
    const anonymous = await fetch(`${p.url}/readyz`);
    expect(anonymous.status).toBe(200);
    expect(await anonymous.json()).toEqual({ status: 'ready' });
    const operator = (await (await fetch(`${p.metricsUrl}/readyz`)).json()) as {
      checks: { webhooks: { details: Record<string, unknown> } };
    };
    expect(operator.checks.webhooks.details).toHaveProperty('mode', 'signed');
  });

  // Each mistake names something the client made up; none of it, and no "Did you mean", may come back.
  const mistakes: [string, string, Record<string, unknown> | undefined, string[]][] = [
    [
      'enum value (variables)',
      'mutation($i: CreateQuoteInput!) { createQuote(input: $i) { id } }',
      { i: { sourceCurrency: 'USD', destinationCurrency: 'BRL', paymentMethod: 'WALET' } },
      ['WALET', 'WALLET'],
    ],
    [
      'enum value (literal)',
      '{ transfers(first: 1, filter: { status: [PENDNG] }) { edges { cursor } } }',
      undefined,
      ['PENDNG', 'PENDING'],
    ],
    [
      'unknown input field (variables)',
      'mutation($i: CreateQuoteInput!) { createQuote(input: $i) { id } }',
      { i: { sourceCurrency: 'USD', destinationCurrency: 'BRL', paymentMethod: 'WALLET', sourceAmmount: '1' } },
      ['sourceAmmount', 'sourceAmount'],
    ],
    [
      'unknown input field (literal)',
      'mutation { createQuote(input: { sourceCurrency: "USD", destinationCurrency: "BRL", paymentMethod: WALLET, sourceAmmount: "1" }) { id } }',
      undefined,
      ['sourceAmmount', 'sourceAmount'],
    ],
    ['unknown field', '{ viewr { id } }', undefined, ['viewr', 'viewer']],
    ['unknown argument', '{ transfers(frist: 1) { edges { cursor } } }', undefined, ['frist', 'first']],
    ['bad variable value', 'query($f: Int) { transfers(first: $f) { edges { cursor } } }', { f: 'seventeen-secret' }, ['seventeen-secret']],
  ];

  it.each(mistakes)('HTTP: %s → a stable code, no suggestion, no echo', async (_label, query, variables, echoes) => {
    const r = await post(query, variables);
    expect(r.status).toBeLessThan(500);
    const body = JSON.parse(r.text) as { errors: { extensions: { code: string } }[] };
    expect(['GRAPHQL_VALIDATION_FAILED', 'BAD_USER_INPUT']).toContain(body.errors[0]!.extensions.code);
    expect(r.text).not.toMatch(/did you mean/i);
    for (const e of echoes) expect(r.text).not.toContain(e);
  });

  it.each(mistakes)('websocket: %s → no suggestion, no echo', async (_label, query, variables, echoes) => {
    const { client } = wsClient(p.wsUrl, token);
    try {
      const sub = collect(client, query, variables);
      await sub.next(1).catch(() => undefined);
      const text = JSON.stringify({ results: sub.results, error: sub.error });
      expect(text).toMatch(/GRAPHQL_VALIDATION_FAILED|BAD_USER_INPUT/);
      expect(text).not.toMatch(/did you mean/i);
      for (const e of echoes) expect(text).not.toContain(e);
    } finally {
      await client.dispose();
    }
  });

  it('an unknown operationName is not echoed, and introspection is refused without naming the server', async () => {
    const res = await fetch(`${p.url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
      body: JSON.stringify({ query: 'query A { viewer { id } }', operationName: 'ECHO_OPNAME_xyz' }),
    });
    const text = await res.text();
    expect(res.status).toBe(400);
    expect(JSON.parse(text).errors[0].extensions.code).toBe('OPERATION_RESOLUTION_FAILURE');
    expect(text).not.toContain('ECHO_OPNAME_xyz');
    const intro = await post('{ __schema { types { name } } }');
    expect(JSON.parse(intro.text).errors[0].extensions.code).toBe('GRAPHQL_VALIDATION_FAILED');
    expect(intro.text).not.toMatch(/Apollo|ApolloServer|introspection: true/);
  });

  hostileDocuments(() => p);

  describe('token lifetime and clock skew', () => {
    const now = () => Math.floor(Date.now() / 1000);
    const sign = (claims: { iat?: number; exp: number; nbf?: number }) => {
      let jwt = new SignJWT({ role: 'customer' })
        .setProtectedHeader({ alg: 'ES256', typ: 'JWT' })
        .setSubject('lifetime-alice')
        .setIssuer(PROD_ISSUER)
        .setAudience(PROD_AUDIENCE)
        .setExpirationTime(claims.exp);
      if (claims.iat !== undefined) jwt = jwt.setIssuedAt(claims.iat);
      if (claims.nbf !== undefined) jwt = jwt.setNotBefore(claims.nbf);
      return jwt.sign(p.keys.privateKey);
    };
    const viewer = async (jwt: string) => {
      const res = await fetch(`${p.url}/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${jwt}` },
        body: JSON.stringify({ query: '{ viewer { id } }' }),
      });
      const body = (await res.json()) as { data?: { viewer: { id: string } } | null; errors?: { extensions: { code: string } }[] };
      return body.data?.viewer.id ?? body.errors?.[0]?.extensions.code;
    };
    it.each([
      ['exp 100 years ahead: refused', () => ({ iat: now(), exp: now() + 100 * 365 * 86_400 }), 'UNAUTHENTICATED'],
      ['exp 100 years ahead, no iat: refused', () => ({ exp: now() + 100 * 365 * 86_400 }), 'UNAUTHENTICATED'],
      ['iat a year in the future: refused', () => ({ iat: now() + 365 * 86_400, exp: now() + 365 * 86_400 + 600 }), 'UNAUTHENTICATED'],
      ['iat 2 minutes in the future: refused', () => ({ iat: now() + 120, exp: now() + 3600 }), 'UNAUTHENTICATED'],
      ['valid for 25 hours: refused', () => ({ iat: now(), exp: now() + 25 * 3600 }), 'UNAUTHENTICATED'],
      ['iat 20 s ahead (within the skew): accepted', () => ({ iat: now() + 20, exp: now() + 3600 }), 'lifetime-alice'],
      ['valid for 23 hours: accepted', () => ({ iat: now(), exp: now() + 23 * 3600 }), 'lifetime-alice'],
      ['without iat, an hour: accepted', () => ({ exp: now() + 3600 }), 'lifetime-alice'],
    ])('%s', async (_label, claims, expected) => {
      const jwt = await sign(claims());
      expect(await viewer(jwt)).toBe(expected);
      const { closed, client } = wsClient(p.wsUrl, jwt, { lazy: false });
      try {
        if (expected === 'UNAUTHENTICATED') expect((await closed).code).toBe(4403);
        else {
          const sub = collect<{ viewer: { id: string } }>(client, '{ viewer { id } }');
          await sub.next(1);
          expect(sub.results[0]?.data?.viewer.id).toBe(expected);
        }
      } finally {
        await client.dispose();
      }
    });
  });

  it('a subscription POSTed over HTTP is a 400 client error', async () => {
    const r = await post('subscription { systemNotices { id } }');
    expect(r.status).toBe(400);
    expect(JSON.parse(r.text).errors[0].extensions.code).toBe('SUBSCRIPTION_OVER_HTTP');
  });
});

describe('a production service with TRUSTED_DOCUMENTS=off', () => {
  let p: ProductionService;
  beforeAll(async () => {
    p = await startProductionService({ TRUSTED_DOCUMENTS: 'off' });
  });
  afterAll(() => p?.close());

  hostileDocuments(() => p);
});

/**
 * Hostile documents get the same refusal over HTTP and graphql-ws (one admission for both: admission.ts), whatever
 * TRUSTED_DOCUMENTS is: each case runs under a token of its own, so a budget spent by one cannot refuse another.
 */
function hostileDocuments(p: () => ProductionService): void {
  const chain = (n: number, leaf: string) => {
    let q = '{ ...F0 }';
    for (let i = 0; i < n; i++) q += ` fragment F${i} on Query { ...F${i + 1} ...F${i + 1} }`;
    return `${q} fragment F${n} on Query { ${leaf} }`;
  };
  const nested = (depth: number, leaf: unknown): unknown => (depth === 0 ? leaf : { k: nested(depth - 1, leaf) });
  const refusals: [string, string, Record<string, unknown> | undefined, string][] = [
    ['introspection (__schema)', '{ __schema { types { name } } }', undefined, 'GRAPHQL_VALIDATION_FAILED'],
    ['introspection (__type)', '{ __type(name: "Mutation") { fields { name } } }', undefined, 'GRAPHQL_VALIDATION_FAILED'],
    ['directives', `{ ${'viewer @include(if: true) { id } '.repeat(51)} }`, undefined, 'TOO_MANY_DIRECTIVES'],
    ['aliases', `{ ${Array.from({ length: 20 }, (_, i) => `a${i}: viewer { id }`).join(' ')} }`, undefined, 'TOO_MANY_ALIASES'],
    [
      'cost',
      `{ ${[1, 2, 3, 4, 5, 6, 7].map((i) => `a${i}: transfers(first: 100) { edges { node { events(first: 100) { edges { node { seq } } } } } }`).join(' ')} }`,
      undefined,
      'QUERY_TOO_COMPLEX',
    ],
    ['tokens', `{ ${'__typename '.repeat(2100)} }`, undefined, 'TOO_MANY_TOKENS'],
    [
      'NUL deep in the variables',
      'mutation($r: JSONObject!) { createPlatformPayoutQuote(request: $r) }',
      { r: nested(100, 'a\u0000b') },
      'BAD_USER_INPUT',
    ],
    [
      'an instant of year 0000',
      'query($f: TransferFilter) { transfers(first: 1, filter: $f) { edges { cursor } } }',
      { f: { createdFrom: '0000-01-01T00:00:00Z' } },
      'BAD_USER_INPUT',
    ],
    [
      'a keyset cursor of year 0000',
      'query($a: String) { transfers(first: 1, after: $a) { edges { cursor } } }',
      { a: Buffer.from('k:0000-01-01T00:00:00.000Z|00000000-0000-4000-8000-000000000000').toString('base64url') },
      'BAD_USER_INPUT',
    ],
    ['upstream budget priced per fragment path', chain(9, 'banks(countryCode: "BR") { totalCount }'), undefined, 'RATE_LIMITED'],
  ];
  let caseNo = 0;
  it.each(refusals)('%s: the same refusal over HTTP and graphql-ws', async (_label, query, variables, code) => {
    const [httpToken, wsToken] = await Promise.all([
      p().token(`parity-h-${caseNo}`, 'customer'),
      p().token(`parity-w-${caseNo++}`, 'customer'),
    ]);
    const res = await fetch(`${p().url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${httpToken}` },
      body: JSON.stringify({ query, variables }),
    });
    const http = (await res.json()) as { data?: unknown; errors?: { extensions: { code: string } }[] };
    const { client } = wsClient(p().wsUrl, wsToken);
    try {
      const sub = collect(client, query, variables);
      await sub.next(1).catch(() => undefined);
      const wsErrors = (sub.error as { extensions: { code: string } }[] | undefined) ?? sub.results[0]?.errors ?? [];
      expect(http.errors?.[0]?.extensions.code).toBe(code);
      expect(wsErrors[0]?.extensions?.code).toBe(code);
      expect((wsErrors[0] as { message?: string } | undefined)?.message).toBe(
        (http.errors?.[0] as { message?: string } | undefined)?.message,
      );
      expect((wsErrors[0] as { extensions?: { detail?: string } } | undefined)?.extensions?.detail).toBe(
        (http.errors?.[0] as { extensions?: { detail?: string } } | undefined)?.extensions?.detail,
      );
      expect(sub.results.some((r) => r.data)).toBe(false);
      expect(http.data ?? null).toBeNull();
    } finally {
      await client.dispose();
    }
  });

  it('a 1 KB document of fragments spreading each other twice (2^40 paths) is answered at once over both transports', async () => {
    const query = chain(40, '__typename');
    expect(query.length).toBeLessThan(2048);
    const token = await p().token('chain-alice', 'customer');
    const res = await fetch(`${p().url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
      body: JSON.stringify({ query }),
    });
    expect(await res.json()).toEqual({ data: { __typename: 'Query' } });
    const { client } = wsClient(p().wsUrl, token);
    try {
      const sub = collect(client, query);
      await sub.next(1, 10_000);
      expect(sub.results[0]).toEqual({ data: { __typename: 'Query' } });
    } finally {
      await client.dispose();
    }
    expect((await fetch(`${p().url}/healthz`)).status).toBe(200);
  });
}
