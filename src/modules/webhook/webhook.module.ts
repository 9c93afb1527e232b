/**
 * The webhook side (receiving, processing, secrets). At start — wherever the endpoint's URL is known (PUBLIC_URL, or
 * the service's own address in sandbox mode) — our subscription and a secret we hold are made sure of
 * (ensureRegistration), retried in the background with backoff until it succeeds. Readiness: required in production
 * (no secret there means every delivery refused), optional elsewhere ("fail" = unsigned mode or an undecryptable
 * secret).
 */
import type { Config } from '../../config';
import type { Database } from '../../db/database';
import type { ReadinessCheck } from '../../http/health.routes';
import type { Clock } from '../../shared/clock';
import type { Logger } from '../../shared/logger';
import type { Metrics } from '../../shared/metrics';
import type { RemittancesClient } from '../../upstream/remittances/remittances.client';
import type { TransferEventSink } from '../transfer/transfer.ports';
import { decodeKey, loadOrCreateDevKey, SecretBox } from './webhook.crypto';
import { WebhookInbox } from './webhook.inbox.repository';
import { PlatformStateStore } from './webhook.platform-state.repository';
import { WebhookProcessor, type WebhookProcessorOptions } from './webhook.processor';
import { WebhookReceiver } from './webhook.receiver';
import { WebhookResolver } from './webhook.resolver';
import { WebhookSecretStore } from './webhook.secrets.repository';
import { WebhookSubscriptionService } from './webhook.subscriptions';
import { registerWebhookRoutes } from './webhook.routes';
import { defineModule } from '../module';
import { backoffDelay } from '../../shared/backoff';

const RETRY_FIRST_MS = 1_000;
const RETRY_MAX_MS = 60_000;

export interface WebhooksModule {
  receiver: WebhookReceiver;
  processor: WebhookProcessor;
  secrets: WebhookSecretStore;
  subscriptions: WebhookSubscriptionService;
  resolver: WebhookResolver;
  readiness: ReadinessCheck;
  /** After migrations: self-registration (retried in the background until it succeeds), secrets loaded (mode logged), processor started. */
  start(selfUrl: string): Promise<void>;
  close(): Promise<void>;
}

export interface WebhooksDeps {
  config: Config;
  db: Database;
  remittances: RemittancesClient;
  /** The saga's sink; null until one exists (transaction events are then recorded with outcome no_sink). */
  sink: TransferEventSink | null;
  clock: Clock;
  logger: Logger;
  metrics: Metrics;
  /** Tests: processor tuning, or `autoStart: false` to store without processing. */
  processor?: Partial<WebhookProcessorOptions> & { autoStart?: boolean };
}

