import Fastify, { type FastifyInstance, type FastifyReply } from 'fastify';
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

/** How long an anonymous `/readyz` answer is reused: a flood of probes costs one evaluation per second at most. */
const READINESS_CACHE_MS = 1_000;

interface Readiness {
  ready: boolean;
  status: 'ready' | 'unavailable' | 'draining';
  checks: Record<string, { status: 'ok' | 'fail'; details?: Record<string, unknown> }>;
}

/**
 * `/healthz` (the process runs), `/readyz` (dependencies up, migrations applied), and `/metrics` (Prometheus) when
 * `metrics` is given — outside production only: production serves it on its own listener (`createMetricsServer`).
 *
 * `/readyz` tells anyone only whether the instance is ready (`{ status }`, 200 or 503), from an evaluation reused
 * for a second; each check, with its details (fingerprints, counts), is shown — evaluated afresh — to an admin's
 * bearer token (`isAdmin`), and on the metrics listener.
 */
export function registerHealthRoutes(
  app: FastifyInstance,
  opts: {
    checks: ReadinessCheck[];
    metrics?: Metrics;
    isDraining: () => boolean;
    checkTimeoutMs?: number;
    /** Whether an Authorization header is an admin's (details shown). */
    isAdmin?: (authorization: string | undefined) => Promise<boolean>;
  },
): ReadinessProbe {
  const probe = readinessProbe(opts);
  app.get('/healthz', async () => ({ status: 'ok' }));
  app.get('/readyz', async (req, reply) => {
    // a token is looked at only when one is sent: the common probe costs no verification
    const header = req.headers.authorization;
    const details = header && opts.isAdmin ? await opts.isAdmin(header).catch(() => false) : false;
    return sendReadiness(reply, details ? await probe.evaluate() : await probe.cached(), details);
  });
  if (opts.metrics) registerMetricsRoute(app, opts.metrics);
  return probe;
}

interface ReadinessProbe {
  /** Runs every check now. */
  evaluate(): Promise<Readiness>;
  /** The last evaluation when under a second old (or the one under way), else a new one. */
  cached(): Promise<Readiness>;
}

function readinessProbe(opts: { checks: ReadinessCheck[]; isDraining: () => boolean; checkTimeoutMs?: number }): ReadinessProbe {
  let last: { at: number; result: Promise<Readiness> } | null = null;
  const evaluate = async (): Promise<Readiness> => {
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
      results.map((r) => [r.name, { status: r.ok ? ('ok' as const) : ('fail' as const), ...(r.details ? { details: r.details } : {}) }]),
    );
    return { ready, status: draining ? 'draining' : ready ? 'ready' : 'unavailable', checks };
  };
  return {
    evaluate,
    cached() {
      const now = Date.now();
      if (!last || now - last.at >= READINESS_CACHE_MS || opts.isDraining()) last = { at: now, result: evaluate() };
      return last.result;
    },
  };
}

/** 200 when ready, else 503; the status alone, or with every check and its details. */
function sendReadiness(reply: FastifyReply, r: Readiness, details: boolean) {
  return reply
    .code(r.ready ? 200 : 503)
    .header('cache-control', 'no-store')
    .send(details ? { status: r.status, checks: r.checks } : { status: r.status });
}

function registerMetricsRoute(app: FastifyInstance, metrics: Metrics): void {
  app.get('/metrics', async (_req, reply) => {
    const body = await metrics.text();
    return reply.header('content-type', metrics.registry.contentType).header('cache-control', 'no-store').send(body);
  });
}

/**
 * The metrics listener (METRICS_HOST:METRICS_PORT): `GET /metrics`, and `GET /readyz` with every check's details, and
 * nothing else, so operation names, webhook outcomes, upstream statistics and readiness details stay off the public
 * API port; bind it to a private interface for Prometheus.
 */
export function createMetricsServer(metrics: Metrics, readiness?: ReadinessProbe): FastifyInstance {
  const app = Fastify({ logger: false, forceCloseConnections: true });
  registerMetricsRoute(app, metrics);
  if (readiness) app.get('/readyz', async (_req, reply) => sendReadiness(reply, await readiness.evaluate(), true));
  return app;
}
