import { z } from 'zod';
import { configDocs, doc, int, type EnvOf } from './config.fields';

/** Webhooks from the remittances platform: signing-secret key, signature tolerance, the inbox processor. */
export const webhooksFields = {
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
};

export interface WebhooksConfig {
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
}

export function webhooksConfig(e: EnvOf<typeof webhooksFields>): WebhooksConfig {
  return {
    webhooks: {
      encryptionKey: e.WEBHOOK_SECRET_ENCRYPTION_KEY ?? null,
      toleranceS: e.WEBHOOK_TOLERANCE_S,
      pollIntervalMs: e.WEBHOOK_POLL_INTERVAL_MS,
      secretCacheMs: e.WEBHOOK_SECRET_CACHE_MS,
      maxAttempts: e.WEBHOOK_MAX_ATTEMPTS,
      concurrency: e.WEBHOOK_CONCURRENCY,
    },
  };
}
