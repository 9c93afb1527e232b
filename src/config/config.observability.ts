import { configDocs, doc, httpUrl, int, nonEmpty, type EnvOf } from './config.fields';

/** Prometheus metrics and OpenTelemetry tracing. */
export const observabilityFields = {
  // Tracing: OTLP/HTTP export when set, entirely off otherwise
  OTEL_EXPORTER_OTLP_ENDPOINT: httpUrl
    .optional()
    .register(
      configDocs,
      doc(
        'observability',
        'For example `http://otel-collector:4318`: OpenTelemetry spans (operations, root fields, upstream calls, SQL) exported over OTLP/HTTP to `<endpoint>/v1/traces`. Unset: tracing off, no SDK loaded.',
      ),
    ),
  OTEL_SERVICE_NAME: nonEmpty.default('remittance-bff').register(configDocs, doc('observability', '`service.name` of the exported spans.')),
  // Prometheus scrape endpoint: its own listener (always in production), never on the API port in production
  METRICS_PORT: int(0, 65535)
    .optional()
    .register(
      configDocs,
      doc(
        'observability',
        'Prometheus `GET /metrics` on its own listener (in production only there: 404 on the API port, and it must differ from `PORT`). Outside production, unset = `/metrics` on the API port only; `0` = a free port.',
        { default: 'production: `9464`; elsewhere unset' },
      ),
    ),
  METRICS_HOST: nonEmpty
    .default('127.0.0.1')
    .register(configDocs, doc('observability', "Address of the metrics listener: a private interface (the pod's), never a public one.")),
};

export interface ObservabilityConfig {
  /**
   * Prometheus `/metrics`: on its own listener at host:port when port is set (always in production; port 0 = a
   * free port), and on the API port too only outside production.
   */
  metrics: { port: number | null; host: string; onApiPort: boolean };
  /** OpenTelemetry: spans exported over OTLP/HTTP to `<otlpEndpoint>/v1/traces`; null = tracing off (no SDK started). */
  tracing: { otlpEndpoint: string | null; serviceName: string };
}

export function observabilityConfig(e: EnvOf<typeof observabilityFields>, production: boolean): ObservabilityConfig {
  return {
    metrics: { port: e.METRICS_PORT ?? (production ? 9464 : null), host: e.METRICS_HOST, onApiPort: !production },
    tracing: { otlpEndpoint: e.OTEL_EXPORTER_OTLP_ENDPOINT ?? null, serviceName: e.OTEL_SERVICE_NAME },
  };
}
