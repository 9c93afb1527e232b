/**
 * TRUSTED_DOCUMENTS: persisted documents by id (GraphQL-over-HTTP `documentId`) over HTTP (POST and GET) and
 * graphql-ws, in `allow` and `only` mode; in `only` mode nothing but the manifest runs, and a refusal happens
 * before parsing, validation, resolvers or upstream calls. The manifest is the app's (schema/app).
 */
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { print } from 'graphql';
import { startTestApp, type TestApp } from '../helpers/app';
import { http } from '../helpers/sandbox';
import { wsClient } from '../helpers/ws';
import { CorridorsDocument, TransferHistoryDocument, ViewerDocument } from '../../schema/app/generated';
import { loadConfig } from '../../src/config';
import { documentIdOf, TrustedDocuments } from '../../src/graphql/trusted-documents';

const sha = (text: string) => createHash('sha256').update(text).digest('hex');
const idOf = (doc: Parameters<typeof print>[0]) => documentIdOf(print(doc));
const VIEWER = print(ViewerDocument);
/** Not in the manifest: a createQuote that would call the gateway. */
const AD_HOC_QUOTE =
  'mutation { createQuote(input: { sourceCurrency: "USD", destinationCurrency: "BRL", paymentMethod: CARD, sourceAmount: "10.00" }) { id } }';

async function post(t: TestApp, token: string, body: unknown, accept = 'application/graphql-response+json') {
  const res = await fetch(`${t.url}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept, authorization: `Bearer ${token}` },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as any };
}
async function get(t: TestApp, token: string, params: Record<string, string>) {
  const res = await fetch(`${t.url}/graphql?${new URLSearchParams(params)}`, {
    headers: { accept: 'application/graphql-response+json', authorization: `Bearer ${token}` },
  });
  return { status: res.status, body: (await res.json()) as any };
}
/** A GET whose request target is sent exactly as given (fetch would drop a fragment). */
function rawGet(t: TestApp, token: string, target: string): Promise<{ status: number; body: any }> {
  const url = new URL(t.url);
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: url.hostname,
        port: url.port,
        path: target,
        headers: { accept: 'application/graphql-response+json', authorization: `Bearer ${token}` },
      },
      (res) => {
        let text = '';
        res.on('data', (c) => (text += c));
        res.on('end', () => resolve({ status: res.statusCode!, body: JSON.parse(text) }));
      },
    );
    req.on('error', reject);
    req.end();
  });
}
const gatewayCalls = async (t: TestApp) =>
  (await http<unknown[]>('GET', `${t.app.sandbox!.url}/__sandbox/calls?path=${encodeURIComponent('/gateway')}`)).body.length;

/** One websocket operation: its results and errors (`query: ""` with a documentId, as graphql-ws wants a string). */
async function wsOnce(t: TestApp, token: string, payload: Record<string, unknown>) {
  const { client } = wsClient(t.wsUrl, token);
  try {
    const results: any[] = [];
    let error: any;
    await new Promise<void>((resolve) =>
      client.subscribe({ query: '', ...payload } as never, {
        next: (v) => results.push(v),
        error: (e) => ((error = e), resolve()),
        complete: resolve,
      }),
    );
    return { results, error };
  } finally {
    await client.dispose();
  }
}

describe('TRUSTED_DOCUMENTS=allow', () => {
  let t: TestApp;
  let token: string;
  beforeAll(async () => {
    t = await startTestApp({ TRUSTED_DOCUMENTS: 'allow' });
    token = await t.token('trusted-allow', 'customer');
  }, 90_000);
  afterAll(() => t?.close());

  test('a known documentId runs (POST and GET); an unknown one is PERSISTED_DOCUMENT_NOT_FOUND; any text still runs', async () => {
    const byId = await post(t, token, { documentId: idOf(ViewerDocument) });
    expect(byId.body).toEqual({ data: { viewer: { id: 'trusted-allow', role: 'CUSTOMER', __typename: 'Viewer' } } });
    const byGet = await get(t, token, { documentId: idOf(CorridorsDocument) });
    expect(byGet.status).toBe(200);
    expect(byGet.body.data.corridors.length).toBeGreaterThan(0);
    const unknown = await post(t, token, { documentId: `sha256:${sha('query { viewer { id } }')}` });
    expect(unknown.status).toBe(400);
    expect(unknown.body.errors[0].extensions.code).toBe('PERSISTED_DOCUMENT_NOT_FOUND');
    expect(unknown.body.data).toBeUndefined();
    const both = await post(t, token, { documentId: idOf(ViewerDocument), query: VIEWER });
    expect(both.body.errors[0].extensions.code).toBe('BAD_REQUEST');
    const adHoc = await post(t, token, { query: '{ viewer { role } }' });
    expect(adHoc.body).toEqual({ data: { viewer: { role: 'CUSTOMER' } } });
  });

  test('GET: the check reads the query string as Apollo does (up to a fragment; a second "?" is part of a value)', async () => {
    // node's client sends the target as written: a fragment reaches the server, which must not read it as the id's
    const viewer = await rawGet(t, token, `/graphql?documentId=${encodeURIComponent(idOf(ViewerDocument))}#fragment`);
    expect(viewer).toEqual({ status: 200, body: { data: { viewer: { id: 'trusted-allow', role: 'CUSTOMER', __typename: 'Viewer' } } } });
    const second = await rawGet(t, token, `/graphql?documentId=${encodeURIComponent(idOf(ViewerDocument))}?x=1`);
    expect(second.body.errors[0].extensions.code).toBe('PERSISTED_DOCUMENT_NOT_FOUND');
  });

  test('graphql-ws: a documentId runs, an unknown one is refused, any text still runs', async () => {
    const byId = await wsOnce(t, token, { documentId: idOf(TransferHistoryDocument), variables: { first: 5 } });
    expect(byId.error).toBeUndefined();
    expect(byId.results[0].data.transfers.edges).toEqual([]);
    const unknown = await wsOnce(t, token, { documentId: 'sha256:' + '0'.repeat(64) });
    expect(unknown.error[0].extensions.code).toBe('PERSISTED_DOCUMENT_NOT_FOUND');
    const adHoc = await wsOnce(t, token, { query: '{ viewer { id } }' });
    expect(adHoc.results[0].data.viewer.id).toBe('trusted-allow');
  });
});

