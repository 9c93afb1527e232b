import { resolve } from 'node:path';
import { z } from 'zod';
import { parseCorridors, type CorridorRule } from './shared/money';
import { FEE_ROUNDINGS, parseDeliveryTimes, parseFees, type Pricing } from './shared/pricing';
import { trustedProxies } from './shared/trust-proxy';
import { DEFAULT_PREPARED_STATEMENTS } from './db/statement-names';
import { HOST_NAME, type ReturnUrlPolicy } from './shared/return-url';

/** The manifest `npm run codegen` writes for the app's operations (schema/app), from src/ or dist/ alike. */
const DEFAULT_TRUSTED_DOCUMENTS_MANIFEST = resolve(__dirname, '..', 'schema', 'app', 'persisted-documents.json');

/**
 * Every setting comes from the environment, parsed and validated once at start.
 * `loadConfig` throws a ConfigError listing every bad variable and why; `main.ts` prints it and exits 1.
 * Each variable is documented where it is defined (`configDocs` below); docs/configuration.md and .env.example
 * are generated from that (`npm run docs:config`).
 */
export class ConfigError extends Error {
  override readonly name = 'ConfigError';
  constructor(readonly problems: { variable: string; problem: string }[]) {
    super(
      `Invalid configuration (${problems.length} problem${problems.length === 1 ? '' : 's'}):\n` +
        problems.map((p) => `  - ${p.variable}: ${p.problem}`).join('\n'),
    );
  }
}

const int = (min: number, max: number) =>
  z
    .string()
    .trim()
    .regex(/^-?\d+$/, 'must be an integer')
    .transform(Number)
    .pipe(z.number().int().min(min, `must be ≥ ${min}`).max(max, `must be ≤ ${max}`));
const url = (protocols: string[]) =>
  z
    .string()
    .trim()
    .refine(
      (v) => {
        try {
          return protocols.includes(new URL(v).protocol);
        } catch {
          return false;
        }
      },
      `must be a URL (${protocols.map((p) => p.replace(':', '')).join(', ')})`,
    );
const trustedProxyEntry = (p: string): boolean => {
  try {
    trustedProxies([p]);
    return true;
  } catch {
    return false;
  }
};
const nonEmpty = z.string().trim().min(1, 'must not be empty');
const httpUrl = url(['http:', 'https:']);
/** The sandbox's corridor (USD → BRL) from 1 to 10,000 USD; any other corridor up to 10,000 of its source currency. */
const DEFAULT_CORRIDORS = 'USD>BRL=1..10000,*=..10000';
/** A visible fee on the sandbox's corridor (cards cost more than bank accounts); none elsewhere. */
const DEFAULT_FEES = 'USD>BRL:CARD=2.99+1%,USD>BRL:BANK_ACCOUNT=0.99,*=0';
/** PIX and wallet payouts are near-instant; anything else: within three days. */
const DEFAULT_DELIVERY_TIMES = 'USD>BRL:PIX=..1h,USD>BRL:WALLET=..10m,*=1h..3d';
const bool = z
  .string()
  .trim()
  .toLowerCase()
  .refine((v) => ['1', '0', 'true', 'false', 'yes', 'no'].includes(v), 'must be true or false')
  .transform((v) => ['1', 'true', 'yes'].includes(v));

/**
 * The configuration reference: each variable's section and description, registered next to its definition below.
 * `npm run docs:config` renders docs/configuration.md, the README's summary table and .env.example from it (and
 * from the sandbox's own variables, packages/sandbox/src/sandbox.config.ts); test/unit/config-docs.test.ts fails on drift.
 */
export interface VariableDoc {
  group: ConfigGroup;
  /** Markdown (code spans; a `|` is escaped when rendered into a table). */
  description: string;
  /** The default as the reference shows it, when the schema's own default is absent or not the whole story. */
  default?: string;
  /** The value .env.example shows (otherwise the schema's default, or empty). */
  example?: string;
  /** A short line for the README's table; only variables with one are listed there. */
  summary?: string;
}

/** Sections of the reference, in order. */
export const CONFIG_GROUPS = {
  server: 'Server',
  database: 'Database and pub/sub',
  auth: 'Caller authentication',
  upstream: 'Upstream APIs',
  webhooks: 'Webhooks from the remittances platform',
  saga: 'Transfer saga',
  transfers: 'Transfers, cards and banks',
  graphql: 'GraphQL limits, budgets and execution',
  observability: 'Metrics and tracing',
  sandbox: 'Built-in sandbox',
} as const;
export type ConfigGroup = keyof typeof CONFIG_GROUPS;

/** The registry the schema's fields are documented in (metadata only: parsing is unaffected). */
const configDocs = z.registry<VariableDoc>();
const doc = (group: ConfigGroup, description: string, extra: Omit<VariableDoc, 'group' | 'description'> = {}): VariableDoc => ({
  group,
  description,
  ...extra,
});

