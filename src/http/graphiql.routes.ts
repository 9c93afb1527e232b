import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { gzipSync } from 'node:zlib';
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';

/**
 * GraphiQL, served from locally installed packages (this network has no CDN).
 *
 * - `graphiqlPlugin` serves a fixed allow-list of files under `/graphiql/assets/<name>`: GraphiQL's UMD
 *   bundle and stylesheet (graphiql@3), React 18 and ReactDOM 18 UMD production builds, and two small
 *   files of ours (the page's bootstrap script and stylesheet). No directory is exposed.
 * - `graphiqlHtml()` returns the page. The server replies with it on `GET /graphql` when the request
 *   prefers HTML (`prefersHtml`) and `config.graphiql` is on (never in production) and the packages are
 *   installed (`graphiqlInstalled`: they are development dependencies).
 *
 * The page runs no inline script (the settings travel in a `type="application/json"` block read by
 * `graphiql-init.js`), so it works under `GRAPHIQL_CSP`, a strict Content-Security-Policy.
 *
 * Subscriptions: graphiql@3's UMD bundle contains graphql-ws, and `GraphiQL.createFetcher` opens a
 * graphql-ws connection to `subscriptionUrl` for subscription operations, sending the headers typed in
 * the headers editor as the `connection_init` payload. So `{"authorization": "Bearer <jwt>"}` in the
 * headers editor authenticates both HTTP requests and subscriptions.
 */

export const GRAPHIQL_ASSETS_PREFIX = '/graphiql/assets/';

interface Asset {
  body: Buffer;
  gzip: Buffer | null; // computed on first gzip-accepting request
  etag: string;
  contentType: string;
}

const JS = 'text/javascript; charset=utf-8';
const CSS = 'text/css; charset=utf-8';
/** Assets are referenced with `?v=<content hash>`, so a day of caching is safe; the ETag covers the rest. */
const CACHE_CONTROL = 'public, max-age=86400';

const INIT_JS = `/* remittance-bff: GraphiQL bootstrap (settings come from the JSON block in the page) */
(function () {
  'use strict';
  var settings = JSON.parse(document.getElementById('graphiql-settings').textContent);
  function absolute(url, websocket) {
    var u = new URL(url, window.location.href);
    if (websocket && (u.protocol === 'http:' || u.protocol === 'https:')) {
      u.protocol = u.protocol === 'https:' ? 'wss:' : 'ws:';
    }
    return u.toString();
  }
  var fetcherOptions = { url: absolute(settings.endpoint, false) };
  if (settings.subscriptionEndpoint) {
    fetcherOptions.subscriptionUrl = absolute(settings.subscriptionEndpoint, true);
  }
  var fetcher = GraphiQL.createFetcher(fetcherOptions);
  var root = ReactDOM.createRoot(document.getElementById('graphiql'));
  root.render(
    React.createElement(GraphiQL, {
      fetcher: fetcher,
      defaultQuery: settings.defaultQuery,
      defaultHeaders: settings.defaultHeaders,
      isHeadersEditorEnabled: true,
      shouldPersistHeaders: false,
      defaultEditorToolsVisibility: 'headers'
    })
  );
})();
`;

const PAGE_CSS = `html, body { height: 100%; margin: 0; overflow: hidden; }
#graphiql { height: 100vh; }
`;

/** Content-Security-Policy the page works under (GraphiQL/CodeMirror set inline style attributes). */
const GRAPHIQL_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "font-src 'self' data:",
  "connect-src 'self' ws: wss:",
  "frame-ancestors 'none'",
  "base-uri 'none'",
  "form-action 'none'",
].join('; ');

/** Headers to send with `graphiqlHtml()`. */
export const GRAPHIQL_HTML_HEADERS: Readonly<Record<string, string>> = {
  'content-type': 'text/html; charset=utf-8',
  'cache-control': 'no-store',
  'content-security-policy': GRAPHIQL_CSP,
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
};

