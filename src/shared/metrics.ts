import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

/** A label set bound once: what a hot path keeps (or looks up by its values) instead of passing label objects. */
export interface BoundCounter {
  inc(n?: number): void;
}
export interface BoundHistogram {
  observe(value: number): void;
}

/**
 * Bound entries by their label values, one Map level per label (a lookup builds no key string), and in a list for
 * collection.
 */
class ByLabels<T> {
  private readonly root = new Map<string, unknown>();
  readonly all: T[] = [];

  /** `make` builds the entry of a label set seen for the first time (given once: a lookup allocates no closure). */
  constructor(private readonly make: (values: readonly string[]) => T) {}

  get(values: readonly string[]): T {
    let level = this.root;
    const last = values.length - 1;
    for (let i = 0; i < last; i++) {
      let next = level.get(values[i]!) as Map<string, unknown> | undefined;
      if (!next) level.set(values[i]!, (next = new Map()));
      level = next;
    }
    const key = last < 0 ? '' : values[last]!;
    let entry = level.get(key) as T | undefined;
    if (entry === undefined) {
      level.set(key, (entry = this.make(values)));
      this.all.push(entry);
    }
    return entry;
  }
}
const labelsOf = <L extends string>(names: readonly L[], values: readonly string[]) =>
  Object.freeze(Object.fromEntries(names.map((n, i) => [n, values[i] ?? '']))) as Record<L, string>;

/**
 * Bound counters: `bind(...values)` (in `labelNames` order) returns a child whose `inc()` adds to a plain number,
 * folded into the counter whenever it is read (`/metrics`, `get()`: prom-client's `collect` hook) — instead of
 * hashing and checking a label object on every increment.
 */
export function bindable<L extends string>(counter: Counter<L>): Counter<L> & { bind(...values: string[]): BoundCounter } {
  const labelNames = (counter as unknown as { labelNames: readonly L[] }).labelNames;
  const pending = new ByLabels((values) => {
    const entry = { labels: labelsOf(labelNames, values), n: 0, child: null as unknown as BoundCounter };
    entry.child = { inc: (n = 1) => void (entry.n += n) };
    return entry;
  });
  const collect = (counter as unknown as { collect?: () => unknown }).collect;
  (counter as unknown as { collect: () => unknown }).collect = () => {
    for (const e of pending.all)
      if (e.n !== 0) {
        counter.inc(e.labels, e.n);
        e.n = 0;
      }
    return collect?.call(counter);
  };
  return Object.assign(counter, {
    bind(...values: string[]): BoundCounter {
      return pending.get(values).child;
    },
  });
}

/** One label set's observations not yet folded into the histogram. */
interface PendingObservations {
  labels: Record<string, string>;
  sum: number;
  count: number;
  /** Observations per bucket (not cumulative), in the histogram's bucket order; above the last bound: none. */
  buckets: Float64Array;
  child: BoundHistogram;
}

/** prom-client 15's per-label-set record of a histogram (what `observe` updates and `zero` creates). */
interface HistogramEntry {
  labels: object;
  bucketValues: Record<number, number>;
  sum: number;
  count: number;
}

/**
 * Bound histograms: like `bindable` for counters — an observation adds to the label set's own bucket counts, sum and
 * count; they are added into prom-client's record of the label set (created with `zero`) when the histogram is read.
 * The record's shape is prom-client 15's (pinned; test/unit/metrics-bound.test.ts compares the output with plain
 * `observe` calls).
 */
export function bindableHistogram<L extends string>(histogram: Histogram<L>): Histogram<L> & { bind(...values: string[]): BoundHistogram } {
  const h = histogram as unknown as { labelNames: readonly L[]; upperBounds: readonly number[]; hashMap: Record<string, HistogramEntry> };
  const bounds = h.upperBounds;
  const pending = new ByLabels((values): PendingObservations => {
    const entry: PendingObservations = {
      labels: labelsOf(h.labelNames, values),
      sum: 0,
      count: 0,
      buckets: new Float64Array(bounds.length),
      child: null as unknown as BoundHistogram,
    };
    entry.child = {
      observe: (v: number) => {
        if (!Number.isFinite(v)) throw new TypeError(`Value is not a valid number: ${v}`);
        entry.sum += v;
        entry.count++;
        for (let i = 0; i < bounds.length; i++)
          if (v <= bounds[i]!) {
            entry.buckets[i]!++;
            break;
          }
      },
    };
    return entry;
  });
  const fold = (p: PendingObservations) => {
    const find = () => Object.values(h.hashMap).find((e) => e.labels === p.labels);
    let entry = find();
    if (!entry) {
      histogram.zero(p.labels as Record<L, string>);
      entry = find();
    }
    if (!entry) throw new Error('prom-client histogram: no record for a bound label set');
    entry.sum += p.sum;
    entry.count += p.count;
    for (let i = 0; i < bounds.length; i++) entry.bucketValues[bounds[i]!] = (entry.bucketValues[bounds[i]!] ?? 0) + p.buckets[i]!;
    p.sum = 0;
    p.count = 0;
    p.buckets.fill(0);
  };
  const collect = (histogram as unknown as { collect?: () => unknown }).collect;
  (histogram as unknown as { collect: () => unknown }).collect = () => {
    for (const p of pending.all) if (p.count !== 0) fold(p);
    return collect?.call(histogram);
  };
  return Object.assign(histogram, {
    bind(...values: string[]): BoundHistogram {
      return pending.get(values).child;
    },
  });
}

