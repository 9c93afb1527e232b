/**
 * GraphiQL on the whole service:
 * - development/test mode: `GET /graphql` from a browser serves GraphiQL from local assets; headless
 *   Chromium types a query and a bearer token (headers editor), runs it and sees the result; a
 *   subscription typed in GraphiQL receives an event (the headers editor content is the graphql-ws
 *   `connection_init` payload);
 * - production mode: no GraphiQL page, no assets, introspection refused (needs PostgreSQL, as production
 *   mode does; skipped with a printed reason where none answers).
 */
import { randomBytes } from 'node:crypto';
import net from 'node:net';
import { exportSPKI, generateKeyPair } from 'jose';
import { Client } from 'pg';
import { loadConfig } from '../../src/config';
import { startTestApp, type TestApp } from '../helpers/app';
import { PublishSystemNoticeDocument, ViewerDocument } from '../generated/graphql';
import { execute } from '../operations/request';
import { chromiumMissingReason, openBrowser, runInGraphiql, type Browser } from './graphiql.browser';
import { PRODUCTION_REQUIRED } from '../helpers/config';

const BROWSER_ACCEPT = 'text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,*/*;q=0.8';

async function get(url: string, accept: string): Promise<{ status: number; contentType: string; body: string }> {
  const res = await fetch(url, { headers: { accept } });
  return { status: res.status, contentType: res.headers.get('content-type') ?? '', body: await res.text() };
}

const INTROSPECTION = '{ __schema { queryType { name } types { name } } }';