describe('TRUSTED_DOCUMENTS=only', () => {
  let t: TestApp;
  let token: string;
  beforeAll(async () => {
    t = await startTestApp({ TRUSTED_DOCUMENTS: 'only' });
    token = await t.token('trusted-only', 'customer');
  }, 90_000);
  afterAll(() => t?.close());

  test('the manifest runs, by documentId or by its exact text', async () => {
    expect((await post(t, token, { documentId: idOf(ViewerDocument) })).body.data.viewer.id).toBe('trusted-only');
    expect((await post(t, token, { query: VIEWER })).body.data.viewer.id).toBe('trusted-only');
    expect((await get(t, token, { query: VIEWER })).body.data.viewer.id).toBe('trusted-only');
  });

  test('any other text is PERSISTED_DOCUMENT_NOT_ALLOWED before validation, resolvers or upstream calls (a bounded parse at most)', async () => {
    const before = await gatewayCalls(t);
    const quote = await post(t, token, { query: AD_HOC_QUOTE });
    expect(quote.status).toBe(400);
    expect(quote.body.data).toBeUndefined();
    expect(quote.body.errors).toEqual([
      {
        message: expect.any(String),
        extensions: { code: 'PERSISTED_DOCUMENT_NOT_ALLOWED', detail: expect.any(String), requestId: expect.any(String) },
      },
    ]);
    expect(JSON.stringify(quote.body)).not.toContain('createQuote'); // nothing sent is echoed
    // not even parsed: a syntax error or an unknown field gets the same refusal, not GRAPHQL_PARSE_FAILED/VALIDATION_FAILED
    expect((await post(t, token, { query: '{ viewer { ' })).body.errors[0].extensions.code).toBe('PERSISTED_DOCUMENT_NOT_ALLOWED');
    expect((await post(t, token, { query: '{ noSuchField }' })).body.errors[0].extensions.code).toBe('PERSISTED_DOCUMENT_NOT_ALLOWED');
    // another selection, an alias or an argument is another document, whatever its layout
    expect((await get(t, token, { query: '{ viewer { id } }' })).body.errors[0].extensions.code).toBe('PERSISTED_DOCUMENT_NOT_ALLOWED');
    expect((await post(t, token, { query: 'query Viewer { viewer { id } }' })).body.errors[0].extensions.code).toBe(
      'PERSISTED_DOCUMENT_NOT_ALLOWED',
    );
    expect((await post(t, token, { query: 'query Viewer { viewer { id who: role } }' })).body.errors[0].extensions.code).toBe(
      'PERSISTED_DOCUMENT_NOT_ALLOWED',
    );
    expect(
      (await post(t, token, { query: 'query Viewer { viewer { id role __typename t: __typename } }' })).body.errors[0].extensions.code,
    ).toBe('PERSISTED_DOCUMENT_NOT_ALLOWED');
    // a legacy application/json client gets the same refusal with 200 (GraphQL over HTTP)
    const legacy = await post(t, token, { query: AD_HOC_QUOTE }, 'application/json');
    expect(legacy.status).toBe(200);
    expect(legacy.body.errors[0].extensions.code).toBe('PERSISTED_DOCUMENT_NOT_ALLOWED');
    expect(await gatewayCalls(t)).toBe(before);
    expect(await t.app.db.prisma.quote.count()).toBe(0);
  });

  test('the same document as clients print it runs: without __typename, another layout, the fragments in another order', async () => {
    expect((await post(t, token, { query: 'query Viewer { viewer { id role } }' })).body.data.viewer).toEqual({
      id: 'trusted-only',
      role: 'CUSTOMER',
    });
    expect((await post(t, token, { query: `${VIEWER}\n\n` })).body.data.viewer.__typename).toBe('Viewer');
    const history = print(TransferHistoryDocument);
    const [operation, ...fragments] = history.split('\n\nfragment ');
    const reordered = [...fragments.map((f) => `fragment ${f}`).reverse(), operation].join('\n');
    const r = await post(t, token, { query: reordered.replace(/\n\s*__typename/g, ''), variables: { first: 1 } });
    expect(r.body.errors).toBeUndefined();
    expect(r.body.data.transfers.edges).toEqual([]);
  });

  test('APQ does not widen the list: registering another text is refused, a manifest hash runs, an unknown hash asks for the text', async () => {
    const q = '{ viewer { id role } }';
    const register = await post(t, token, { query: q, extensions: { persistedQuery: { version: 1, sha256Hash: sha(q) } } });
    expect(register.body.errors[0].extensions.code).toBe('PERSISTED_DOCUMENT_NOT_ALLOWED');
    // a hash alone this instance never approved: the code Apollo's persisted-query link answers by sending the text
    const after = await post(t, token, { extensions: { persistedQuery: { version: 1, sha256Hash: sha(q) } } });
    expect(after.body.errors[0]).toMatchObject({ message: 'PersistedQueryNotFound', extensions: { code: 'PERSISTED_QUERY_NOT_FOUND' } });
    const manifestHash = await post(t, token, { extensions: { persistedQuery: { version: 1, sha256Hash: sha(VIEWER) } } });
    expect(manifestHash.body.data.viewer.id).toBe('trusted-only');
    const viaGet = await get(t, token, { extensions: JSON.stringify({ persistedQuery: { version: 1, sha256Hash: sha(q) } }) });
    expect(viaGet.body.errors[0].extensions.code).toBe('PERSISTED_QUERY_NOT_FOUND');
    // a client's own print of a manifest document, registered with its hash, then runs by the hash alone
    const client = 'query Viewer {\n  viewer {\n    id\n    role\n  }\n}';
    const ext = { persistedQuery: { version: 1, sha256Hash: sha(client) } };
    expect((await post(t, token, { extensions: ext })).body.errors[0].extensions.code).toBe('PERSISTED_QUERY_NOT_FOUND');
    expect((await post(t, token, { query: client, extensions: ext })).body.data.viewer.id).toBe('trusted-only');
    expect((await post(t, token, { extensions: ext })).body.data.viewer.id).toBe('trusted-only');
  });

  test('graphql-ws: a documentId or the manifest text runs; other text is refused before anything runs', async () => {
    const byId = await wsOnce(t, token, { documentId: idOf(ViewerDocument) });
    expect(byId.results[0].data.viewer.id).toBe('trusted-only');
    const byText = await wsOnce(t, token, { query: VIEWER });
    expect(byText.results[0].data.viewer.id).toBe('trusted-only');
    const before = await gatewayCalls(t);
    const refused = await wsOnce(t, token, { query: AD_HOC_QUOTE });
    expect(refused.results).toEqual([]);
    expect(refused.error).toEqual([
      {
        message: expect.any(String),
        extensions: { code: 'PERSISTED_DOCUMENT_NOT_ALLOWED', detail: expect.any(String), requestId: expect.any(String) },
      },
    ]);
    const parseError = await wsOnce(t, token, { query: 'subscription {' });
    expect(parseError.error[0].extensions.code).toBe('PERSISTED_DOCUMENT_NOT_ALLOWED');
    expect(await gatewayCalls(t)).toBe(before);
  });
});

describe('the manifest', () => {
  test('the default is the app manifest; a missing or tampered one stops the service from starting', () => {
    expect(loadConfig({ NODE_ENV: 'test' }).trustedDocuments).toEqual({
      mode: 'allow',
      manifestPath: expect.stringMatching(/schema[/\\]app[/\\]persisted-documents\.json$/),
    });
    expect(() => loadConfig({ NODE_ENV: 'test', TRUSTED_DOCUMENTS: 'sometimes' })).toThrow(/TRUSTED_DOCUMENTS/);
    const dir = mkdtempSync(join(tmpdir(), 'trusted-'));
    try {
      expect(() => TrustedDocuments.load('only', join(dir, 'missing.json'))).toThrow(/cannot read the manifest/);
      writeFileSync(join(dir, 'tampered.json'), JSON.stringify({ [`sha256:${sha(VIEWER)}`]: '{ viewer { id } }' }));
      expect(() => TrustedDocuments.load('only', join(dir, 'tampered.json'))).toThrow(/regenerate/);
      expect(TrustedDocuments.load('off', join(dir, 'missing.json'))).toBeNull();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
