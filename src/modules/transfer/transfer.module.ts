import { LRUCache } from 'lru-cache';
import type { Config } from '../../config';
import type { PubSub } from '../../events/pubsub';
import type { PrismaClient } from '../../generated/prisma/client';
import type { RawSql } from '../../db/raw-sql';
import type { Clock } from '../../shared/clock';
import { IdempotencyService } from '../../db/idempotency.service';
import type { Logger } from '../../shared/logger';
import type { GatewayClient } from '../../upstream/gateway/gateway.client';
import type { RemittancesClient } from '../../upstream/remittances/remittances.client';
import type { FundingCredentials } from '../checks/checks.ports';
import { isUpstreamError } from '../../upstream/http/upstream.errors';
import type { PlatformTransactionLookup } from './transfer.ports';
import { PlatformReconciler } from './transfer.reconciler';
import { crashHook } from './transfer.faults';
import { TransferRepository } from './transfer.repository';
import { TransferSaga } from './transfer.saga';
import { TransferService } from './transfer.service';
import type { SavedRecipientLookup } from '../recipient/recipient.ports';
import { TransferSubscriptions } from './transfer.subscriptions';
import { TransferWorker } from './transfer.worker';
import { transferLoaders } from './transfer.loaders';
import { TransferResolver } from './transfer.resolver';
import { FailureResolver } from './transfer.failure.resolver';
import { registerTransferSubscriptions } from './transfer.subscriptions';
import type { Metrics } from '../../shared/metrics';
import { defineModule } from '../module';

export interface TransfersModule {
  repository: TransferRepository;
  saga: TransferSaga;
  /** The use cases; also the webhook inbox's TransferEventSink (applyPlatformEvent). */
  service: TransferService;
  worker: TransferWorker;
  subscriptions: TransferSubscriptions;
  idempotency: IdempotencyService;
}

/** Wiring of the transfer module, called once by the composition root (src/app.ts). */
function createTransfersModule(deps: {
  config: Config;
  prisma: PrismaClient;
  /** Raw statements outside transactions (Database.sql): on PostgreSQL beside Prisma. */
  sql: RawSql;
  pubsub: PubSub;
  gateway: GatewayClient;
  /** For reconciling with the platform when its webhooks are late or lost (absent: never reconcile). */
  remittances?: RemittancesClient;
  /** Who may fund with which card / account token (bound by the checks). */
  credentials: FundingCredentials;
  clock: Clock;
  logger: Logger;
  /** Where transfer_refunds_total goes (absent: not counted). */
  metrics?: Metrics;
  /** The callers' saved recipients, for createTransfer(recipientId) (absent: every recipientId is NOT_FOUND). */
  recipients?: SavedRecipientLookup;
}): TransfersModule {
  const { config, prisma, pubsub, gateway, clock } = deps;
  const logger = deps.logger.child({ module: 'transfers' });
  const s = config.saga;
  const idempotency = new IdempotencyService(prisma, deps.sql, clock, {
    ttlMs: s.idempotencyTtlMs,
    waitMs: s.idempotencyWaitMs,
    staleAfterMs: Math.max(s.leaseMs, 60_000),
  });
  const repository = new TransferRepository(prisma, deps.sql, pubsub, clock, logger);
  const saga = new TransferSaga(
    prisma,
    repository,
    gateway,
    clock,
    logger,
    {
      leaseMs: s.leaseMs,
      reconcileAfterMs: s.reconcileAfterMs,
      captureWindowMs: s.captureWindowMs,
      retryBaseMs: s.retryBaseMs,
      retryMaxMs: s.retryMaxMs,
    },
    crashHook(s.crashAt, config.production),
  );
  const remittances = deps.remittances;
  // A payment's platform transaction never changes: answers are kept (an event that changes nothing does not link)
  const known = new LRUCache<string, string>({ max: 10_000 });
  const platform: PlatformTransactionLookup | undefined = remittances && {
    async transactionIdOf(externalPaymentId) {
      const hit = known.get(externalPaymentId);
      if (hit) return hit;
      try {
        const tx = (await remittances.getFxTransaction(externalPaymentId)) as { transactionId?: unknown };
        if (typeof tx.transactionId !== 'string' || tx.transactionId === '') return null;
        known.set(externalPaymentId, tx.transactionId);
        return tx.transactionId;
      } catch (e) {
        if (isUpstreamError(e) && e.status === 404) return null;
        throw e; // transient: the inbox retries the event
      }
    },
  };
  const service = new TransferService(prisma, repository, saga, idempotency, deps.credentials, clock, logger, {
    leaseWaitMs: s.mutationLeaseWaitMs,
    cancelWindowMs: s.cancelWindowMs,
    corridors: config.corridors,
    platform,
    recipients: deps.recipients,
    threeDSReturnUrls: config.threeDSReturnUrls,
  });
  const worker = new TransferWorker(saga, idempotency, logger, {
    pollIntervalMs: s.pollIntervalMs,
    leaseMs: s.leaseMs,
    batchSize: s.batchSize,
    concurrency: s.concurrency,
  });
  if (s.workerEnabled) service.nudge = () => worker.nudge();
  if (deps.remittances) {
    saga.reconciler = new PlatformReconciler(deps.remittances, service, clock, logger);
    const platformApi = deps.remittances;
    saga.platform = { cancel: async (externalPaymentId) => void (await platformApi.cancelFxTransaction(externalPaymentId)) };
  }
  if (deps.metrics) {
    const refunds = deps.metrics.refunds;
    saga.onRefund = (outcome) => refunds.inc({ outcome });
  }
  const subscriptions = new TransferSubscriptions(prisma, pubsub, repository, service);
  return { repository, saga, service, worker, subscriptions, idempotency };
}

/** transfers: the saga from createTransfer to COMPLETED, its worker, the back-office history and the streams. */
export const transfersModule = defineModule({
  name: 'transfers',
  resolvers: [TransferResolver, FailureResolver],
  create: ({ config, db, prisma, pubsub, upstream, clock, logger, metrics, provided }) => {
    const transfers = createTransfersModule({
      config,
      prisma,
      sql: db.sql,
      pubsub,
      gateway: upstream.gateway,
      remittances: upstream.remittances,
      credentials: provided.get('credentials'),
      recipients: provided.get('recipients'),
      clock,
      logger,
      metrics,
    });
    return {
      resolvers: [new TransferResolver(transfers.service, transferLoaders(prisma), config.support), new FailureResolver()],
      onSchema: (schema) => registerTransferSubscriptions(schema, transfers.subscriptions),
      start: () => {
        if (config.saga.workerEnabled) transfers.worker.start();
      },
      close: async () => {
        await transfers.worker.stop();
        await transfers.service.drain();
      },
      provides: { transfers },
    };
  },
});