const schema = z.object({
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
  DATABASE_URL: z
    .string()
    .trim()
    .refine(
      (v) => v === 'memory://' || /^postgres(ql)?:\/\//.test(v) || v.startsWith('file:'),
      'must be memory://, file:<dir> (PGlite) or postgres://…',
    )
    .optional()
    .register(
      configDocs,
      doc(
        'database',
        'The database. Unset: PGlite in `DATA_DIR/pglite`; `memory://`: in-memory PGlite; `file:<dir>`: PGlite there; `postgres://…`: PostgreSQL (required in production).',
        { summary: 'unset: PGlite in `./.data`; `memory://`, `file:<dir>` (PGlite) or `postgres://…`' },
      ),
    ),
  DATABASE_POOL_MAX: int(1, 200)
    .default(20)
    .register(
      configDocs,
      doc('database', 'PostgreSQL connection pool bound (per instance: the API, the saga worker and the webhook inbox share it).'),
    ),
  DATABASE_PREPARED_STATEMENTS: int(0, 10_000)
    .default(DEFAULT_PREPARED_STATEMENTS)
    .register(
      configDocs,
      doc(
        'database',
        'PostgreSQL: up to N distinct SQL statement texts, each from its second use, are prepared once per connection and reused (parsed and planned once, not at every call); others are sent unprepared. `0`: none — e.g. behind PgBouncer in transaction mode older than 1.21 or with `max_prepared_statements` below N. Rolling upgrades, memory and plans: docs/operations.md.',
      ),
    ),
  REDIS_URL: url(['redis:', 'rediss:'])
    .optional()
    .register(
      configDocs,
      doc(
        'database',
        'Redis for pub/sub fan-out across instances and shared rate budgets and APQ. Unset: in-process pub/sub and per-instance budgets.',
        { summary: 'unset: in-process pub/sub; set: Redis fan-out and budgets shared across instances' },
      ),
    ),
  SANDBOX_PORT: int(0, 65535)
    .default(4010)
    .register(configDocs, doc('sandbox', 'Port of the built-in sandbox (and of `npm run sandbox`); `0` = a free port.')),
  SANDBOX_HOST: nonEmpty.default('127.0.0.1').register(configDocs, doc('sandbox', 'Address the sandbox listens on.')),
  GATEWAY_BASE_URL: httpUrl.optional().register(
    configDocs,
    doc(
      'upstream',
      'Payments gateway base URL. The three upstream base URLs go together: all unset → the built-in sandbox runs and they point at it; set one, set all. Production: `https://` (http only on a loopback address).',
      {
        summary: 'payments gateway; with `REMITTANCES_BASE_URL` and `VERIFICATION_BASE_URL` all three or none (none: the built-in sandbox)',
      },
    ),
  ),
  GATEWAY_CLIENT_ID: nonEmpty
    .optional()
    .register(
      configDocs,
      doc(
        'upstream',
        "Gateway client id. Upstream credentials default to the sandbox's values only while the upstreams are a sandbox (the built-in one, or outside production one on a loopback address); anywhere else, and always in production, each must be set. `npm run sandbox` accepts this id.",
      ),
    ),
  GATEWAY_CLIENT_SECRET: nonEmpty
    .optional()
    .register(
      configDocs,
      doc('upstream', 'Gateway client secret (same rule as `GATEWAY_CLIENT_ID`; `npm run sandbox` accepts this secret).'),
    ),
  GATEWAY_TOKEN_REFRESH_MARGIN_S: int(0, 3600)
    .default(60)
    .register(configDocs, doc('upstream', 'The cached gateway token is refreshed this long before it expires.')),
  REMITTANCES_BASE_URL: httpUrl.optional().register(configDocs, doc('upstream', 'Remittances platform base URL (see `GATEWAY_BASE_URL`).')),
  REMITTANCES_TENANT_ID: nonEmpty
    .optional()
    .register(
      configDocs,
      doc('upstream', 'Platform tenant (same rule as `GATEWAY_CLIENT_ID`); every webhook event must name this tenant.'),
    ),
  REMITTANCES_API_KEY: nonEmpty.optional().register(configDocs, doc('upstream', 'Platform `x-api-key` (same rule).')),
  REMITTANCES_AGENT_ID: nonEmpty.optional().register(configDocs, doc('upstream', 'Platform agent id, for agent endpoints (same rule).')),
  REMITTANCES_AGENT_API_KEY: nonEmpty.optional().register(configDocs, doc('upstream', 'Platform agent key (same rule).')),
  REMITTANCES_CLIENT_CERT: nonEmpty
    .optional()
    .register(
      configDocs,
      doc('upstream', 'PEM path of the client certificate for mutual TLS to the platform (goes with `REMITTANCES_CLIENT_KEY`).'),
    ),
  REMITTANCES_CLIENT_KEY: nonEmpty.optional().register(configDocs, doc('upstream', 'PEM path of the mutual-TLS client key.')),
  REMITTANCES_CLIENT_CA: nonEmpty
    .optional()
    .register(configDocs, doc('upstream', "PEM path of a CA for the platform's server certificate (optional).")),
  VERIFICATION_BASE_URL: httpUrl
    .optional()
    .register(configDocs, doc('upstream', 'Verification-session API base URL (see `GATEWAY_BASE_URL`).')),
  VERIFICATION_CLIENT_ID: nonEmpty.optional().register(configDocs, doc('upstream', 'Verification API client id (same rule).')),
  VERIFICATION_CLIENT_SECRET: nonEmpty.optional().register(configDocs, doc('upstream', 'Verification API client secret (same rule).')),
  VERIFICATION_AUTH_METHOD: z
    .enum(['body', 'basic'])
    .default('body')
    .register(configDocs, doc('upstream', 'How the verification client credentials are sent: `body` (form body) or `basic` (HTTP Basic).')),
  VERIFICATION_TOKEN_REFRESH_MARGIN_S: int(0, 3600)
    .default(60)
    .register(configDocs, doc('upstream', 'Cached verification tokens (one per scope) are refreshed this long before they expire.')),
  UPSTREAM_MAX_CONNECTIONS: int(1, 1024)
    .default(32)
    .register(configDocs, doc('upstream', 'Keep-alive connections per upstream origin (undici pool).')),
  UPSTREAM_CONNECT_TIMEOUT_MS: int(1, 120_000).default(2_000).register(configDocs, doc('upstream', 'Connect timeout of upstream calls.')),
  UPSTREAM_READ_TIMEOUT_MS: int(1, 300_000)
    .default(5_000)
    .register(configDocs, doc('upstream', 'Timeout of reads and ordinary writes (quotes, checks, directories).')),
  UPSTREAM_PAYMENT_TIMEOUT_MS: int(1, 300_000)
    .default(15_000)
    .register(configDocs, doc('upstream', 'Timeout of payment, capture and void.')),
  UPSTREAM_RETRY_MAX_ATTEMPTS: int(1, 10)
    .default(3)
    .register(
      configDocs,
      doc('upstream', 'Attempts of a retryable upstream call (reads, quotes, writes with a stable payment key), first one included.'),
    ),
  UPSTREAM_RETRY_BASE_DELAY_MS: int(0, 60_000)
    .default(100)
    .register(
      configDocs,
      doc('upstream', 'Base of the exponential backoff with full jitter between attempts (`Retry-After` is honoured).'),
    ),
  UPSTREAM_RETRY_MAX_TOTAL_MS: int(0, 600_000)
    .default(10_000)
    .register(configDocs, doc('upstream', 'Retries of one call stop once this much time has passed since its first attempt.')),
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
  AUTH_JWKS_URL: httpUrl
    .optional()
    .register(
      configDocs,
      doc(
        'auth',
        'JWKS URL to verify caller JWTs with (or `AUTH_PUBLIC_KEY`, not both); neither: a development key pair in `DATA_DIR` (never in production). Production: `https://`.',
        { summary: 'verify caller JWTs (or `AUTH_PUBLIC_KEY`); neither: a development key pair' },
      ),
    ),
  AUTH_PUBLIC_KEY: nonEmpty
    .optional()
    .register(
      configDocs,
      doc(
        'auth',
        'PEM public key (text with `\\n` escaped, or a path to a PEM file) to verify caller JWTs with, instead of `AUTH_JWKS_URL`.',
      ),
    ),
  AUTH_ISSUER: nonEmpty
    .optional()
    .register(configDocs, doc('auth', 'Expected `iss` of every token; required in production (without it any or no `iss` would pass).')),
  AUTH_AUDIENCE: nonEmpty
    .optional()
    .register(configDocs, doc('auth', 'Expected `aud` of every token; required in production (without it any or no `aud` would pass).')),
  AUTH_MAX_TOKEN_LIFETIME_S: int(60, 31 * 86_400)
    .default(86_400)
    .register(
      configDocs,
      doc(
        'auth',
        "The longest a token may be valid for (`exp` − `iat`; `exp` − `nbf` or `exp` − now without `iat`): a longer-lived token is refused (`UNAUTHENTICATED`), as is one whose `iat` is in the future beyond `AUTH_CLOCK_SKEW_S`. Keep it above your identity provider's access-token lifetime.",
      ),
    ),
  AUTH_CLOCK_SKEW_S: int(0, 300)
    .default(30)
    .register(configDocs, doc('auth', 'Clock skew allowed between the identity provider and this service on `exp`, `nbf` and `iat`.')),
  AUTH_TOKEN_CACHE_SIZE: int(0, 1_000_000)
    .default(10_000)
    .register(
      configDocs,
      doc(
        'auth',
        "Successful token verifications kept for reuse (LRU by the token's SHA-256; the token itself is never kept); failures are never cached; `0` = verify every time.",
      ),
    ),
  AUTH_TOKEN_CACHE_MAX_AGE_S: int(1, 3_600)
    .default(60)
    .register(
      configDocs,
      doc(
        'auth',
        "A cached verification is reused at most this long and never past the token's `exp`/`nbf` (judged by the injected clock). A key removed from the JWKS is honoured for already-cached tokens up to this age.",
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
  // Transfer saga
  SAGA_WORKER_ENABLED: bool
    .optional()
    .register(
      configDocs,
      doc('saga', 'Run the saga worker in this instance (any number of instances may).', { default: '`true`', example: 'true' }),
    ),
  SAGA_POLL_INTERVAL_MS: int(10, 600_000)
    .default(1_000)
    .register(configDocs, doc('saga', 'How often the worker looks for due transfers (it is also nudged by mutations and webhooks).')),
  SAGA_BATCH_SIZE: int(1, 1_000).default(32).register(configDocs, doc('saga', 'Transfers claimed per round (`FOR UPDATE SKIP LOCKED`).')),
  SAGA_CONCURRENCY: int(1, 64)
    .default(32)
    .register(
      configDocs,
      doc(
        'saga',
        'Claimed transfers advanced at once per instance, each under its own lease. A transfer mostly waits on an upstream call and takes a database connection only for each statement, so this may exceed `DATABASE_POOL_MAX`.',
      ),
    ),
  SAGA_LEASE_MS: int(500, 3_600_000)
    .default(60_000)
    .register(
      configDocs,
      doc(
        'saga',
        "A claimed transfer's lease, renewed every third of it while the transfer is advanced; a crashed instance's work is taken over after it.",
      ),
    ),
  SAGA_RETRY_BASE_MS: int(10, 600_000)
    .default(1_000)
    .register(configDocs, doc('saga', 'Retry delay after a transient upstream failure: this × 2ⁿ, up to `SAGA_RETRY_MAX_MS`.')),
  SAGA_RETRY_MAX_MS: int(10, 3_600_000).default(60_000).register(configDocs, doc('saga', 'Longest retry delay of the saga.')),
  SAGA_RECONCILE_AFTER_MS: int(100, 86_400_000)
    .default(120_000)
    .register(
      configDocs,
      doc(
        'saga',
        "A transfer waiting on the platform (compliance, payout) with no news this long reads the transaction's state from the platform (a webhook may have been lost); then again after as long as it has been quiet, at most hourly.",
      ),
    ),
  CAPTURE_WINDOW_S: int(60, 7 * 24 * 3600 - 3600)
    .default(6 * 24 * 3600)
    .register(
      configDocs,
      doc('saga', "An authorization not captured within this (6 days, under the gateway's 7-day auto-cancel) is voided → `EXPIRED`."),
    ),
  TRANSFER_CANCEL_WINDOW_S: int(0, 7 * 24 * 3600)
    .default(30 * 60)
    .register(
      configDocs,
      doc(
        'transfers',
        'How long after its creation the owner may cancel a transfer (`cancelTransfer`; `cancellableUntil`), as long as the payout has not completed: before the capture the authorization is released, after it the platform is asked to stop the payout and the money is refunded. The default is the 30 minutes the US remittance rule gives a sender; `0`: never.',
      ),
    ),
  IDEMPOTENCY_TTL_HOURS: int(24, 24 * 90)
    .default(48)
    .register(configDocs, doc('saga', 'Idempotency records are kept this long (at least 24).')),
  IDEMPOTENCY_WAIT_MS: int(0, 120_000)
    .default(10_000)
    .register(
      configDocs,
      doc('saga', 'A concurrent duplicate waits this long for the first request, then gets `IDEMPOTENCY_IN_PROGRESS`.'),
    ),
  MUTATION_LEASE_WAIT_MS: int(0, 120_000)
    .default(15_000)
    .register(configDocs, doc('saga', 'How long a capture/void/resume waits for a transfer busy in the worker before `INVALID_STATE`.')),
  SAGA_CRASH_AT: z
    .string()
    .trim()
    .regex(
      /^(check|authorize|capture|void|cancel|refund):(before|after)$/,
      'must be <check|authorize|capture|void|cancel|refund>:<before|after>',
    )
    .optional()
    .register(
      configDocs,
      doc(
        'saga',
        'Test only, refused in production: `<check|authorize|capture|void|cancel|refund>:<before|after>` makes the process SIGKILL itself there.',
      ),
    ),
  // Webhooks from the remittances platform
  WEBHOOK_SECRET_ENCRYPTION_KEY: z
    .string()
    .trim()
    .refine(
      (v) => /^[A-Za-z0-9+/_-]{42,44}={0,2}$/.test(v) && Buffer.from(v.replace(/-/g, '+').replace(/_/g, '/'), 'base64').length === 32,
      'must be base64 of 32 bytes (openssl rand -base64 32)',
    )
    .optional()
    .register(
      configDocs,
      doc(
        'webhooks',
        'Base64 of 32 bytes (`openssl rand -base64 32`, the same on every replica): the AES-256-GCM key of webhook signing secrets at rest. Required in production; otherwise generated into `DATA_DIR`.',
        { summary: 'key of the webhook signing secrets at rest; required in production' },
      ),
    ),
  WEBHOOK_TOLERANCE_S: int(1, 86_400)
    .default(300)
    .register(configDocs, doc('webhooks', 'Signature timestamps further than this from our clock, past or future, are refused.')),
  WEBHOOK_POLL_INTERVAL_MS: int(10, 600_000)
    .default(1_000)
    .register(configDocs, doc('webhooks', "The inbox processor's poll interval (it is also nudged after every delivery).")),
  WEBHOOK_SECRET_CACHE_MS: int(0, 600_000)
    .default(5_000)
    .register(configDocs, doc('webhooks', 'Signing secrets are cached per instance this long (re-read at once when a signature fails).')),
  WEBHOOK_MAX_ATTEMPTS: int(1, 1_000)
    .default(12)
    .register(
      configDocs,
      doc(
        'webhooks',
        'Failed attempts after which an inbox event is dead-lettered (backoff 0.5 s doubling, at most 60 s: about 5 min); its stream goes on.',
      ),
    ),
  WEBHOOK_CONCURRENCY: int(1, 64)
    .default(4)
    .register(
      configDocs,
      doc(
        'webhooks',
        'Inbox streams applied at once per instance; each holds a database connection while applying (keep well below `DATABASE_POOL_MAX`).',
      ),
    ),
  // API surface, abuse limits
  CARD_CHECK_LEGACY_ENABLED: bool
    .default(false)
    .register(
      configDocs,
      doc('transfers', "`true`: `checkCardLegacy` calls the gateway's legacy card check; `false`: it answers `FORBIDDEN`."),
    ),
  CARD_CHECK_MAX_AGE_S: int(60, 86_400)
    .default(1_800)
    .register(
      configDocs,
      doc(
        'transfers',
        'A card token funds a transfer only if the same customer checked it (`checkCard`/`checkCardLegacy`) at most this many seconds ago (60 to 86400); older: `NOT_FOUND`, check it again.',
      ),
    ),
  CARD_CHECK_REUSE_S: int(0, 3_600)
    .default(300)
    .register(
      configDocs,
      doc(
        'transfers',
        "A card transfer created at most this many seconds after the customer's `checkCard` of the same card and sender was APPROVED (without 3-D Secure) reuses that check instead of checking the card again before authorization (0 to 3600; 0: always check again). A check that asked for 3-D Secure is never reused, nor one that a later check of the card (declined, or for another holder) replaced before the transfer was written.",
      ),
    ),
  THREE_DS_RETURN_URL_HOSTS: z
    .string()
    .trim()
    .default('')
    .transform((v) =>
      v
        .split(',')
        .map((h) => h.trim().toLowerCase())
        .filter(Boolean),
    )
    .refine(
      (list) => list.every((h) => HOST_NAME.test(h)),
      'must be a comma-separated list of host names (no scheme, port, path or wildcard), e.g. app.example.com,links.example.com',
    )
    .register(
      configDocs,
      doc(
        'transfers',
        "Comma-separated host names an app may name as `threeDSReturnUrl` (`createTransfer`, `checkCard`): where the card issuer's 3-D Secure page sends the browser back when the challenge is done. Accepted: `https://` on a listed host (any port); outside production also `http(s)://` on a loopback host (`localhost`, `127.0.0.1`, `[::1]`). Anything else is `BAD_USER_INPUT` before any upstream call (no open redirect). Empty: in production every return URL is refused (fail closed); elsewhere only loopback ones pass.",
        { default: '— (none)', example: '' },
      ),
    ),
  BANK_CACHE_TTL_S: int(0, 86_400)
    .default(300)
    .register(configDocs, doc('transfers', 'Bank look-ups are reused this long (per instance).')),
  BANK_CACHE_MAX_ENTRIES: int(1, 1_000_000).default(1000).register(configDocs, doc('transfers', 'At most this many banks cached.')),
  GRAPHQL_BODY_LIMIT_BYTES: int(1024, 10 * 1024 * 1024)
    .default(256 * 1024)
    .register(configDocs, doc('graphql', 'Larger request bodies → 413.')),
  GRAPHQL_MAX_DEPTH: int(1, 100)
    .default(15)
    .register(
      configDocs,
      doc(
        'graphql',
        'Nesting depth, introspection included (`QUERY_TOO_DEEP`); the query limits are checked before anything executes (docs/api.md).',
      ),
    ),
  GRAPHQL_MAX_ALIASES: int(0, 1000).default(15).register(configDocs, doc('graphql', 'Aliases per document (`TOO_MANY_ALIASES`).')),
  GRAPHQL_MAX_COST: int(1, 10_000_000)
    .default(200_000)
    .register(
      configDocs,
      doc(
        'graphql',
        'Cost per operation (`QUERY_TOO_COMPLEX`): a field 1, a connection 1 + `first` × its selection (cost model: docs/api.md).',
      ),
    ),
  GRAPHQL_MAX_TOKENS: int(10, 1_000_000)
    .default(2000)
    .register(configDocs, doc('graphql', 'Parser tokens per document (`TOO_MANY_TOKENS`).')),
  GRAPHQL_MAX_DIRECTIVES: int(0, 1000).default(50).register(configDocs, doc('graphql', 'Directives per document (`TOO_MANY_DIRECTIVES`).')),
  RATE_LIMIT_MUTATIONS_PER_MINUTE: int(1, 1_000_000)
    .default(60)
    .register(
      configDocs,
      doc('graphql', 'Per caller and mutation field, HTTP and websocket together (Redis-backed when `REDIS_URL` is set).'),
    ),
  RATE_LIMIT_ALIAS_LOOKUPS_PER_MINUTE: int(1, 1_000_000)
    .default(10)
    .register(configDocs, doc('graphql', 'Per caller, `resolveAlias` and `createRecipient` together (the alias directory has a quota).')),
  RATE_LIMIT_UPSTREAM_POINTS_PER_MINUTE: int(1, 1_000_000)
    .default(300)
    .register(
      configDocs,
      doc(
        'graphql',
        'Per caller, over HTTP and websocket together: each upstream-backed field of an operation (every alias and fragment use) costs a point; over the budget the whole operation is refused with `RATE_LIMITED` (HTTP 429, `retryAfterSeconds`) before any upstream call. Redis-backed when `REDIS_URL` is set.',
      ),
    ),
  RATE_LIMIT_ANONYMOUS_PER_MINUTE: int(1, 1_000_000)
    .default(300)
    .register(
      configDocs,
      doc(
        'graphql',
        'Per client IP (the peer, or the forwarded client when the peer is in `TRUST_PROXY`): GraphQL HTTP requests without a valid token and failed websocket `connection_init`s; over → 429 `RATE_LIMITED` / close 4429.',
      ),
    ),
  WS_MAX_SUBSCRIPTIONS_PER_SOCKET: int(1, 100_000)
    .default(100)
    .register(configDocs, doc('graphql', 'Operations open at once on one websocket; more → that operation gets `RATE_LIMITED`.')),
  WS_MAX_SOCKETS_PER_USER: int(1, 100_000)
    .default(20)
    .register(configDocs, doc('graphql', 'Websockets open per user on one instance; more → close 4429.')),
  APQ_TTL_S: int(0, 30 * 86_400)
    .default(86_400)
    .register(
      configDocs,
      doc('graphql', 'Automatic persisted queries: how long a registered query is kept (memory LRU, or Redis when `REDIS_URL` is set).'),
    ),
  // Trusted documents: off | allow (a documentId may replace the text) | only (nothing but the manifest runs)
  TRUSTED_DOCUMENTS: z
    .enum(['off', 'allow', 'only'])
    .default('allow')
    .register(
      configDocs,
      doc(
        'graphql',
        "`off`, `allow` or `only`. `allow` (the default): a request may name a document of the manifest by `documentId` (`sha256:<hex>`, POST body, GET query or graphql-ws payload) instead of sending its text; any text still runs. `only` (set it in production): nothing but the manifest's documents runs — by id, by their text as Apollo Client, urql or any client prints it (the same document once `__typename` fields, layout and fragment order are set aside) or by an APQ hash of such a text; anything else is refused with `PERSISTED_DOCUMENT_NOT_ALLOWED`, an unknown id is `PERSISTED_DOCUMENT_NOT_FOUND`, and a hash alone not yet seen is `PERSISTED_QUERY_NOT_FOUND` (Apollo's link then sends the text) (docs/api.md). `off`: `documentId` is not understood.",
        { summary: "`only` in production: nothing but the app's persisted documents runs" },
      ),
    ),
  TRUSTED_DOCUMENTS_MANIFEST: nonEmpty
    .default(DEFAULT_TRUSTED_DOCUMENTS_MANIFEST)
    .register(
      configDocs,
      doc(
        'graphql',
        'The manifest (`{ "sha256:<hex>": "<document text>" }`, written by `npm run codegen`); read at start when `TRUSTED_DOCUMENTS` is not `off`: missing, or an entry whose id is not the hash of its text → the service does not start.',
        { default: '`schema/app/persisted-documents.json`', example: '' },
      ),
    ),
  // Compiled execution: graphql-jit behind Apollo's gateway hook, graphql-js when off
  GRAPHQL_JIT: bool
    .default(true)
    .register(
      configDocs,
      doc(
        'graphql',
        'Execute HTTP operations with graphql-jit (compiled once per document, LRU); graphql-js runs what it cannot compile. `false`: graphql-js only.',
      ),
    ),
  // Tracing: OTLP/HTTP export when set, entirely off otherwise
  OTEL_EXPORTER_OTLP_ENDPOINT: httpUrl
    .optional()
    .register(
      configDocs,
      doc(
        'observability',
        'For example `http://otel-collector:4318`: OpenTelemetry spans (operations, root fields, upstream calls, SQL) exported over OTLP/HTTP to `<endpoint>/v1/traces`. Unset: tracing off, no SDK loaded.',
      ),
    ),
  OTEL_SERVICE_NAME: nonEmpty.default('remittance-bff').register(configDocs, doc('observability', '`service.name` of the exported spans.')),
  // Prometheus scrape endpoint: its own listener (always in production), never on the API port in production
  METRICS_PORT: int(0, 65535)
    .optional()
    .register(
      configDocs,
      doc(
        'observability',
        'Prometheus `GET /metrics` on its own listener (in production only there: 404 on the API port, and it must differ from `PORT`). Outside production, unset = `/metrics` on the API port only; `0` = a free port.',
        { default: 'production: `9464`; elsewhere unset' },
      ),
    ),
  METRICS_HOST: nonEmpty
    .default('127.0.0.1')
    .register(configDocs, doc('observability', "Address of the metrics listener: a private interface (the pod's), never a public one.")),
  // Corridor rules: least and most one transfer may send, in the source currency (createQuote, createTransfer)
  TRANSFER_CORRIDORS: z
    .string()
    .default(DEFAULT_CORRIDORS)
    .transform((v, ctx) => {
      const parsed = parseCorridors(v);
      if ('rules' in parsed) return parsed.rules;
      ctx.addIssue({
        code: 'custom',
        message: `entries not understood: ${parsed.invalid.length}; use e.g. USD>BRL=1..10000,USD>MXN/MX=5..2500,*=..10000 (amounts at most 14 integer digits)`,
      });
      return z.NEVER;
    })
    .register(
      configDocs,
      doc(
        'transfers',
        "Corridor rules: the least and the most one transfer may send, in its source currency, as `SRC>DST=MIN..MAX` entries (`SRC>DST/CC` for one destination country, `SRC>*` for a source currency, `*` the default; the most specific applies; no `MIN`: the currency's smallest unit; no `*`: `*=..10000` is added); amounts at most 14 integer digits. Read with the `corridors` / `corridor` queries; `createQuote` and `createTransfer` answer `BAD_USER_INPUT` outside them (`extensions.minAmount` / `maxAmount`), before any upstream call.",
        { default: `\`${DEFAULT_CORRIDORS}\``, example: DEFAULT_CORRIDORS },
      ),
    ),
  TRANSFER_FEES: z
    .string()
    .default(DEFAULT_FEES)
    .transform((v, ctx) => {
      const parsed = parseFees(v);
      if ('rules' in parsed) return parsed.rules;
      ctx.addIssue({
        code: 'custom',
        message: `entries not understood: ${parsed.invalid.length}; use e.g. USD>BRL:CARD=2.99+1%,USD>BRL:BANK_ACCOUNT=0.99,*=0`,
      });
      return z.NEVER;
    })
    .register(
      configDocs,
      doc(
        'transfers',
        "What the service charges per transfer, in the source currency, as `SRC>DST[/CC][:FUNDING]=FEE` entries matched like `TRANSFER_CORRIDORS` (an entry with `:CARD` or `:BANK_ACCOUNT` beats one without; a linked account is `BANK_ACCOUNT`); `FEE` is `FIXED`, `PERCENT%` or `FIXED+PERCENT%` (e.g. `2.99+1%`). fee = FIXED + amount × PERCENT / 100, rounded once to the source currency's minor units with `TRANSFER_FEE_ROUNDING`; total = amount + fee is what the gateway pulls. No `*`: `*=0` is added. Shown by `createQuote` (`fee`, `total`) and the `corridor` queries (`fees`, `price`); a transfer keeps its quote's fee.",
        { default: `\`${DEFAULT_FEES}\``, example: DEFAULT_FEES },
      ),
    ),
  TRANSFER_FEE_ROUNDING: z
    .enum(Object.keys(FEE_ROUNDINGS) as [keyof typeof FEE_ROUNDINGS, ...(keyof typeof FEE_ROUNDINGS)[]])
    .default('HALF_UP')
    .register(
      configDocs,
      doc(
        'transfers',
        "How a fee is rounded to the source currency's minor units: `HALF_UP` (0.005 → 0.01), `HALF_EVEN` (to the even unit on a tie), `UP` (away from zero: never less than the exact fee) or `DOWN` (toward zero: never more).",
      ),
    ),
  TRANSFER_DELIVERY_TIMES: z
    .string()
    .default(DEFAULT_DELIVERY_TIMES)
    .transform((v, ctx) => {
      const parsed = parseDeliveryTimes(v);
      if ('rules' in parsed) return parsed.rules;
      ctx.addIssue({
        code: 'custom',
        message: `entries not understood: ${parsed.invalid.length}; use e.g. USD>BRL:PIX=..1h,USD>BRL:WALLET=..10m,*=1h..3d`,
      });
      return z.NEVER;
    })
    .register(
      configDocs,
      doc(
        'transfers',
        'How long a payout takes, as `SRC>DST[/CC][:DESTINATION]=MIN..MAX` entries matched like `TRANSFER_CORRIDORS` (`:PIX` or `:WALLET` beats no destination type); durations `0`, `90s`, `30m`, `2h`, `3d` (no MIN: 0). The platform gives no delivery time of its own: this is the estimate `createQuote` and the `corridor` queries show (a quote without `destinationType`: the widest window over the destination types) and the transfer keeps from its quote. No `*`: `*=0..3d` is added.',
        { default: `\`${DEFAULT_DELIVERY_TIMES}\``, example: DEFAULT_DELIVERY_TIMES },
      ),
    ),
  SUPPORT_NAME: nonEmpty
    .default('remittance-bff')
    .register(configDocs, doc('transfers', 'The operator as receipts name it (the business the customer deals with).')),
  SUPPORT_EMAIL: z
    .string()
    .trim()
    .email('must be an e-mail address')
    .optional()
    .register(
      configDocs,
      doc(
        'transfers',
        "The operator's support e-mail on every receipt. Production needs `SUPPORT_EMAIL`, `SUPPORT_PHONE` or `SUPPORT_URL`.",
        {
          default: 'production: none; elsewhere `support@example.com`',
        },
      ),
    ),
  SUPPORT_PHONE: z
    .string()
    .trim()
    .regex(/^\+[1-9]\d{6,14}$/, 'must be an E.164 number such as +18005550100')
    .optional()
    .register(configDocs, doc('transfers', "The operator's support phone (E.164) on every receipt.")),
  SUPPORT_URL: httpUrl.optional().register(configDocs, doc('transfers', "The operator's support page on every receipt (`https://`).")),
});

/** The credentials the built-in sandbox accepts; used only while the upstreams are a sandbox, never in production. */
const SANDBOX_CREDENTIALS = {
  GATEWAY_CLIENT_ID: 'sandbox-client',
  GATEWAY_CLIENT_SECRET: 'sandbox-secret',
  REMITTANCES_TENANT_ID: 'sandbox-tenant',
  REMITTANCES_API_KEY: 'sandbox-api-key',
  REMITTANCES_AGENT_ID: '00000000-0000-4000-8000-00000000a9e7',
  REMITTANCES_AGENT_API_KEY: 'sandbox-agent-key',
  VERIFICATION_CLIENT_ID: 'sandbox-verification',
  VERIFICATION_CLIENT_SECRET: 'sandbox-verification-secret',
} as const;

const LOOPBACK = new Set(['127.0.0.1', 'localhost', '[::1]']);
/** A loopback URL: traffic that never leaves the host (a local sandbox, or a TLS-terminating sidecar). */
const isLoopbackUrl = (v: string): boolean => LOOPBACK.has(new URL(v).hostname);

type Env = z.infer<typeof schema>;

export type DatabaseConfig =
  | { kind: 'pglite'; dataDir: string | null /* null = in memory */ }
  | {
      kind: 'postgres';
      url: string;
      poolMax: number;
      /** distinct statement texts prepared per connection (0: none) */
      preparedStatements: number;
    };

export interface Config {
  env: Env['NODE_ENV'];
  production: boolean;
  port: number;
  host: string;
  logLevel: Env['LOG_LEVEL'];
  dataDir: string;
  database: DatabaseConfig;
  redisUrl: string | null;
  /** The built-in sandbox runs when no upstream base URL is configured (never in production). */
  sandbox: { enabled: boolean; port: number; host: string };
  gateway: { baseUrl: string | null; clientId: string; clientSecret: string; tokenRefreshMarginS: number };
  remittances: {
    baseUrl: string | null;
    tenantId: string;
    apiKey: string;
    agentId: string;
    agentApiKey: string;
    tls: { certPath?: string; keyPath?: string; caPath?: string };
  };
  verification: {
    baseUrl: string | null;
    clientId: string;
    clientSecret: string;
    authMethod: 'body' | 'basic';
    tokenRefreshMarginS: number;
  };
  upstream: {
    maxConnections: number;
    connectTimeoutMs: number;
    readTimeoutMs: number;
    paymentTimeoutMs: number;
    retry: { maxAttempts: number; baseDelayMs: number; maxTotalMs: number };
  };
  publicUrl: string | null;
  /** Proxies (addresses/CIDRs) whose X-Forwarded-For is believed for the client IP; empty = the TCP peer is the client. */
  trustProxy: string[];
  auth: {
    jwksUrl: string | null;
    publicKey: string | null;
    issuer: string | null;
    audience: string | null;
    /** Embedded default: a development key pair generated once in DATA_DIR. */
    devKeys: boolean;
    /** Successful verifications kept for reuse (size 0 = off), each at most maxAgeMs and never past its token's exp. */
    tokenCache?: { size: number; maxAgeMs: number };
    /** Longest validity of a token (exp − iat) and the clock skew allowed on exp, nbf and iat. */
    maxTokenLifetimeS: number;
    clockSkewS: number;
  };
  graphiql: boolean;
  introspection: boolean;
  shutdownTimeoutMs: number;
  wsConnectionInitTimeoutMs: number;
  /** The HTTP edge's time and connection bounds. */
  http: { headersTimeoutMs: number; requestTimeoutMs: number; keepAliveTimeoutMs: number; maxConnectionsPerClient: number };
  /** IPv6 clients are keyed by their network of this many bits (budgets, connection cap). */
  clientIpv6Prefix: number;
  /** The transfer saga: worker, leases, retries, the capture window, idempotency records. */
  saga: {
    workerEnabled: boolean;
    pollIntervalMs: number;
    batchSize: number;
    /** Claimed transfers advanced at once per instance. */
    concurrency: number;
    leaseMs: number;
    retryBaseMs: number;
    retryMaxMs: number;
    /** An authorization not captured within this is voided (EXPIRED); under the gateway's 7-day auto-cancel. */
    captureWindowMs: number;
    /** How long after creation the owner may cancel (TRANSFER_CANCEL_WINDOW_S). */
    cancelWindowMs: number;
    idempotencyTtlMs: number;
    idempotencyWaitMs: number;
    mutationLeaseWaitMs: number;
    /** Test-only crash hook (<step>:<before|after>); refused in production. */
    crashAt: string | null;
    /**
     * A transfer waiting on the platform (compliance, payout) with no change for this long asks the platform for
     * the transaction's state (a webhook may have been lost); then again after as long as it has been quiet
     * (capped at an hour).
     */
    reconcileAfterMs: number;
  };
  webhooks: {
    /** base64 of 32 bytes (AES-256-GCM key for signing secrets at rest); null → a key generated in DATA_DIR (never in production). */
    encryptionKey: string | null;
    /** Signature timestamps further than this from our clock, past or future, are refused. */
    toleranceS: number;
    /** The inbox processor's poll interval (it is also nudged after every insert). */
    pollIntervalMs: number;
    /** How long verified-mode secrets are cached per instance (re-read at once when a signature fails). */
    secretCacheMs: number;
    /** Failed attempts after which an inbox event is dead-lettered (its stream goes on). */
    maxAttempts: number;
    /** Streams the inbox processor applies at once per instance (each holds a pool connection while applying). */
    concurrency: number;
  };
  /** The legacy card check (checkCardLegacy) answers only when enabled. */
  cardCheckLegacyEnabled: boolean;
  /** A card token funds a transfer only if its owner checked it (checkCard) at most this long ago. */
  cardCheckMaxAgeMs: number;
  /** CARD_CHECK_REUSE_S in ms: how recent an APPROVED checkCard a card transfer reuses (0: never). */
  cardCheckReuseMs: number;
  /** The 3-D Secure return URLs an app may give (THREE_DS_RETURN_URL_HOSTS; src/shared/return-url.ts). */
  threeDSReturnUrls: ReturnUrlPolicy;
  directory: { bankCacheTtlS: number; bankCacheMax: number };
  /** Query limits (GraphQL Armor) and the request body limit. */
  limits: { bodyLimitBytes: number; maxDepth: number; maxAliases: number; maxCost: number; maxTokens: number; maxDirectives: number };
  /** Per caller and operation, per minute (memory, or Redis when REDIS_URL is set). */
  rateLimits: { mutationsPerMinute: number; aliasLookupsPerMinute: number };
  /** Abuse budgets: upstream-backed fields per caller, unauthenticated traffic per IP, websocket caps per instance. */
  budgets: {
    upstreamPointsPerMinute: number;
    anonymousPerMinute: number;
    wsMaxSubscriptionsPerSocket: number;
    wsMaxSocketsPerUser: number;
  };
  /** Automatic persisted queries: how long a registered query is kept (memory LRU, or Redis when REDIS_URL is set). */
  apq: { ttlS: number };
  /** Trusted (persisted) documents: the mode and the manifest (`sha256:<hex>` → document text) it reads. */
  trustedDocuments: { mode: 'off' | 'allow' | 'only'; manifestPath: string };
  /** Execute operations over HTTP with graphql-jit (compiled once per document; graphql-js for what it cannot compile). */
  graphqlJit: boolean;
  /**
   * Prometheus `/metrics`: on its own listener at host:port when port is set (always in production; port 0 = a
   * free port), and on the API port too only outside production.
   */
  metrics: { port: number | null; host: string; onApiPort: boolean };
  /** The most one transfer may send, in its source currency: `byCurrency[currency] ?? default` (decimal strings). */
  /** Corridor rules (TRANSFER_CORRIDORS), the `*` default included. */
  corridors: CorridorRule[];
  /** Fees and delivery times per corridor (TRANSFER_FEES, TRANSFER_FEE_ROUNDING, TRANSFER_DELIVERY_TIMES). */
  pricing: Pricing;
  /** The operator's support contact, as receipts show it (at least one of email, phone, url). */
  support: { name: string; email: string | null; phone: string | null; url: string | null };
  /** OpenTelemetry: spans exported over OTLP/HTTP to `<otlpEndpoint>/v1/traces`; null = tracing off (no SDK started). */
  tracing: { otlpEndpoint: string | null; serviceName: string };
}

const KNOWN = Object.keys(schema.shape);

/** A variable of the service's schema with its documentation, its default as the reference shows it and its .env.example value. */
interface ServiceVariable {
  name: string;
  doc: VariableDoc | undefined;
  /** Markdown; undefined = no default. */
  default: string | undefined;
  example: string;
}

/** The service's variables in schema order, each with its documentation (the configuration reference's source). */
export function serviceVariables(): ServiceVariable[] {
  return Object.entries(schema.shape).map(([name, field]) => {
    const d = configDocs.get(field);
    const parsed = (field as z.ZodType).safeParse(undefined);
    const value = parsed.success ? parsed.data : undefined;
    const primitive = typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean' ? String(value) : undefined;
    const sandboxValue = (SANDBOX_CREDENTIALS as Record<string, string>)[name];
    const shown =
      sandboxValue !== undefined
        ? `\`${sandboxValue}\` while the upstreams are a sandbox`
        : primitive !== undefined
          ? `\`${primitive}\``
          : undefined;
    return { name, doc: d, default: d?.default ?? shown, example: d?.example ?? primitive ?? '' };
  });
}

export function loadConfig(source: NodeJS.ProcessEnv = process.env): Config {
  // Empty strings count as unset, as most deployment tools write them for "no value".
  const raw: Record<string, string> = {};
  for (const key of KNOWN) {
    const v = source[key];
    if (v !== undefined && v !== '') raw[key] = v;
  }
  const parsed = schema.safeParse(raw);
  const problems: { variable: string; problem: string }[] = [];
  if (!parsed.success) {
    for (const issue of parsed.error.issues) {
      const variable = String(issue.path[0] ?? '?');
      const problem = issue.code === 'invalid_value' ? `must be one of ${(issue.values as unknown[]).join(', ')}` : issue.message;
      if (!problems.some((p) => p.variable === variable)) problems.push({ variable, problem });
    }
    throw new ConfigError(problems);
  }
  const e = parsed.data;
  const production = e.NODE_ENV === 'production';

  const upstreamUrls = {
    GATEWAY_BASE_URL: e.GATEWAY_BASE_URL,
    REMITTANCES_BASE_URL: e.REMITTANCES_BASE_URL,
    VERIFICATION_BASE_URL: e.VERIFICATION_BASE_URL,
  };
  const setUrls = Object.entries(upstreamUrls).filter(([, v]) => v !== undefined);
  const sandboxEnabled = setUrls.length === 0 && !production;
  if (setUrls.length > 0 && setUrls.length < 3) {
    for (const [k, v] of Object.entries(upstreamUrls))
      if (v === undefined) problems.push({ variable: k, problem: 'must be set when any other upstream base URL is set' });
  }
  if (production) {
    for (const [k, v] of Object.entries(upstreamUrls))
      if (v === undefined && setUrls.length === 0)
        problems.push({ variable: k, problem: 'is required in production (the sandbox never runs there)' });
    if (!e.AUTH_JWKS_URL && !e.AUTH_PUBLIC_KEY)
      problems.push({ variable: 'AUTH_JWKS_URL', problem: 'AUTH_JWKS_URL or AUTH_PUBLIC_KEY is required in production' });
    if (!e.DATABASE_URL || !/^postgres/.test(e.DATABASE_URL))
      problems.push({ variable: 'DATABASE_URL', problem: 'a postgres:// URL is required in production' });
    if (!e.WEBHOOK_SECRET_ENCRYPTION_KEY)
      problems.push({
        variable: 'WEBHOOK_SECRET_ENCRYPTION_KEY',
        problem: 'is required in production (base64 of 32 bytes; encrypts webhook signing secrets at rest)',
      });
  }
  // Upstream credentials: the sandbox's defaults only while the upstreams are a sandbox — the built-in one, or
  // (outside production) one on a loopback address (`npm run sandbox`). Anywhere else each one must be given.
  const sandboxUpstreams = sandboxEnabled || (!production && setUrls.every(([, v]) => isLoopbackUrl(v!)));
  const credentials = { ...(sandboxUpstreams ? SANDBOX_CREDENTIALS : {}) } as Record<keyof typeof SANDBOX_CREDENTIALS, string | undefined>;
  for (const k of Object.keys(SANDBOX_CREDENTIALS) as (keyof typeof SANDBOX_CREDENTIALS)[]) {
    credentials[k] = e[k] ?? credentials[k];
    if (credentials[k] === undefined)
      problems.push({
        variable: k,
        problem: production ? 'is required in production (no sandbox default)' : 'is required when the upstreams are not a local sandbox',
      });
  }
  if (production) {
    if (!e.SUPPORT_EMAIL && !e.SUPPORT_PHONE && !e.SUPPORT_URL)
      problems.push({
        variable: 'SUPPORT_EMAIL',
        problem: 'SUPPORT_EMAIL, SUPPORT_PHONE or SUPPORT_URL is required in production (every receipt names the support contact)',
      });
    if (!e.AUTH_ISSUER) problems.push({ variable: 'AUTH_ISSUER', problem: 'is required in production (the expected iss of every token)' });
    if (!e.AUTH_AUDIENCE)
      problems.push({ variable: 'AUTH_AUDIENCE', problem: 'is required in production (the expected aud of every token)' });
    if (!e.PUBLIC_URL)
      problems.push({ variable: 'PUBLIC_URL', problem: 'is required in production (where the platform delivers webhooks)' });
    // TLS for everything that leaves the host; loopback is allowed (a local TLS-terminating proxy or sidecar)
    for (const k of ['PUBLIC_URL', 'AUTH_JWKS_URL', 'GATEWAY_BASE_URL', 'REMITTANCES_BASE_URL', 'VERIFICATION_BASE_URL'] as const) {
      const v = e[k];
      if (v && new URL(v).protocol !== 'https:' && !isLoopbackUrl(v))
        problems.push({ variable: k, problem: 'must be an https:// URL in production (http only on a loopback address)' });
    }
    if (e.METRICS_PORT !== undefined && e.METRICS_PORT !== 0 && e.METRICS_PORT === e.PORT)
      problems.push({
        variable: 'METRICS_PORT',
        problem: 'must differ from PORT (metrics are never served on the API port in production)',
      });
  }
  if (production && e.SAGA_CRASH_AT)
    problems.push({ variable: 'SAGA_CRASH_AT', problem: 'is a test-only fault hook, refused in production' });
  if (e.AUTH_JWKS_URL && e.AUTH_PUBLIC_KEY)
    problems.push({ variable: 'AUTH_PUBLIC_KEY', problem: 'set either AUTH_JWKS_URL or AUTH_PUBLIC_KEY, not both' });
  if (Boolean(e.REMITTANCES_CLIENT_CERT) !== Boolean(e.REMITTANCES_CLIENT_KEY))
    problems.push({
      variable: e.REMITTANCES_CLIENT_CERT ? 'REMITTANCES_CLIENT_KEY' : 'REMITTANCES_CLIENT_CERT',
      problem: 'REMITTANCES_CLIENT_CERT and REMITTANCES_CLIENT_KEY go together',
    });
  if (problems.length) throw new ConfigError(problems);

  let database: DatabaseConfig;
  if (!e.DATABASE_URL) database = { kind: 'pglite', dataDir: `${e.DATA_DIR.replace(/\/$/, '')}/pglite` };
  else if (e.DATABASE_URL === 'memory://') database = { kind: 'pglite', dataDir: null };
  else if (e.DATABASE_URL.startsWith('file:')) database = { kind: 'pglite', dataDir: e.DATABASE_URL.slice(5) };
  else
    database = { kind: 'postgres', url: e.DATABASE_URL, poolMax: e.DATABASE_POOL_MAX, preparedStatements: e.DATABASE_PREPARED_STATEMENTS };

  return {
    env: e.NODE_ENV,
    production,
    port: e.PORT,
    host: e.HOST,
    logLevel: e.LOG_LEVEL,
    dataDir: e.DATA_DIR,
    database,
    redisUrl: e.REDIS_URL ?? null,
    sandbox: { enabled: sandboxEnabled, port: e.SANDBOX_PORT, host: e.SANDBOX_HOST },
    gateway: {
      baseUrl: e.GATEWAY_BASE_URL ?? null,
      clientId: credentials.GATEWAY_CLIENT_ID!,
      clientSecret: credentials.GATEWAY_CLIENT_SECRET!,
      tokenRefreshMarginS: e.GATEWAY_TOKEN_REFRESH_MARGIN_S,
    },
    remittances: {
      baseUrl: e.REMITTANCES_BASE_URL ?? null,
      tenantId: credentials.REMITTANCES_TENANT_ID!,
      apiKey: credentials.REMITTANCES_API_KEY!,
      agentId: credentials.REMITTANCES_AGENT_ID!,
      agentApiKey: credentials.REMITTANCES_AGENT_API_KEY!,
      tls: { certPath: e.REMITTANCES_CLIENT_CERT, keyPath: e.REMITTANCES_CLIENT_KEY, caPath: e.REMITTANCES_CLIENT_CA },
    },
    verification: {
      baseUrl: e.VERIFICATION_BASE_URL ?? null,
      clientId: credentials.VERIFICATION_CLIENT_ID!,
      clientSecret: credentials.VERIFICATION_CLIENT_SECRET!,
      authMethod: e.VERIFICATION_AUTH_METHOD,
      tokenRefreshMarginS: e.VERIFICATION_TOKEN_REFRESH_MARGIN_S,
    },
    upstream: {
      maxConnections: e.UPSTREAM_MAX_CONNECTIONS,
      connectTimeoutMs: e.UPSTREAM_CONNECT_TIMEOUT_MS,
      readTimeoutMs: e.UPSTREAM_READ_TIMEOUT_MS,
      paymentTimeoutMs: e.UPSTREAM_PAYMENT_TIMEOUT_MS,
      retry: {
        maxAttempts: e.UPSTREAM_RETRY_MAX_ATTEMPTS,
        baseDelayMs: e.UPSTREAM_RETRY_BASE_DELAY_MS,
        maxTotalMs: e.UPSTREAM_RETRY_MAX_TOTAL_MS,
      },
    },
    publicUrl: e.PUBLIC_URL ?? null,
    trustProxy: e.TRUST_PROXY,
    auth: {
      jwksUrl: e.AUTH_JWKS_URL ?? null,
      publicKey: e.AUTH_PUBLIC_KEY ?? null,
      issuer: e.AUTH_ISSUER ?? null,
      audience: e.AUTH_AUDIENCE ?? null,
      devKeys: !e.AUTH_JWKS_URL && !e.AUTH_PUBLIC_KEY,
      tokenCache: { size: e.AUTH_TOKEN_CACHE_SIZE, maxAgeMs: e.AUTH_TOKEN_CACHE_MAX_AGE_S * 1000 },
      maxTokenLifetimeS: e.AUTH_MAX_TOKEN_LIFETIME_S,
      clockSkewS: e.AUTH_CLOCK_SKEW_S,
    },
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
    saga: {
      workerEnabled: e.SAGA_WORKER_ENABLED ?? true,
      pollIntervalMs: e.SAGA_POLL_INTERVAL_MS,
      batchSize: e.SAGA_BATCH_SIZE,
      concurrency: e.SAGA_CONCURRENCY,
      leaseMs: e.SAGA_LEASE_MS,
      retryBaseMs: e.SAGA_RETRY_BASE_MS,
      retryMaxMs: e.SAGA_RETRY_MAX_MS,
      captureWindowMs: e.CAPTURE_WINDOW_S * 1000,
      cancelWindowMs: e.TRANSFER_CANCEL_WINDOW_S * 1000,
      idempotencyTtlMs: e.IDEMPOTENCY_TTL_HOURS * 3600_000,
      idempotencyWaitMs: e.IDEMPOTENCY_WAIT_MS,
      mutationLeaseWaitMs: e.MUTATION_LEASE_WAIT_MS,
      crashAt: e.SAGA_CRASH_AT ?? null,
      reconcileAfterMs: e.SAGA_RECONCILE_AFTER_MS,
    },
    webhooks: {
      encryptionKey: e.WEBHOOK_SECRET_ENCRYPTION_KEY ?? null,
      toleranceS: e.WEBHOOK_TOLERANCE_S,
      pollIntervalMs: e.WEBHOOK_POLL_INTERVAL_MS,
      secretCacheMs: e.WEBHOOK_SECRET_CACHE_MS,
      maxAttempts: e.WEBHOOK_MAX_ATTEMPTS,
      concurrency: e.WEBHOOK_CONCURRENCY,
    },
    cardCheckLegacyEnabled: e.CARD_CHECK_LEGACY_ENABLED,
    cardCheckMaxAgeMs: e.CARD_CHECK_MAX_AGE_S * 1000,
    cardCheckReuseMs: Math.min(e.CARD_CHECK_REUSE_S, e.CARD_CHECK_MAX_AGE_S) * 1000,
    threeDSReturnUrls: { hosts: e.THREE_DS_RETURN_URL_HOSTS, production },
    directory: { bankCacheTtlS: e.BANK_CACHE_TTL_S, bankCacheMax: e.BANK_CACHE_MAX_ENTRIES },
    limits: {
      bodyLimitBytes: e.GRAPHQL_BODY_LIMIT_BYTES,
      maxDepth: e.GRAPHQL_MAX_DEPTH,
      maxAliases: e.GRAPHQL_MAX_ALIASES,
      maxCost: e.GRAPHQL_MAX_COST,
      maxTokens: e.GRAPHQL_MAX_TOKENS,
      maxDirectives: e.GRAPHQL_MAX_DIRECTIVES,
    },
    rateLimits: { mutationsPerMinute: e.RATE_LIMIT_MUTATIONS_PER_MINUTE, aliasLookupsPerMinute: e.RATE_LIMIT_ALIAS_LOOKUPS_PER_MINUTE },
    budgets: {
      upstreamPointsPerMinute: e.RATE_LIMIT_UPSTREAM_POINTS_PER_MINUTE,
      anonymousPerMinute: e.RATE_LIMIT_ANONYMOUS_PER_MINUTE,
      wsMaxSubscriptionsPerSocket: e.WS_MAX_SUBSCRIPTIONS_PER_SOCKET,
      wsMaxSocketsPerUser: e.WS_MAX_SOCKETS_PER_USER,
    },
    apq: { ttlS: e.APQ_TTL_S },
    trustedDocuments: { mode: e.TRUSTED_DOCUMENTS, manifestPath: e.TRUSTED_DOCUMENTS_MANIFEST },
    graphqlJit: e.GRAPHQL_JIT,
    metrics: { port: e.METRICS_PORT ?? (production ? 9464 : null), host: e.METRICS_HOST, onApiPort: !production },
    corridors: e.TRANSFER_CORRIDORS,
    pricing: { fees: e.TRANSFER_FEES, rounding: e.TRANSFER_FEE_ROUNDING, delivery: e.TRANSFER_DELIVERY_TIMES },
    support: {
      name: e.SUPPORT_NAME,
      email: e.SUPPORT_EMAIL ?? (production || e.SUPPORT_PHONE || e.SUPPORT_URL ? null : 'support@example.com'),
      phone: e.SUPPORT_PHONE ?? null,
      url: e.SUPPORT_URL ?? null,
    },
    tracing: { otlpEndpoint: e.OTEL_EXPORTER_OTLP_ENDPOINT ?? null, serviceName: e.OTEL_SERVICE_NAME },
  };
}
