import { z } from 'zod';
import { bool, configDocs, doc, int, type EnvOf } from './config.fields';

/** The transfer saga's worker, leases and retries, the capture and cancel windows, idempotency records. */
export const sagaFields = {
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
};

export interface SagaConfig {
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
}

export function sagaConfig(e: EnvOf<typeof sagaFields>): SagaConfig {
  return {
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
  };
}