function createWebhooksModule(deps: WebhooksDeps): WebhooksModule {
  const { config, db, clock, metrics } = deps;
  const logger = deps.logger.child({ component: 'webhooks' });
  const configured = config.webhooks.encryptionKey;
  const key = configured ? decodeKey(configured) : loadOrCreateDevKey(config.dataDir);
  if (!key) throw new Error('WEBHOOK_SECRET_ENCRYPTION_KEY must be base64 of 32 bytes'); // config.ts checks it first
  const box = new SecretBox(key);
  const production = config.production;
  const secrets = new WebhookSecretStore(db.prisma, box, clock, logger, {
    cacheMs: config.webhooks.secretCacheMs,
    unsignedAccepted: !production,
  });
  const processor = new WebhookProcessor(
    db.sql,
    deps.sink,
    new PlatformStateStore(db.prisma),
    clock,
    logger,
    {
      pollIntervalMs: config.webhooks.pollIntervalMs,
      maxAttempts: config.webhooks.maxAttempts,
      concurrency: config.webhooks.concurrency,
      tenantId: config.remittances.tenantId,
      ...deps.processor,
    },
    metrics,
  );
  metrics.webhookBacklogSource = () => processor.backlog();
  const inbox = new WebhookInbox(db.prisma, db.sql);
  const receiver = new WebhookReceiver(inbox, secrets, processor, clock, logger, metrics, {
    toleranceS: config.webhooks.toleranceS,
    allowUnsigned: !production,
  });
  const subscriptions = new WebhookSubscriptionService(deps.remittances, secrets, clock, logger, config.publicUrl, { production });
  let pending: number | null = null;
  // not_started → pending (first attempt or retrying) → registered; 'no_url' outside production without a URL
  let registration: 'not_started' | 'pending' | 'registered' | 'no_url' = 'not_started';
  let retryTimer: NodeJS.Timeout | null = null;
  let closed = false;

  const registrationBug = (err: unknown) => logger.error({ err: { message: (err as Error).message } }, 'webhook self-registration stopped');
  async function register(attempt: number): Promise<void> {
    if (closed) return;
    registration = 'pending';
    try {
      await subscriptions.ensureRegistration();
      registration = 'registered';
    } catch (err) {
      if (closed) return;
      const delayMs = backoffDelay({ baseMs: RETRY_FIRST_MS, maxMs: RETRY_MAX_MS, attempt });
      logger.error(
        { err: { message: (err as Error).message }, retryInMs: delayMs },
        'webhook self-registration failed; retrying (not ready in production until it succeeds)',
      );
      retryTimer = setTimeout(() => void register(attempt + 1).catch(registrationBug), delayMs);
      retryTimer.unref();
    }
  }

  const readiness: ReadinessCheck = {
    name: 'webhooks',
    // Outside production "fail" (unsigned mode, an undecryptable secret) never makes the instance unready.
    optional: !production,
    check: async () => {
      const s = await secrets.get();
      pending = await db.prisma.webhookInbox.count({ where: { processedAt: null } }).catch(() => null);
      return s.signed && s.undecryptable === 0 && (!production || registration === 'registered');
    },
    details: () => {
      const s = secrets.peek();
      return {
        mode: s ? (s.signed ? 'signed' : production ? 'no_secret' : 'unsigned') : 'unknown',
        registration,
        secretFingerprints: s?.fingerprints ?? [],
        ...(s?.undecryptable ? { undecryptableSecrets: s.undecryptable, encryptionKeyId: box.keyId } : {}),
        toleranceS: config.webhooks.toleranceS,
        processor: processor.isRunning ? 'running' : 'stopped',
        pendingEvents: pending,
      };
    },
  };

  return {
    receiver,
    processor,
    secrets,
    subscriptions,
    resolver: new WebhookResolver(subscriptions, inbox, processor, clock),
    readiness,
    async start(selfUrl) {
      if (config.sandbox.enabled) subscriptions.setDefaultPublicUrl(selfUrl);
      // the first attempt is awaited (ready at once in the usual case); failures retry in the background
      if (subscriptions.hasUrl()) await register(0);
      else {
        registration = 'no_url';
        logger.warn('webhooks: PUBLIC_URL is not set, so the service cannot register its webhook subscription');
      }
      await secrets.reload().catch((err) => logger.warn({ err: { message: (err as Error).message } }, 'webhook secrets not loaded yet'));
      if (deps.processor?.autoStart !== false) processor.start();
    },
    async close() {
      closed = true;
      if (retryTimer) clearTimeout(retryTimer);
      await processor.stop();
    },
  };
}

/** webhooks: the platform's signed events (inbox → processor → the transfers' sink), signing secrets, registration. */
export const webhooksModule = defineModule({
  name: 'webhooks',
  resolvers: [WebhookResolver],
  create: ({ config, db, upstream, clock, logger, metrics, provided, options }) => {
    const webhooks = createWebhooksModule({
      config,
      db,
      remittances: upstream.remittances,
      sink: provided.get('transfers').service,
      clock,
      logger,
      metrics,
      processor: options.webhookProcessor,
    });
    return {
      resolvers: [webhooks.resolver],
      routes: (fastify) => registerWebhookRoutes(fastify, webhooks.receiver),
      readiness: [webhooks.readiness],
      start: (url) => webhooks.start(url),
      close: () => webhooks.close(),
      provides: { webhooks },
    };
  },
});
