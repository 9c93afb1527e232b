/**
 * Builds the webhook side (receiving + secrets) for the composition root, so that src/app.ts only
 * wires: `const webhooks = createWebhooksModule(...)`, the route, the resolver, the readiness check,
 * `webhooks.start(url)` after migrations and `webhooks.close()` before the database closes.
 */
import type { Config } from '../../config';
import type { Database } from '../../db/database';
import type { ReadinessCheck } from '../../http/health.routes';
import type { Clock } from '../../shared/clock';
import type { Logger } from '../../shared/logger';
import type { Metrics } from '../../shared/metrics';
import type { RemittancesClient } from '../../upstream/remittances/remittances.client';
import type { TransferEventSink } from '../transfers/transfer.ports';
import { decodeKey, loadOrCreateDevKey, SecretBox } from './webhook.crypto';
import { WebhookInbox } from './webhook.inbox';
import { PlatformStateStore } from './webhook.platform-state';
import { WebhookProcessor, type WebhookProcessorOptions } from './webhook.processor';
import { WebhookReceiver } from './webhook.receiver';
import { WebhookResolver } from './webhook.resolver';
import { WebhookSecretStore } from './webhook.secrets';
import { WebhookSubscriptionService } from './webhook.subscriptions';

export interface WebhooksModule {
  receiver: WebhookReceiver;
  processor: WebhookProcessor;
  secrets: WebhookSecretStore;
  subscriptions: WebhookSubscriptionService;
  resolver: WebhookResolver;
  readiness: ReadinessCheck;
  /** After migrations: sandbox self-registration (sandbox mode), secrets loaded (mode logged), processor started. */
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

export function createWebhooksModule(deps: WebhooksDeps): WebhooksModule {
  const { config, db, clock, metrics } = deps;
  const logger = deps.logger.child({ component: 'webhooks' });
  const configured = config.webhooks.encryptionKey;
  const key = configured ? decodeKey(configured) : loadOrCreateDevKey(config.dataDir);
  if (!key) throw new Error('WEBHOOK_SECRET_ENCRYPTION_KEY must be base64 of 32 bytes'); // config.ts checks it first
  const box = new SecretBox(key);
  const secrets = new WebhookSecretStore(db.prisma, box, clock, logger, { cacheMs: config.webhooks.secretCacheMs });
  const processor = new WebhookProcessor(
    db.prisma,
    deps.sink,
    new PlatformStateStore(db.prisma),
    clock,
    logger,
    { pollIntervalMs: config.webhooks.pollIntervalMs, maxAttempts: config.webhooks.maxAttempts, concurrency: config.webhooks.concurrency, ...deps.processor },
    metrics,
  );
  metrics.webhookBacklogSource = () => processor.backlog();
  const inbox = new WebhookInbox(db.prisma);
  const receiver = new WebhookReceiver(inbox, secrets, processor, clock, logger, metrics, {
    toleranceS: config.webhooks.toleranceS,
  });
  const subscriptions = new WebhookSubscriptionService(deps.remittances, secrets, clock, logger, config.publicUrl);
  let pending: number | null = null;

  const readiness: ReadinessCheck = {
    name: 'webhooks',
    optional: true,
    // "fail" means: unsigned mode, or a stored secret we cannot decrypt. Never makes the instance unready.
    check: async () => {
      const s = await secrets.get();
      pending = await db.prisma.webhookInbox.count({ where: { processedAt: null } }).catch(() => null);
      return s.signed && s.undecryptable === 0;
    },
    details: () => {
      const s = secrets.peek();
      return {
        mode: s ? (s.signed ? 'signed' : 'unsigned') : 'unknown',
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
      if (config.sandbox.enabled) {
        subscriptions.setDefaultPublicUrl(selfUrl);
        try {
          await subscriptions.ensureSandboxRegistration();
        } catch (err) {
          logger.error({ err: { message: (err as Error).message } }, 'sandbox: webhook self-registration failed');
        }
      }
      await secrets.reload().catch((err) => logger.warn({ err: { message: (err as Error).message } }, 'webhook secrets not loaded yet'));
      if (deps.processor?.autoStart !== false) processor.start();
    },
    async close() {
      await processor.stop();
    },
  };
}
