/**
 * GraphiQL plugin on a bare Fastify instance: the assets (types, caching, compression, allow-list),
 * the page (local assets only, escaping, strict CSP), the Accept negotiation helper, and a headless
 * Chromium run against a minimal GraphQL endpoint that echoes the Authorization header, which proves
 * the page boots from local files, runs a query and sends what is typed in the headers editor.
 */
import { gunzipSync } from 'node:zlib';
import Fastify, { type FastifyInstance } from 'fastify';
import { buildSchema, graphql } from 'graphql';
import { request } from 'undici';
import { GRAPHIQL_ASSETS_PREFIX, GRAPHIQL_HTML_HEADERS, graphiqlHtml, graphiqlPlugin, prefersHtml } from '../../src/http/graphiql.routes';
import { chromiumMissingReason, openBrowser, runInGraphiql, type Browser } from './graphiql.browser';

const schema = buildSchema(`type Query { hello: String!  authorization: String }`);

async function bareApp(): Promise<FastifyInstance> {
  const app = Fastify({ logger: false });
  await app.register(graphiqlPlugin);
  app.get('/graphql', async (request, reply) => {
    if (prefersHtml(request.headers.accept)) {
      return reply.headers(GRAPHIQL_HTML_HEADERS).send(graphiqlHtml({ endpoint: '/graphql', subscriptionEndpoint: '/graphql' }));
    }
    return reply.code(400).send({ errors: [{ message: 'GET queries are not part of this fixture' }] });
  });
  app.post<{ Body: { query: string; variables?: Record<string, unknown>; operationName?: string } }>('/graphql', async (request) =>
    graphql({
      schema,
      source: request.body.query,
      variableValues: request.body.variables,
      operationName: request.body.operationName,
      rootValue: { hello: 'world', authorization: request.headers.authorization ?? null },
    }),
  );
  await app.listen({ port: 0, host: '127.0.0.1' });
  return app;
}

function origin(app: FastifyInstance): string {
  const addr = app.server.address();
  if (!addr || typeof addr === 'string') throw new Error('no address');
  return `http://127.0.0.1:${addr.port}`;
}

interface HttpResult {
  statusCode: number;
  headers: Record<string, string | string[] | undefined>;
  rawPayload: Buffer;
  body: string;
}

/** A real HTTP request (no decompression), as light-my-request's inject cannot load under jest on Node 20. */
async function http(app: FastifyInstance, method: 'GET' | 'HEAD', path: string, headers: Record<string, string> = {}): Promise<HttpResult> {
  const res = await request(`${origin(app)}${path}`, { method, headers });
  const rawPayload = Buffer.from(await res.body.arrayBuffer());
  return { statusCode: res.statusCode, headers: res.headers, rawPayload, body: rawPayload.toString('utf8') };
}

