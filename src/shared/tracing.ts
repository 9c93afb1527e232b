/**
 * OpenTelemetry tracing: manual spans (no auto-instrumentation, nothing monkey-patched) in three places —
 * GraphQL operations and their root fields (src/graphql/tracing.ts), each upstream HTTP attempt
 * (UpstreamCaller) and each database statement (db.onQuery, see traceDatabase below).
 *
 * Off unless OTEL_EXPORTER_OTLP_ENDPOINT is set (or a test passes span processors): no SDK is loaded, no
 * provider or context manager is registered, and every instrumentation point checks `tracingActive()`
 * first, so the cost is one boolean test. On: a NodeTracerProvider (AsyncLocalStorage context manager,
 * W3C trace-context propagator) exporting in batches over OTLP/HTTP to `<endpoint>/v1/traces`.
 *
 * Attributes never carry PII or secrets: operation and field names, upstream service/operation/status,
 * parameterised SQL (Prisma binds every value; statements with string literals are summarised), ids of
 * our own making. Never variables, bodies, URLs with identifiers, or headers.
 */
import {
  context,
  propagation,
  trace,
  SpanKind,
  SpanStatusCode,
  type Attributes,
  type Context,
  type Span,
  type Tracer,
} from '@opentelemetry/api';
import type { SpanProcessor } from '@opentelemetry/sdk-trace-base';

const TRACER_NAME = 'remittance-bff';
let active = false;

/** True while a tracer provider of ours is registered. */
export const tracingActive = (): boolean => active;

export const tracer = (): Tracer => trace.getTracer(TRACER_NAME);

interface TracingOptions {
  /** OTEL_EXPORTER_OTLP_ENDPOINT (base URL; traces go to `<endpoint>/v1/traces`), or null. */
  otlpEndpoint: string | null;
  serviceName: string;
  /** Extra processors (tests: a SimpleSpanProcessor over an InMemorySpanExporter). */
  spanProcessors?: SpanProcessor[];
}

interface Tracing {
  /** Flushes pending spans and unregisters the provider, the context manager and the propagator. */
  shutdown(): Promise<void>;
}

/** Starts the SDK when configured; null (nothing loaded, nothing registered) otherwise. */
export function startTracing(opts: TracingOptions): Tracing | null {
  const processors: SpanProcessor[] = [...(opts.spanProcessors ?? [])];
  if (!opts.otlpEndpoint && processors.length === 0) return null;
  // Loaded lazily: a service without tracing never requires the SDK.

  const { NodeTracerProvider, BatchSpanProcessor } =
    require('@opentelemetry/sdk-trace-node') as typeof import('@opentelemetry/sdk-trace-node');
  const { resourceFromAttributes } = require('@opentelemetry/resources') as typeof import('@opentelemetry/resources');
  if (opts.otlpEndpoint) {
    const { OTLPTraceExporter } =
      require('@opentelemetry/exporter-trace-otlp-http') as typeof import('@opentelemetry/exporter-trace-otlp-http');
    processors.push(new BatchSpanProcessor(new OTLPTraceExporter({ url: `${opts.otlpEndpoint.replace(/\/+$/, '')}/v1/traces` })));
  }

  const provider = new NodeTracerProvider({
    resource: resourceFromAttributes({ 'service.name': opts.serviceName }),
    spanProcessors: processors,
  });
  provider.register();
  active = true;
  return {
    async shutdown() {
      active = false;
      try {
        await provider.shutdown();
      } finally {
        trace.disable();
        context.disable();
        propagation.disable();
      }
    },
  };
}

/** Runs `fn` inside a new active span (child of the current one); records errors and ends it. */
export async function withSpan<T>(
  name: string,
  attributes: Attributes,
  fn: (span: Span) => Promise<T>,
  kind: SpanKind = SpanKind.INTERNAL,
  parent?: Context,
): Promise<T> {
  const span = tracer().startSpan(name, { kind, attributes }, parent ?? context.active());
  try {
    return await context.with(trace.setSpan(parent ?? context.active(), span), () => fn(span));
  } catch (e) {
    span.recordException(errorForSpan(e));
    span.setStatus({ code: SpanStatusCode.ERROR });
    throw e;
  } finally {
    span.end();
  }
}

/** An exception as a span event: its class and code only (messages may echo upstream text). */
export function errorForSpan(e: unknown): { name: string; message: string } {
  const err = e as { name?: unknown; code?: unknown; kind?: unknown };
  const name = typeof err?.name === 'string' ? err.name : 'Error';
  const code = typeof err?.code === 'string' ? err.code : typeof err?.kind === 'string' ? err.kind : '';
  return { name, message: code || name };
}

const SQL_OPERATION = /^\s*(?:WITH\b[\s\S]*?\)\s*)?(SELECT|INSERT|UPDATE|DELETE|MERGE|CALL|CREATE|ALTER|DROP|TRUNCATE|LOCK)\b/i;
const SQL_TABLE = /\b(?:FROM|INTO|UPDATE|JOIN)\s+((?:"[^"]+"\.)?"[^"]+"|[\w.]+)/i;

/**
 * A span for one database statement, reported after it ran (by db.onQuery, which sees every statement at
 * the driver-adapter boundary, inside and outside transactions), so its start is back-dated by its duration.
 */
export function traceDatabase(
  onQuery: (
    listener: (e: { sql: string; durationMs: number; params: number; inTransaction: boolean; error?: boolean }) => void,
  ) => () => void,
): () => void {
  return onQuery((e) => {
    if (!active) return;
    const parent = context.active();
    if (!trace.getSpan(parent)) return; // statements outside any traced operation (workers, migrations) are not traced
    const op = SQL_OPERATION.exec(e.sql)?.[1]?.toUpperCase() ?? 'QUERY';
    const table = SQL_TABLE.exec(e.sql)?.[1]?.replace(/"/g, '');
    const end = Date.now();
    const span = tracer().startSpan(
      table ? `${op} ${table}` : op,
      {
        kind: SpanKind.CLIENT,
        startTime: end - e.durationMs,
        attributes: {
          'db.system.name': 'postgresql',
          'db.operation.name': op,
          ...(table ? { 'db.collection.name': table } : {}),
          // Prisma binds every value ($1, $2, …); a statement with a string literal in it is not exported
          ...(!e.sql.includes("'") ? { 'db.query.text': e.sql.slice(0, 2000) } : {}),
          'db.query.parameter_count': e.params,
          'db.transaction': e.inTransaction,
        },
      },
      parent,
    );
    if (e.error) span.setStatus({ code: SpanStatusCode.ERROR });
    span.end(end);
  });
}

/** The current trace and span ids, for log lines (only while tracing is on and a span is active). */
export function currentTraceIds(): { traceId: string; spanId: string } | undefined {
  if (!active) return undefined;
  const sc = trace.getActiveSpan()?.spanContext();
  return sc ? { traceId: sc.traceId, spanId: sc.spanId } : undefined;
}

export { SpanKind, SpanStatusCode, context, trace, propagation };
export type { Span };