describe('GraphiQL on the service (development mode)', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startTestApp();
  }, 60_000);
  afterAll(async () => {
    await app?.close();
  });

  test('GET /graphql from a browser serves the GraphiQL page; GraphQL clients still get GraphQL', async () => {
    const page = await get(`${app.url}/graphql`, BROWSER_ACCEPT);
    expect(page.status).toBe(200);
    expect(page.contentType).toMatch(/^text\/html/);
    expect(page.body).toContain('id="graphiql-settings"');
    expect(page.body).not.toMatch(/(src|href)="(https?:)?\/\//); // no CDN
    for (const [, ref] of page.body.matchAll(/(?:src|href)="(\/graphiql\/assets\/[^"]+)"/g)) {
      const asset = await get(`${app.url}${ref}`, '*/*');
      expect(asset.status).toBe(200);
    }

    // a GraphQL GET request (query in the URL) is never mistaken for a page view
    const q = await get(`${app.url}/graphql?query=${encodeURIComponent('{ __typename }')}`, 'application/graphql-response+json');
    expect(q.status).toBe(200);
    expect(JSON.parse(q.body)).toEqual({ data: { __typename: 'Query' } });
    const curl = await get(`${app.url}/graphql?query=${encodeURIComponent('{ __typename }')}`, '*/*');
    expect(curl.contentType).not.toMatch(/text\/html/);
  });

  test('introspection is on outside production', async () => {
    const r = await fetch(`${app.url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify({ query: INTROSPECTION }),
    });
    const body = (await r.json()) as { data?: { __schema: { queryType: { name: string } } } };
    expect(body.data?.__schema.queryType.name).toBe('Query');
  });

  const skipBrowser = chromiumMissingReason();
  if (skipBrowser) console.warn(`[graphiql.test] skipping the browser tests: ${skipBrowser}`);

  (skipBrowser ? describe.skip : describe)('in headless Chromium', () => {
    let browser: Browser;
    beforeAll(async () => {
      browser = await openBrowser();
    }, 60_000);
    afterAll(async () => {
      await browser?.close();
    });

    test('a query typed with a bearer token in the headers editor shows its result', async () => {
      const token = await app.token('alice-graphiql', 'customer');
      const run = await runInGraphiql(browser, `${app.url}/graphql`, {
        query: 'query Viewer { viewer { id role } }',
        headers: JSON.stringify({ authorization: `Bearer ${token}` }),
        expect: 'alice-graphiql',
      });
      expect(JSON.parse(run.result)).toEqual({ data: { viewer: { id: 'alice-graphiql', role: 'CUSTOMER' } } });
      expect(run.externalRequests).toEqual([]);
      expect(run.failedRequests).toEqual([]);
      expect(run.consoleErrors).toEqual([]);
    }, 60_000);

    test('without a token the error code is shown', async () => {
      const run = await runInGraphiql(browser, `${app.url}/graphql`, {
        query: '{ viewer { id } }',
        expect: 'UNAUTHENTICATED',
      });
      const result = JSON.parse(run.result) as { errors?: { extensions?: { code?: string } }[] };
      expect(result.errors?.[0]?.extensions?.code).toBe('UNAUTHENTICATED');
      expect(run.externalRequests).toEqual([]);
    }, 60_000);

    test('a subscription runs over graphql-ws with the headers editor content as connection_init payload', async () => {
      const [customer, admin] = await Promise.all([app.token('bob-graphiql', 'customer'), app.token('root', 'admin')]);
      const message = `maintenance ${randomBytes(4).toString('hex')}`;
      let timer: NodeJS.Timeout | undefined;
      try {
        const run = await runInGraphiql(browser, `${app.url}/graphql`, {
          query: 'subscription Notices { systemNotices { message severity } }',
          headers: JSON.stringify({ authorization: `Bearer ${customer}` }),
          expect: message,
          // the subscription starts asynchronously: publish until GraphiQL shows the notice
          afterRun: async () => {
            const publish = () =>
              execute(app.url, PublishSystemNoticeDocument, { token: admin, variables: { input: { message, severity: 'WARNING' } } }).then(
                (r) => expect(r.errors).toBeUndefined(),
              );
            await publish();
            timer = setInterval(() => void publish().catch(() => undefined), 300);
          },
        });
        expect(JSON.parse(run.result)).toEqual({ data: { systemNotices: { message, severity: 'WARNING' } } });
        expect(run.externalRequests).toEqual([]);
        expect(run.consoleErrors).toEqual([]);
      } finally {
        clearInterval(timer);
      }
    }, 60_000);
  });
});

test('config: production mode turns GraphiQL and introspection off by default', () => {
  const config = loadConfig({
    NODE_ENV: 'production',
    DATABASE_URL: 'postgresql://u@db:5432/x',
    GATEWAY_BASE_URL: 'https://gateway.example',
    REMITTANCES_BASE_URL: 'https://remittances.example',
    VERIFICATION_BASE_URL: 'https://verification.example',
    AUTH_JWKS_URL: 'https://id.example/.well-known/jwks.json',
    WEBHOOK_SECRET_ENCRYPTION_KEY: Buffer.alloc(32, 1).toString('base64'),
    ...PRODUCTION_REQUIRED,
  });
  expect(config.graphiql).toBe(false);
  expect(config.introspection).toBe(false);
  expect(loadConfig({ NODE_ENV: 'development' }).graphiql).toBe(true);
});

/** Base URL of a PostgreSQL server to create a throwaway database on, or null. */
async function postgresBaseUrl(): Promise<string | null> {
  const fromEnv = process.env.DATABASE_URL;
  if (fromEnv && /^postgres(ql)?:\/\//.test(fromEnv)) return fromEnv;
  const open = await new Promise<boolean>((resolve) => {
    const socket = net.connect({ host: '127.0.0.1', port: 5432 });
    socket.setTimeout(1000);
    socket.once('connect', () => (socket.destroy(), resolve(true)));
    socket.once('error', () => resolve(false));
    socket.once('timeout', () => (socket.destroy(), resolve(false)));
  });
  return open ? 'postgresql://postgres@127.0.0.1:5432/test' : null;
}

describe('production mode (NODE_ENV=production)', () => {
  let app: TestApp | undefined;
  let admin: Client | undefined;
  let dbName = '';
  let skipReason: string | null = null;

  beforeAll(async () => {
    const base = await postgresBaseUrl();
    if (!base) {
      skipReason = 'production mode requires PostgreSQL; none at DATABASE_URL or 127.0.0.1:5432';
      console.warn(`[graphiql.test] skipping the production-mode tests: ${skipReason}`);
      return;
    }
    admin = new Client({ connectionString: base });
    await admin.connect();
    dbName = `rbff_graphiql_${randomBytes(4).toString('hex')}`;
    await admin.query(`CREATE DATABASE ${dbName}`);
    const url = new URL(base);
    url.pathname = `/${dbName}`;
    const { publicKey } = await generateKeyPair('RS256');
    app = await startTestApp({
      NODE_ENV: 'production',
      DATABASE_URL: url.toString(),
      // never called by these tests; production mode refuses to start without real upstreams
      GATEWAY_BASE_URL: 'http://127.0.0.1:9/gateway',
      REMITTANCES_BASE_URL: 'http://127.0.0.1:9/remittances',
      VERIFICATION_BASE_URL: 'http://127.0.0.1:9/verification',
      AUTH_PUBLIC_KEY: await exportSPKI(publicKey),
      ...PRODUCTION_REQUIRED,
      PUBLIC_URL: 'http://127.0.0.1:9',
      METRICS_PORT: '0',
      WEBHOOK_SECRET_ENCRYPTION_KEY: Buffer.alloc(32, 1).toString('base64'),
      LOG_LEVEL: 'warn',
    });
  }, 60_000);

  afterAll(async () => {
    await app?.close();
    if (admin) {
      await admin.query(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`).catch(() => undefined);
      await admin.end();
    }
  });

  const maybe = (name: string, fn: () => Promise<void>) =>
    test(name, async () => {
      if (skipReason || !app) return console.warn(`[graphiql.test] skipped "${name}": ${skipReason}`);
      await fn();
    });

  maybe('GET /graphql from a browser does not serve GraphiQL, and no asset is served', async () => {
    const page = await get(`${app!.url}/graphql`, BROWSER_ACCEPT);
    expect(page.contentType).not.toMatch(/text\/html/);
    expect(page.body).not.toContain('graphiql');
    for (const name of ['graphiql.min.js', 'graphiql.min.css', 'react.production.min.js', 'graphiql-init.js']) {
      expect((await get(`${app!.url}/graphiql/assets/${name}`, '*/*')).status).toBe(404);
    }
  });

  maybe('introspection is refused, while ordinary operations still run', async () => {
    const r = await fetch(`${app!.url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify({ query: INTROSPECTION }),
    });
    const body = (await r.json()) as { data?: unknown; errors?: { message: string; extensions?: { detail?: string } }[] };
    expect(body.data ?? null).toBeNull();
    expect(body.errors?.[0]?.extensions?.detail).toMatch(/introspection/i);
    expect(JSON.stringify(body)).not.toContain('"queryType"');

    const viewer = await execute(app!.url, ViewerDocument);
    expect(viewer.errors?.[0]?.extensions?.code).toBe('UNAUTHENTICATED');
  });
});
