import { z } from 'zod';
import { configDocs, doc, httpUrl, int, isLoopbackUrl, nonEmpty, type ConfigProblem, type EnvOf } from './config.fields';

/** The built-in sandbox and the three upstream APIs: base URLs, credentials, mutual TLS, pool, timeouts, retries. */
export const upstreamFields = {
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
};

/** The credentials the built-in sandbox accepts; used only while the upstreams are a sandbox, never in production. */
export const SANDBOX_CREDENTIALS = {
  GATEWAY_CLIENT_ID: 'sandbox-client',
  GATEWAY_CLIENT_SECRET: 'sandbox-secret',
  REMITTANCES_TENANT_ID: 'sandbox-tenant',
  REMITTANCES_API_KEY: 'sandbox-api-key',
  REMITTANCES_AGENT_ID: '00000000-0000-4000-8000-00000000a9e7',
  REMITTANCES_AGENT_API_KEY: 'sandbox-agent-key',
  VERIFICATION_CLIENT_ID: 'sandbox-verification',
  VERIFICATION_CLIENT_SECRET: 'sandbox-verification-secret',
} as const;
type CredentialName = keyof typeof SANDBOX_CREDENTIALS;

export const UPSTREAM_URLS = ['GATEWAY_BASE_URL', 'REMITTANCES_BASE_URL', 'VERIFICATION_BASE_URL'] as const;

type UpstreamEnv = EnvOf<typeof upstreamFields>;

/** Which upstreams are configured, whether the built-in sandbox stands in for them, and the credentials in force. */
export interface Upstreams {
  /** The base URLs that are set. */
  setUrls: (typeof UPSTREAM_URLS)[number][];
  sandboxEnabled: boolean;
  credentials: Record<CredentialName, string | undefined>;
  /** Credentials neither given nor defaulted (a sandbox's defaults apply only while the upstreams are a sandbox). */
  missingCredentials: CredentialName[];
}

export function resolveUpstreams(e: UpstreamEnv, production: boolean): Upstreams {
  const setUrls = UPSTREAM_URLS.filter((k) => e[k] !== undefined);
  const sandboxEnabled = setUrls.length === 0 && !production;
  // Upstream credentials: the sandbox's defaults only while the upstreams are a sandbox — the built-in one, or
  // (outside production) one on a loopback address (`npm run sandbox`). Anywhere else each one must be given.
  const sandboxUpstreams = sandboxEnabled || (!production && setUrls.every((k) => isLoopbackUrl(e[k]!)));
  const credentials = { ...(sandboxUpstreams ? SANDBOX_CREDENTIALS : {}) } as Upstreams['credentials'];
  const missingCredentials: CredentialName[] = [];
  for (const k of Object.keys(SANDBOX_CREDENTIALS) as CredentialName[]) {
    credentials[k] = e[k] ?? credentials[k];
    if (credentials[k] === undefined) missingCredentials.push(k);
  }
  return { setUrls, sandboxEnabled, credentials, missingCredentials };
}

/** The three base URLs go together: set one, set all. */
export function upstreamUrlProblems(u: Upstreams): ConfigProblem[] {
  if (u.setUrls.length === 0 || u.setUrls.length === UPSTREAM_URLS.length) return [];
  return UPSTREAM_URLS.filter((k) => !u.setUrls.includes(k)).map((variable) => ({
    variable,
    problem: 'must be set when any other upstream base URL is set',
  }));
}

/** Outside production: a credential is needed wherever the upstreams are not a local sandbox. */
export function credentialProblems(u: Upstreams): ConfigProblem[] {
  return u.missingCredentials.map((variable) => ({ variable, problem: 'is required when the upstreams are not a local sandbox' }));
}

/** The mutual-TLS certificate and key go together. */
export function clientCertificateProblems(e: UpstreamEnv): ConfigProblem[] {
  if (Boolean(e.REMITTANCES_CLIENT_CERT) === Boolean(e.REMITTANCES_CLIENT_KEY)) return [];
  return [
    {
      variable: e.REMITTANCES_CLIENT_CERT ? 'REMITTANCES_CLIENT_KEY' : 'REMITTANCES_CLIENT_CERT',
      problem: 'REMITTANCES_CLIENT_CERT and REMITTANCES_CLIENT_KEY go together',
    },
  ];
}

export interface UpstreamConfig {
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
}

/** The upstreams' settings; call only once `missingCredentials` is known to be empty. */
export function upstreamConfig(e: UpstreamEnv, u: Upstreams): UpstreamConfig {
  const c = u.credentials;
  return {
    sandbox: { enabled: u.sandboxEnabled, port: e.SANDBOX_PORT, host: e.SANDBOX_HOST },
    gateway: {
      baseUrl: e.GATEWAY_BASE_URL ?? null,
      clientId: c.GATEWAY_CLIENT_ID!,
      clientSecret: c.GATEWAY_CLIENT_SECRET!,
      tokenRefreshMarginS: e.GATEWAY_TOKEN_REFRESH_MARGIN_S,
    },
    remittances: {
      baseUrl: e.REMITTANCES_BASE_URL ?? null,
      tenantId: c.REMITTANCES_TENANT_ID!,
      apiKey: c.REMITTANCES_API_KEY!,
      agentId: c.REMITTANCES_AGENT_ID!,
      agentApiKey: c.REMITTANCES_AGENT_API_KEY!,
      tls: { certPath: e.REMITTANCES_CLIENT_CERT, keyPath: e.REMITTANCES_CLIENT_KEY, caPath: e.REMITTANCES_CLIENT_CA },
    },
    verification: {
      baseUrl: e.VERIFICATION_BASE_URL ?? null,
      clientId: c.VERIFICATION_CLIENT_ID!,
      clientSecret: c.VERIFICATION_CLIENT_SECRET!,
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
  };
}