function packageDir(name: string): string {
  return dirname(require.resolve(`${name}/package.json`));
}

const ASSET_PACKAGES = ['graphiql', 'react', 'react-dom'];

/** Whether the packages the assets come from are installed (development dependencies: not in a production install). */
export function graphiqlInstalled(): boolean {
  try {
    for (const name of ASSET_PACKAGES) packageDir(name);
    return true;
  } catch {
    return false;
  }
}

function makeAsset(body: Buffer, contentType: string): Asset {
  const hash = createHash('sha256').update(body).digest('base64url').slice(0, 16);
  return { body, gzip: null, etag: `"${hash}"`, contentType };
}

let cachedAssets: Map<string, Asset> | null = null;

/** Loads (once) every served file; throws at registration when a package file is missing. */
function loadAssets(): Map<string, Asset> {
  if (cachedAssets) return cachedAssets;
  const graphiql = packageDir('graphiql');
  const react = packageDir('react');
  const reactDom = packageDir('react-dom');
  const files: [string, string, string][] = [
    ['graphiql.min.js', join(graphiql, 'graphiql.min.js'), JS],
    ['graphiql.min.css', join(graphiql, 'graphiql.min.css'), CSS],
    ['react.production.min.js', join(react, 'umd', 'react.production.min.js'), JS],
    ['react-dom.production.min.js', join(reactDom, 'umd', 'react-dom.production.min.js'), JS],
  ];
  const assets = new Map<string, Asset>();
  for (const [name, path, type] of files) {
    let body = readFileSync(path);
    // The bundle points at a source map that the package does not ship (index.umd.js.map); drop the
    // reference so browsers' devtools do not request a file that cannot exist.
    if (name === 'graphiql.min.js') body = Buffer.from(body.toString('utf8').replace(/\n?\/\/# sourceMappingURL=\S+\s*$/, '\n'));
    assets.set(name, makeAsset(body, type));
  }
  assets.set('graphiql-init.js', makeAsset(Buffer.from(INIT_JS), JS));
  assets.set('graphiql-page.css', makeAsset(Buffer.from(PAGE_CSS), CSS));
  cachedAssets = assets;
  return assets;
}

/** `?v=` token of an asset, so a new package version changes the URL. */
function assetUrl(name: string): string {
  const asset = loadAssets().get(name);
  if (!asset) throw new Error(`unknown GraphiQL asset ${name}`);
  return `${GRAPHIQL_ASSETS_PREFIX}${name}?v=${asset.etag.slice(1, -1)}`;
}

function acceptsGzip(request: FastifyRequest): boolean {
  const ae = request.headers['accept-encoding'];
  if (typeof ae !== 'string') return false;
  return ae.split(',').some((part) => {
    const [coding, ...params] = part.trim().split(';');
    if (coding.trim().toLowerCase() !== 'gzip') return false;
    const q = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
    return q === undefined || Number(q.slice(2)) > 0;
  });
}

function sendAsset(request: FastifyRequest, reply: FastifyReply, asset: Asset): FastifyReply {
  reply
    .header('content-type', asset.contentType)
    .header('cache-control', CACHE_CONTROL)
    .header('etag', asset.etag)
    .header('x-content-type-options', 'nosniff')
    .header('vary', 'accept-encoding');
  const inm = request.headers['if-none-match'];
  if (typeof inm === 'string' && inm.split(',').some((t) => t.trim().replace(/^W\//, '') === asset.etag)) {
    return reply.code(304).send();
  }
  if (acceptsGzip(request) && asset.body.length > 1024) {
    asset.gzip ??= gzipSync(asset.body, { level: 6 });
    return reply.header('content-encoding', 'gzip').send(asset.gzip);
  }
  return reply.send(asset.body);
}

/** Serves GraphiQL's static files under `/graphiql/assets/*` (GET and HEAD). */
export const graphiqlPlugin: FastifyPluginAsync = async (app) => {
  const assets = loadAssets();
  app.get<{ Params: { name: string } }>(`${GRAPHIQL_ASSETS_PREFIX}:name`, async (request, reply) => {
    const asset = assets.get(request.params.name);
    if (!asset) {
      return reply.code(404).header('content-type', 'text/plain; charset=utf-8').send('not found\n');
    }
    return sendAsset(request, reply, asset);
  });
};

interface GraphiqlPageOptions {
  /** GraphQL over HTTP endpoint, absolute or relative to the page (e.g. `/graphql`). */
  endpoint: string;
  /** graphql-ws endpoint; `http(s)`/relative URLs become `ws(s)` in the browser. Omit for HTTP only. */
  subscriptionEndpoint?: string;
  /** Initial text of the query editor. */
  defaultQuery?: string;
  /** Initial text of the headers editor (JSON), e.g. with a development token. */
  defaultHeaders?: string;
  /** Page title. */
  title?: string;
}

const DEFAULT_QUERY = `# remittance-bff GraphiQL
#
# Paste a token in the Headers tab below, e.g.
#   { "authorization": "Bearer <jwt from \`npm run token -- --sub alice --role customer\`>" }
# The same headers are sent as the graphql-ws connection_init payload for subscriptions.

query Viewer {
  viewer {
    id
    role
  }
}
`;

function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** JSON safe to embed in a <script> element (no `</script>`, no `<!--`, no U+2028/9 surprises). */
function scriptJson(value: unknown): string {
  return JSON.stringify(value)
    .replace(/</g, '\\u003c')
    .replace(/>/g, '\\u003e')
    .replace(/&/g, '\\u0026')
    .replace(/\u2028/g, '\\u2028')
    .replace(/\u2029/g, '\\u2029');
}

/** The GraphiQL page. Send it with `GRAPHIQL_HTML_HEADERS`. */
export function graphiqlHtml(opts: GraphiqlPageOptions): string {
  const settings = {
    endpoint: opts.endpoint,
    subscriptionEndpoint: opts.subscriptionEndpoint ?? null,
    defaultQuery: opts.defaultQuery ?? DEFAULT_QUERY,
    // Empty by default (anonymous requests): a placeholder "Bearer " would be sent as an invalid token.
    defaultHeaders: opts.defaultHeaders ?? '',
  };
  const title = escapeHtml(opts.title ?? 'remittance-bff · GraphiQL');
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex">
<link rel="icon" href="data:,">
<title>${title}</title>
<link rel="stylesheet" href="${assetUrl('graphiql.min.css')}">
<link rel="stylesheet" href="${assetUrl('graphiql-page.css')}">
</head>
<body>
<div id="graphiql">Loading GraphiQL…</div>
<script id="graphiql-settings" type="application/json">${scriptJson(settings)}</script>
<script src="${assetUrl('react.production.min.js')}"></script>
<script src="${assetUrl('react-dom.production.min.js')}"></script>
<script src="${assetUrl('graphiql.min.js')}"></script>
<script src="${assetUrl('graphiql-init.js')}"></script>
</body>
</html>
`;
}

/**
 * True when the `Accept` header prefers HTML over the GraphQL response types, as a browser's
 * navigation does (`text/html,…,*\/*;q=0.8`). `*\/*` alone (curl), `application/json`, or a tie → false.
 */
export function prefersHtml(accept: string | undefined): boolean {
  if (!accept) return false;
  let html = 0;
  let json = 0;
  for (const part of accept.split(',')) {
    const [rawType, ...params] = part.trim().split(';');
    const type = rawType.trim().toLowerCase();
    const qParam = params.map((p) => p.trim().toLowerCase()).find((p) => p.startsWith('q='));
    const q = qParam === undefined ? 1 : Number(qParam.slice(2));
    if (!Number.isFinite(q)) continue;
    if (type === 'text/html') html = Math.max(html, q);
    else if (type === 'application/json' || type === 'application/graphql-response+json') json = Math.max(json, q);
  }
  return html > json;
}
