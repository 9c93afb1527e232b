import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

/**
 * All Prometheus metrics of one service instance, on one registry (built once in the composition root,
 * so tests can run several instances in one process without "metric already registered" errors).
 */
export class Metrics {
  readonly registry = new Registry();

  readonly graphqlRequests = new Counter({
    name: 'graphql_requests_total',
    help: 'GraphQL operations executed, by operation name, type and outcome',
    labelNames: ['operation', 'type', 'outcome'] as const,
    registers: [this.registry],
  });
  readonly graphqlDuration = new Histogram({
    name: 'graphql_request_duration_seconds',
    help: 'GraphQL operation latency, by operation name and type',
    labelNames: ['operation', 'type'] as const,
    buckets: [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [this.registry],
  });
  readonly graphqlJitCompilations = new Counter({
    name: 'graphql_jit_compilations_total',
    help: 'Operations compiled by graphql-jit (GRAPHQL_JIT), by outcome: compiled, or fallback to graphql-js',
    labelNames: ['outcome'] as const,
    registers: [this.registry],
  });
  readonly graphqlJitExecutions = new Counter({
    name: 'graphql_executions_total',
    help: 'GraphQL operations executed over HTTP while GRAPHQL_JIT is on, by engine: graphql-jit or graphql-js (fallback)',
    labelNames: ['engine'] as const,
    registers: [this.registry],
  });
  readonly httpRequests = new Counter({
    name: 'http_requests_total',
    help: 'HTTP requests, by route and status code',
    labelNames: ['route', 'method', 'status'] as const,
    registers: [this.registry],
  });
  readonly upstreamRequests = new Counter({
    name: 'upstream_requests_total',
    help: 'Calls to upstream APIs, by service, operation and outcome',
    labelNames: ['service', 'operation', 'outcome'] as const,
    registers: [this.registry],
  });
  readonly upstreamDuration = new Histogram({
    name: 'upstream_request_duration_seconds',
    help: 'Upstream call latency, by service, operation and outcome',
    labelNames: ['service', 'operation', 'outcome'] as const,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
    registers: [this.registry],
  });
  readonly webhookEventsProcessed = new Counter({
    name: 'webhook_events_processed_total',
    help: 'Webhook inbox events finished by the processor, by outcome (applied, stale, no_change, unknown_transfer, dead_letter, …)',
    labelNames: ['outcome'] as const,
    registers: [this.registry],
  });
  readonly webhookRetries = new Counter({
    name: 'webhook_event_retries_total',
    help: 'Webhook inbox events rescheduled, by reason: error (applying threw; backoff) or unknown_transfer (grace period)',
    labelNames: ['reason'] as const,
    registers: [this.registry],
  });
  readonly webhookDeadLettered = new Counter({
    name: 'webhook_events_dead_lettered_total',
    help: 'Webhook inbox events given up after WEBHOOK_MAX_ATTEMPTS failed attempts (outcome dead_letter; requeue from the back-office)',
    registers: [this.registry],
  });
  readonly webhookEventsRejected = new Counter({
    name: 'webhook_events_rejected_total',
    help: 'Signed webhook events that contradicted what we know and had no effect (outcome mismatch), by reason: tenant, transaction_id, transaction_conflict',
    labelNames: ['reason'] as const,
    registers: [this.registry],
  });
  readonly webhookProcessingLag = new Histogram({
    name: 'webhook_event_processing_lag_seconds',
    help: 'Webhook inbox events: time from receipt to a recorded outcome',
    buckets: [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 900, 3600],
    registers: [this.registry],
  });
  /** Set by the webhook module: counts the inbox's due unprocessed events when /metrics is scraped. */
  webhookBacklogSource: (() => Promise<number>) | null = null;
  readonly webhookInboxBacklog: Gauge = new Gauge({
    name: 'webhook_inbox_backlog',
    help: 'Webhook inbox events not processed yet and due now (read from the database on scrape)',
    registers: [this.registry],
    collect: async () => {
      const n = await this.webhookBacklogSource?.().catch(() => null);
      if (n !== undefined && n !== null) this.webhookInboxBacklog.set(n);
    },
  });

  constructor(opts: { defaultMetrics?: boolean } = {}) {
    if (opts.defaultMetrics ?? true) collectDefaultMetrics({ register: this.registry });
  }
}
