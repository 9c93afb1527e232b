import { configDocs, doc, int, nonEmpty, httpUrl, type ConfigProblem, type EnvOf } from './config.fields';

/** How callers' tokens are verified. */
export const authFields = {
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
};

export interface AuthConfig {
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
}

/** One verification key source, not two. */
export function authProblems(e: EnvOf<typeof authFields>): ConfigProblem[] {
  return e.AUTH_JWKS_URL && e.AUTH_PUBLIC_KEY
    ? [{ variable: 'AUTH_PUBLIC_KEY', problem: 'set either AUTH_JWKS_URL or AUTH_PUBLIC_KEY, not both' }]
    : [];
}

export function authConfig(e: EnvOf<typeof authFields>): AuthConfig {
  return {
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
  };
}
