import { isLoopbackUrl, type ConfigProblem } from './config.fields';
import type { Env } from './config.schema';
import { UPSTREAM_URLS, type Upstreams } from './config.upstream';

/** A rule production adds: what it refuses to start without (docs/security.md). */
interface ProductionCheck {
  name: string;
  problems(e: Env, upstreams: Upstreams): ConfigProblem[];
}

const problem = (variable: string, text: string): ConfigProblem[] => [{ variable, problem: text }];

/** Checked in this order, so the error lists its problems in it. */
const PRODUCTION_CHECKS: readonly ProductionCheck[] = [
  {
    name: 'real upstreams (the sandbox never runs there)',
    problems: (e, u) =>
      u.setUrls.length > 0 ? [] : UPSTREAM_URLS.flatMap((k) => problem(k, 'is required in production (the sandbox never runs there)')),
  },
  {
    name: 'a real token verification key',
    problems: (e) =>
      !e.AUTH_JWKS_URL && !e.AUTH_PUBLIC_KEY ? problem('AUTH_JWKS_URL', 'AUTH_JWKS_URL or AUTH_PUBLIC_KEY is required in production') : [],
  },
  {
    name: 'PostgreSQL',
    problems: (e) =>
      !e.DATABASE_URL || !/^postgres/.test(e.DATABASE_URL) ? problem('DATABASE_URL', 'a postgres:// URL is required in production') : [],
  },
  {
    name: 'a given key for webhook secrets at rest',
    problems: (e) =>
      !e.WEBHOOK_SECRET_ENCRYPTION_KEY
        ? problem(
            'WEBHOOK_SECRET_ENCRYPTION_KEY',
            'is required in production (base64 of 32 bytes; encrypts webhook signing secrets at rest)',
          )
        : [],
  },
  {
    name: 'every upstream credential (no sandbox default)',
    problems: (e, u) => u.missingCredentials.flatMap((k) => problem(k, 'is required in production (no sandbox default)')),
  },
  {
    name: 'a support contact on receipts',
    problems: (e) =>
      !e.SUPPORT_EMAIL && !e.SUPPORT_PHONE && !e.SUPPORT_URL
        ? problem(
            'SUPPORT_EMAIL',
            'SUPPORT_EMAIL, SUPPORT_PHONE or SUPPORT_URL is required in production (every receipt names the support contact)',
          )
        : [],
  },
  {
    name: 'the expected token issuer',
    problems: (e) => (!e.AUTH_ISSUER ? problem('AUTH_ISSUER', 'is required in production (the expected iss of every token)') : []),
  },
  {
    name: 'the expected token audience',
    problems: (e) => (!e.AUTH_AUDIENCE ? problem('AUTH_AUDIENCE', 'is required in production (the expected aud of every token)') : []),
  },
  {
    name: 'where webhooks are delivered',
    problems: (e) => (!e.PUBLIC_URL ? problem('PUBLIC_URL', 'is required in production (where the platform delivers webhooks)') : []),
  },
  {
    // loopback is allowed (a local TLS-terminating proxy or sidecar)
    name: 'TLS for everything that leaves the host',
    problems: (e) =>
      (['PUBLIC_URL', 'AUTH_JWKS_URL', ...UPSTREAM_URLS] as const).flatMap((k) => {
        const v = e[k];
        return v && new URL(v).protocol !== 'https:' && !isLoopbackUrl(v)
          ? problem(k, 'must be an https:// URL in production (http only on a loopback address)')
          : [];
      }),
  },
  {
    name: 'metrics apart from the API port',
    problems: (e) =>
      e.METRICS_PORT !== undefined && e.METRICS_PORT !== 0 && e.METRICS_PORT === e.PORT
        ? problem('METRICS_PORT', 'must differ from PORT (metrics are never served on the API port in production)')
        : [],
  },
  {
    name: 'no test-only fault hook',
    problems: (e) => (e.SAGA_CRASH_AT ? problem('SAGA_CRASH_AT', 'is a test-only fault hook, refused in production') : []),
  },
];

export const productionProblems = (e: Env, upstreams: Upstreams): ConfigProblem[] =>
  PRODUCTION_CHECKS.flatMap((c) => c.problems(e, upstreams));
