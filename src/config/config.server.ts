import { z } from 'zod';
import { configDocs, doc, int, nonEmpty, httpUrl, bool, trustedProxyEntry, type EnvOf } from './config.fields';

/** The API process: environment, listener, proxies, HTTP and websocket bounds. */
export const serverFields = {
  NODE_ENV: z
    .enum(['development', 'test', 'production'])
    .default('development')
    .register(
      configDocs,
      doc(
        'server',
        '`development`, `test` or `production`. `production` disables introspection, GraphiQL, the sandbox and every development default, and refuses to start without what it needs (see docs/security.md).',
        { summary: '`production`: no introspection, GraphiQL, sandbox or development default; refuses to start without what it needs' },
      ),
    ),
  PORT: int(0, 65535)
    .default(4000)
    .register(
      configDocs,
      doc('server', 'Port of the API (GraphQL over HTTP and websocket, webhooks, health); `0` = a free port.', {
        summary: 'port of the API (HTTP, websocket, webhooks, health)',
      }),
    ),
  HOST: nonEmpty.default('0.0.0.0').register(configDocs, doc('server', 'Address the API listens on.')),
  LOG_LEVEL: z
    .enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'])
    .default('info')
    .register(
      configDocs,
      doc(
        'server',
        'pino level: `fatal`, `error`, `warn`, `info`, `debug`, `trace` or `silent` (`npm run db:migrate`: `warn` unless set).',
      ),
    ),
  DATA_DIR: nonEmpty
    .default('./.data')
    .register(
      configDocs,
      doc('server', 'PGlite data (when `DATABASE_URL` is unset), the development key pair and the generated webhook-secret key.'),
    ),
  PUBLIC_URL: httpUrl
    .optional()
    .register(
      configDocs,
      doc(
        'server',
        "Where the platform reaches `POST /webhooks/remittances`; the service registers its signed subscription there at start. Required in production, `https://` (http only on a loopback address). With the built-in sandbox it defaults to the service's own address.",
        { summary: 'where the platform delivers webhooks (`/webhooks/remittances`); required in production' },
      ),
    ),
  TRUST_PROXY: z
    .string()
    .trim()
    .default('')
    .transform((v) =>
      v
        .split(',')
        .map((p) => p.trim())
        .filter(Boolean),
    )
    .refine(
      (list) => list.every((p) => trustedProxyEntry(p)),
      'must be a comma-separated list of proxy IP addresses or CIDR ranges, e.g. 10.0.0.0/8,fd00::/8',
    )
    .register(
      configDocs,
      doc(
        'server',
        'Comma-separated IP addresses / CIDR ranges of the proxies in front of the service (for example `10.0.0.0/8,fd00::/8`). `X-Forwarded-For` is believed only from these peers (HTTP and websocket), for the client IP sent upstream and the per-IP budget; otherwise the TCP peer is the client. A hop count or `true` is refused. Set it behind a load balancer.',
        { default: '— (nobody)' },
      ),
    ),
  GRAPHIQL: bool.optional().register(
    configDocs,
    doc('server', '`true`/`false`: serve GraphiQL at `/graphql` to browsers. Never in production, whatever it says.', {
      default: 'on unless production',
    }),
  ),
  SHUTDOWN_TIMEOUT_MS: int(100, 60_000).default(8_000).register(configDocs, doc('server', 'Hard limit of the graceful shutdown.')),
  HTTP_HEADERS_TIMEOUT_MS: int(100, 300_000)
    .default(10_000)
    .register(
      configDocs,
      doc(
        'server',
        "A request (or websocket upgrade) whose headers have not all arrived within this is answered 408 and its connection closed (Node's `headersTimeout`).",
      ),
    ),
  HTTP_REQUEST_TIMEOUT_MS: int(100, 600_000)
    .default(30_000)
    .register(
      configDocs,
      doc(
        'server',
        "A request whose headers and body have not all arrived within this is answered 408 and its connection closed (Node's `requestTimeout`): a body trickled a byte at a time is cut off. Checked every quarter of the smaller of the two timeouts.",
      ),
    ),
  HTTP_KEEP_ALIVE_TIMEOUT_MS: int(100, 600_000)
    .default(61_000)
    .register(
      configDocs,
      doc(
        'server',
        'An idle keep-alive connection is closed after this. The default outlasts the 60 s idle timeout common to load balancers, so they close first.',
      ),
    ),
  HTTP_MAX_CONNECTIONS_PER_CLIENT: int(1, 1_000_000)
    .default(256)
    .register(
      configDocs,
      doc(
        'server',
        'Connections (HTTP and websocket) open at once from one client address on this instance (an IPv6 address counts by its `CLIENT_IPV6_PREFIX`); one more is closed at once. Peers in `TRUST_PROXY` are not counted: a proxy carries many clients.',
      ),
    ),
  CLIENT_IPV6_PREFIX: int(32, 128)
    .default(64)
    .register(
      configDocs,
      doc(
        'server',
        'An IPv6 client is one network of this prefix length for the per-address budgets and connection cap (one subscriber usually holds a whole /64); IPv4-mapped IPv6 addresses count as IPv4.',
      ),
    ),
  WS_CONNECTION_INIT_TIMEOUT_MS: int(100, 60_000)
    .default(3_000)
    .register(configDocs, doc('server', 'A websocket without `connection_init` within this is closed with 4408.')),
};

export interface ServerConfig {
  env: EnvOf<typeof serverFields>['NODE_ENV'];
  production: boolean;
  port: number;
  host: string;
  logLevel: EnvOf<typeof serverFields>['LOG_LEVEL'];
  dataDir: string;
  publicUrl: string | null;
  /** Proxies (addresses/CIDRs) whose X-Forwarded-For is believed for the client IP; empty = the TCP peer is the client. */
  trustProxy: string[];
  graphiql: boolean;
  introspection: boolean;
  shutdownTimeoutMs: number;
  wsConnectionInitTimeoutMs: number;
  /** The HTTP edge's time and connection bounds. */
  http: { headersTimeoutMs: number; requestTimeoutMs: number; keepAliveTimeoutMs: number; maxConnectionsPerClient: number };
  /** IPv6 clients are keyed by their network of this many bits (budgets, connection cap). */
  clientIpv6Prefix: number;
}

export function serverConfig(e: EnvOf<typeof serverFields>): ServerConfig {
  const production = e.NODE_ENV === 'production';
  return {
    env: e.NODE_ENV,
    production,
    port: e.PORT,
    host: e.HOST,
    logLevel: e.LOG_LEVEL,
    dataDir: e.DATA_DIR,
    publicUrl: e.PUBLIC_URL ?? null,
    trustProxy: e.TRUST_PROXY,
    // Never in production, whatever GRAPHIQL says.
    graphiql: !production && (e.GRAPHIQL ?? true),
    introspection: !production,
    shutdownTimeoutMs: e.SHUTDOWN_TIMEOUT_MS,
    wsConnectionInitTimeoutMs: e.WS_CONNECTION_INIT_TIMEOUT_MS,
    http: {
      headersTimeoutMs: Math.min(e.HTTP_HEADERS_TIMEOUT_MS, e.HTTP_REQUEST_TIMEOUT_MS),
      requestTimeoutMs: e.HTTP_REQUEST_TIMEOUT_MS,
      keepAliveTimeoutMs: e.HTTP_KEEP_ALIVE_TIMEOUT_MS,
      maxConnectionsPerClient: e.HTTP_MAX_CONNECTIONS_PER_CLIENT,
    },
    clientIpv6Prefix: e.CLIENT_IPV6_PREFIX,
  };
}