/** `auth_token_cache_total{outcome="hit"|"miss"}` on the service's registry (registered only while the cache is on). */
export function tokenCacheCounter(registry: Registry) {
  const counter = bindable(
    new Counter({
      name: 'auth_token_cache_total',
      help: 'Bearer token verifications answered from the verification cache (hit) or by checking the signature (miss)',
      labelNames: ['outcome'] as const,
      registers: [registry],
    }),
  );
  return { hit: counter.bind('hit'), miss: counter.bind('miss') };
}

/**
 * All Prometheus metrics of one service instance, on one registry (built once in the composition root,
 * so tests can run several instances in one process without "metric already registered" errors).
 */
export class Metrics {
  readonly registry = new Registry();

  readonly graphqlRequests = bindable(
    new Counter({
      name: 'graphql_requests_total',
      help: 'GraphQL requests over HTTP, by operation name, type and outcome',
      labelNames: ['operation', 'type', 'outcome'] as const,
      registers: [this.registry],
    }),
  );
  readonly graphqlDuration = bindableHistogram(
    new Histogram({
      name: 'graphql_request_duration_seconds',
      help: 'GraphQL request latency over HTTP, by operation name and type',
      labelNames: ['operation', 'type'] as const,
      buckets: [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers: [this.registry],
    }),
  );
  readonly graphqlJitCompilations = bindable(
    new Counter({
      name: 'graphql_jit_compilations_total',
      help: 'Operations compiled by graphql-jit (GRAPHQL_JIT), by outcome: compiled, or fallback to graphql-js',
      labelNames: ['outcome'] as const,
      registers: [this.registry],
    }),
  );
  readonly graphqlJitExecutions = bindable(
    new Counter({
      name: 'graphql_executions_total',
      help: 'GraphQL operations executed over HTTP while GRAPHQL_JIT is on, by engine: graphql-jit or graphql-js (fallback)',
      labelNames: ['engine'] as const,
      registers: [this.registry],
    }),
  );
  readonly httpRequests = bindable(
    new Counter({
      name: 'http_requests_total',
      help: 'HTTP requests, by route and status code',
      labelNames: ['route', 'method', 'status'] as const,
      registers: [this.registry],
    }),
  );
  readonly connectionsRefused = new Counter({
    name: 'http_connections_refused_total',
    help: 'Connections closed on arrival: their client address already had HTTP_MAX_CONNECTIONS_PER_CLIENT open',
    registers: [this.registry],
  });
  readonly upstreamRequests = bindable(
    new Counter({
      name: 'upstream_requests_total',
      help: 'Calls to upstream APIs, by service, operation and outcome',
      labelNames: ['service', 'operation', 'outcome'] as const,
      registers: [this.registry],
    }),
  );
  readonly upstreamDuration = bindableHistogram(
    new Histogram({
      name: 'upstream_request_duration_seconds',
      help: 'Upstream call latency, by service, operation and outcome',
      labelNames: ['service', 'operation', 'outcome'] as const,
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
      registers: [this.registry],
    }),
  );
  readonly refunds = new Counter({
    name: 'transfer_refunds_total',
    help: 'Refunds of captured money by outcome: requested, succeeded, failed (refused by the gateway: needs a person), unknown (answer lost: retried with the same refund id)',
    labelNames: ['outcome'] as const,
    registers: [this.registry],
  });
  readonly webhookDeliveries = new Counter({
    name: 'webhook_deliveries_total',
    help: 'Webhook deliveries received, by outcome (stored, duplicate, unsigned, bad_signature, unsigned_refused, bad_request, unavailable)',
    labelNames: ['outcome'] as const,
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

  /** Node's process metrics (CPU, memory, event loop, GC) beside this instance's, unless turned off. */
  private readonly processRegistry: Registry | null;

  constructor(opts: { defaultMetrics?: boolean } = {}) {
    this.processRegistry = (opts.defaultMetrics ?? true) ? processMetrics() : null;
  }

  /** The exposition text of `GET /metrics`: this instance's metrics, then the process's. */
  async text(): Promise<string> {
    const own = await this.registry.metrics();
    return this.processRegistry ? `${own}${await this.processRegistry.metrics()}` : own;
  }
}

/**
 * Node's default process metrics, collected once per process on a registry of their own. prom-client's collector
 * keeps a GC observer for good that holds the registry it was given: were that an instance's registry, every
 * instance ever built (tests build many) would stay in memory with everything its metrics' collect callbacks reach.
 */
let processRegistry: Registry | null = null;
function processMetrics(): Registry {
  if (!processRegistry) {
    processRegistry = new Registry();
    collectDefaultMetrics({ register: processRegistry });
  }
  return processRegistry;
}
