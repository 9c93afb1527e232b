import Fastify, { type FastifyInstance } from 'fastify';
import type { Metrics } from '../shared/metrics';

export interface ReadinessCheck {
  name: string;
  /** Resolves true when healthy. Slow checks are cut off after the timeout and count as failed. */
  check(): Promise<boolean>;
  /** A failed optional check is reported but does not make the instance unready. */
  optional?: boolean;
  /** Extra, non-secret facts shown in /readyz (e.g. "webhooks: unsigned mode"). */
  details?(): Record<string, unknown>;
}

const withTimeout = (p: Promise<boolean>, ms: number) =>
  Promise.race([p.catch(() => false), new Promise<boolean>((r) => setTimeout(() => r(false), ms).unref())]);

/**
 * `/healthz` (the process runs), `/readyz` (dependencies up, migrations applied), and `/metrics` (Prometheus) when
 * `metrics` is given — outside production only: production serves it on its own listener (`createMetricsServer`).
 */
export function registerHealthRoutes(
  app: FastifyInstance,
  opts: { checks: ReadinessCheck[]; metrics?: Metrics; isDraining: () => boolean; checkTimeoutMs?: number },
): void {
  app.get('/healthz', async () => ({ status: 'ok' }));

  app.get('/readyz', async (_req, reply) => {
    const results = await Promise.all(
      opts.checks.map(async (c) => ({
        name: c.name,
        ok: await withTimeout(c.check(), opts.checkTimeoutMs ?? 2_000),
        optional: c.optional ?? false,
        details: c.details?.(),
      })),
    );
    const draining = opts.isDraining();
    const ready = !draining && results.every((r) => r.ok || r.optional);
    const checks = Object.fromEntries(
      results.map((r) => [r.name, { status: r.ok ? 'ok' : 'fail', ...(r.details ? { details: r.details } : {}) }]),
    );
    return reply
      .code(ready ? 200 : 503)
      .header('cache-control', 'no-store')
      .send({ status: draining ? 'draining' : ready ? 'ready' : 'unavailable', checks });
  });

  if (opts.metrics) registerMetricsRoute(app, opts.metrics);
}

function registerMetricsRoute(app: FastifyInstance, metrics: Metrics): void {
  app.get('/metrics', async (_req, reply) => {
    const body = await metrics.text();
    return reply.header('content-type', metrics.registry.contentType).header('cache-control', 'no-store').send(body);
  });
}

/**
 * The metrics listener (METRICS_HOST:METRICS_PORT): `GET /metrics` and nothing else, so operation names, webhook
 * outcomes and upstream statistics stay off the public API port; bind it to a private interface for Prometheus.
 */
export function createMetricsServer(metrics: Metrics): FastifyInstance {
  const app = Fastify({ logger: false, forceCloseConnections: true });
  registerMetricsRoute(app, metrics);
  return app;
}