describe('graphiqlPlugin assets', () => {
  let app: FastifyInstance;
  beforeAll(async () => {
    app = await bareApp();
  });
  afterAll(async () => {
    await app.close();
  });

  const expected: [string, RegExp, string][] = [
    ['graphiql.min.js', /^text\/javascript/, 'createFetcher'],
    ['graphiql.min.css', /^text\/css/, '.graphiql-container'],
    ['react.production.min.js', /^text\/javascript/, 'react.production.min.js'],
    ['react-dom.production.min.js', /^text\/javascript/, 'react-dom.production.min.js'],
    ['graphiql-init.js', /^text\/javascript/, 'GraphiQL.createFetcher'],
    ['graphiql-page.css', /^text\/css/, '#graphiql'],
  ];

  test.each(expected)('%s: content type, cache headers, ETag/304, gzip', async (name, type, marker) => {
    const plain = await http(app, 'GET', `${GRAPHIQL_ASSETS_PREFIX}${name}`);
    expect(plain.statusCode).toBe(200);
    expect(plain.headers['content-type']).toMatch(type);
    expect(plain.headers['cache-control']).toBe('public, max-age=86400');
    expect(plain.headers['x-content-type-options']).toBe('nosniff');
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(plain.body).toContain(marker);
    const etag = plain.headers.etag as string;
    expect(etag).toMatch(/^"[\w-]{16}"$/);

    const again = await http(app, 'GET', `${GRAPHIQL_ASSETS_PREFIX}${name}?v=whatever`, { 'if-none-match': etag });
    expect(again.statusCode).toBe(304);
    expect(again.body).toBe('');

    const gz = await http(app, 'GET', `${GRAPHIQL_ASSETS_PREFIX}${name}`, { 'accept-encoding': 'br, gzip;q=0.8' });
    expect(gz.statusCode).toBe(200);
    if (plain.rawPayload.length > 1024) {
      expect(gz.headers['content-encoding']).toBe('gzip');
      expect(gunzipSync(gz.rawPayload).equals(plain.rawPayload)).toBe(true);
      expect(gz.rawPayload.length).toBeLessThan(plain.rawPayload.length);
    } else {
      expect(gz.rawPayload.equals(plain.rawPayload)).toBe(true);
    }
    const refused = await http(app, 'GET', `${GRAPHIQL_ASSETS_PREFIX}${name}`, { 'accept-encoding': 'gzip;q=0' });
    expect(refused.headers['content-encoding']).toBeUndefined();

    const head = await http(app, 'HEAD', `${GRAPHIQL_ASSETS_PREFIX}${name}`);
    expect(head.statusCode).toBe(200);
    expect(head.headers['content-type']).toMatch(type);
  });

  test('the GraphiQL bundle does not point at a source map the package does not ship', async () => {
    const res = await http(app, 'GET', `${GRAPHIQL_ASSETS_PREFIX}graphiql.min.js`);
    expect(res.body).not.toMatch(/sourceMappingURL/);
  });

  test.each([
    'graphiql.min.js.map',
    'index.umd.js',
    'package.json',
    '..%2F..%2Fpackage.json',
    '..%2Fgraphiql%2Fpackage.json',
    '%2e%2e%2fpackage.json',
  ])('only allow-listed names are served: %s → 404', async (name) => {
    const res = await http(app, 'GET', `${GRAPHIQL_ASSETS_PREFIX}${name}`);
    expect(res.statusCode).toBe(404);
    expect(res.body).not.toContain('"name"');
  });
  test('no directory listing', async () => {
    expect((await http(app, 'GET', '/graphiql/assets/')).statusCode).toBe(404);
    expect((await http(app, 'GET', '/graphiql/assets/../../package.json')).statusCode).toBe(404);
  });

  test('the page references only local assets, each of which is served', async () => {
    const html = graphiqlHtml({ endpoint: '/graphql', subscriptionEndpoint: '/graphql' });
    expect(html).not.toMatch(/(src|href)="(https?:)?\/\//);
    const refs = [...html.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]).filter((r) => r !== 'data:,');
    expect(refs).toHaveLength(6);
    for (const ref of refs) {
      expect(ref.startsWith(GRAPHIQL_ASSETS_PREFIX)).toBe(true);
      expect(ref).toMatch(/\?v=[\w-]{16}$/);
      const res = await http(app, 'GET', ref);
      expect(res.statusCode).toBe(200);
    }
    // no inline script: the only <script> without src is the JSON settings block
    const inline = [...html.matchAll(/<script(?![^>]*\bsrc=)([^>]*)>/g)].map((m) => m[1]);
    expect(inline).toEqual([' id="graphiql-settings" type="application/json"']);
  });

  test('settings are embedded as inert JSON (no way to close the script element)', () => {
    const evil = '/graphql?x=</script><script>alert(1)</script><!--';
    const html = graphiqlHtml({ endpoint: evil, defaultHeaders: '{"a":"\u2028"}', title: '<b>&' });
    expect(html).not.toContain('</script><script>alert(1)');
    expect(html).toContain('<title>&#60;b&#62;&#38;</title>');
    const json = /<script id="graphiql-settings" type="application\/json">(.*?)<\/script>/s.exec(html)?.[1];
    expect(json).toBeDefined();
    const settings = JSON.parse(json as string) as Record<string, unknown>;
    expect(settings.endpoint).toBe(evil);
    expect(settings.subscriptionEndpoint).toBeNull();
    expect(settings.defaultHeaders).toBe('{"a":"\u2028"}');
  });

  test('prefersHtml: browsers yes, GraphQL clients and curl no', () => {
    const browser = 'text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,*/*;q=0.8';
    expect(prefersHtml(browser)).toBe(true);
    expect(prefersHtml('text/html')).toBe(true);
    expect(prefersHtml('application/json;q=0.5, text/html')).toBe(true);
    expect(prefersHtml(undefined)).toBe(false);
    expect(prefersHtml('')).toBe(false);
    expect(prefersHtml('*/*')).toBe(false);
    expect(prefersHtml('application/json')).toBe(false);
    expect(prefersHtml('application/graphql-response+json, application/json;q=0.9')).toBe(false);
    expect(prefersHtml('text/html;q=0.5, application/graphql-response+json')).toBe(false);
    expect(prefersHtml('application/json, text/html')).toBe(false); // tie → the API wins
    expect(prefersHtml('text/html;q=0')).toBe(false);
  });

  test('the page is sent with a strict CSP and never cached', () => {
    expect(GRAPHIQL_HTML_HEADERS['content-type']).toBe('text/html; charset=utf-8');
    expect(GRAPHIQL_HTML_HEADERS['cache-control']).toBe('no-store');
    expect(GRAPHIQL_HTML_HEADERS['content-security-policy']).toContain("script-src 'self'");
    expect(GRAPHIQL_HTML_HEADERS['content-security-policy']).not.toMatch(/script-src[^;]*unsafe/);
  });
});

const skipBrowser = chromiumMissingReason();
if (skipBrowser) console.warn(`[graphiql.plugin.test] skipping the browser test: ${skipBrowser}`);

(skipBrowser ? describe.skip : describe)('GraphiQL in headless Chromium (bare Fastify)', () => {
  let app: FastifyInstance;
  let browser: Browser;
  beforeAll(async () => {
    app = await bareApp();
    browser = await openBrowser();
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await app?.close();
  });

  test('boots from local assets under the strict CSP, runs a query, sends the headers editor content', async () => {
    const run = await runInGraphiql(browser, `${origin(app)}/graphql`, {
      query: '{ hello authorization }',
      headers: '{"authorization": "Bearer test-token-123"}',
      expect: 'test-token-123',
    });
    expect(run.failedRequests).toEqual([]);
    expect(run.externalRequests).toEqual([]);
    expect(run.consoleErrors).toEqual([]);
    const result = JSON.parse(run.result) as unknown;
    expect(result).toEqual({ data: { hello: 'world', authorization: 'Bearer test-token-123' } });
  }, 60_000);
});
