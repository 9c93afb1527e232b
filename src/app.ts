/**
 * The composition root: the shared infrastructure (app.infra.ts), then every module of MODULES in order (the one
 * module contract, src/modules/module.ts), then the HTTP and GraphQL edges. Nothing else constructs services,
 * clients or connections.
 */
import type { FastifyInstance } from 'fastify';
import type { DestinationStream } from 'pino';
import type { SpanProcessor } from '@opentelemetry/sdk-trace-base';
import type { Config } from './config';
import { closeAll, createInfrastructure, migrateWhenReachable, type Closer, type Infrastructure } from './app.infra';
import { systemClock, type Clock } from './shared/clock';
import { createLogger, type Logger } from './shared/logger';
import { Metrics } from './shared/metrics';
import { trustedProxies } from './shared/trust-proxy';
import { createGraphQLServer } from './graphql/graphql.server';
import { traceRootFields } from './graphql/tracing';
import { tracingActive } from './shared/tracing';
import { createHttpServer } from './http/http.server';
import { createMetricsServer, registerHealthRoutes } from './http/health.routes';
import { Provisions, type ModuleDeps, type ModuleParts, type Provided } from './modules/module';
import { buildApiSchema, MODULES } from './modules/modules';

export interface AppOptions {
  clock?: Clock;
  /** Where log lines go (tests capture them to check redaction). Defaults to stdout. */
  logDestination?: DestinationStream;
  /** Webhook inbox processor tuning (tests: `{ autoStart: false }` stores without processing). */
  webhookProcessor?: ModuleDeps['options']['webhookProcessor'];
  /** Span processors to trace into even without OTEL_EXPORTER_OTLP_ENDPOINT (tests: an in-memory exporter). */
  traceSpanProcessors?: SpanProcessor[];
  /** In-memory PGlite only: start from this data-directory dump instead of running initdb (tests: a migrated template). */
  pgliteLoadDataDir?: Blob;
}

export interface App extends Infrastructure {
  readonly config: Config;
  readonly logger: Logger;
  readonly metrics: Metrics;
  readonly fastify: FastifyInstance;
  /** The metrics listener (METRICS_PORT), when there is one. */
  readonly metricsServer: FastifyInstance | null;
  /** The transfer saga: service (also the webhook inbox's sink), worker, repository, subscriptions. */
  readonly transfers: Provided['transfers'];
  readonly webhooks: Provided['webhooks'];
  /** Listens, then applies migrations (retrying while the database is unreachable), then starts the modules. */
  start(): Promise<{ url: string }>;
  /** Graceful shutdown: stop accepting, finish in-flight requests, close websockets (1001), close everything. */
  close(): Promise<void>;
}

export async function createApp(config: Config, options: AppOptions = {}): Promise<App> {
  const clock = options.clock ?? systemClock;
  const logger = createLogger({ level: config.logLevel, name: 'remittance-bff', destination: options.logDestination });
  const metrics = new Metrics();
  const closers: Closer[] = [];
  let draining = false;
  try {
    const infra = await createInfrastructure(
      config,
      { clock, logger, metrics, traceSpanProcessors: options.traceSpanProcessors, pgliteLoadDataDir: options.pgliteLoadDataDir },
      closers,
    );
    const provided = new Provisions();
    const deps: ModuleDeps = {
      config,
      clock,
      logger,
      metrics,
      ...infra,
      prisma: infra.db.prisma,
      provided,
      options: { webhookProcessor: options.webhookProcessor },
    };
    const modules: ModuleParts[] = [];
    for (const definition of MODULES) {
      const parts = definition.create(deps);
      if ((parts.resolvers ?? []).length !== definition.resolvers.length)
        throw new Error(`module ${definition.name}: one instance per resolver class`);
      if (parts.provides) provided.provide(parts.provides);
      if (parts.close) closers.push({ name: definition.name, close: parts.close });
      modules.push(parts);
    }
    const instances = new Map(
      MODULES.flatMap((m, i) => m.resolvers.map((cls, j): [Function, object] => [cls, modules[i]!.resolvers![j]!])),
    );
    const schema = await buildApiSchema({ resolvers: instances, pubSub: infra.pubsub });
    for (const m of modules) m.onSchema?.(schema);
    // a span per root field: only while tracing is on (it is started, or not, with the infrastructure above)
    if (tracingActive()) traceRootFields(schema);

    const proxies = trustedProxies(config.trustProxy);
    const fastify = createHttpServer(config, proxies, logger, metrics);
    const upstreamErrors = MODULES.flatMap((m) => m.upstreamErrors ?? []);
    const graphql = await createGraphQLServer({
      config,
      schema,
      auth: infra.auth,
      fastify,
      proxies,
      clock,
      logger,
      metrics,
      upstreamErrors,
      isDraining: () => draining,
    });
    const readiness = registerHealthRoutes(fastify, {
      checks: [
        { name: 'database', check: () => infra.db.isReady() },
        { name: 'pubsub', check: async () => infra.pubsub.healthy(), details: () => ({ kind: infra.pubsub.kind }) },
        ...modules.flatMap((m) => m.readiness ?? []),
      ],
      metrics: config.metrics.onApiPort ? metrics : undefined,
      isDraining: () => draining,
      isAdmin: async (header) => {
        const caller = infra.auth.cachedFromAuthorizationHeader(header) ?? (await infra.auth.fromAuthorizationHeader(header));
        return caller?.role === 'admin';
      },
    });
    // Prometheus on its own listener (always in production, where the API port has no /metrics)
    const metricsServer = config.metrics.port !== null ? createMetricsServer(metrics, readiness) : null;
    if (metricsServer) closers.push({ name: 'metrics listener', close: () => metricsServer.close() });
    for (const m of modules) await m.routes?.(fastify);

    return {
      config,
      logger,
      metrics,
      ...infra,
      fastify,
      metricsServer,
      transfers: provided.get('transfers'),
      webhooks: provided.get('webhooks'),
      async start() {
        const address = await fastify.listen({ port: config.port, host: config.host });
        if (metricsServer)
          logger.info(
            { address: await metricsServer.listen({ port: config.metrics.port!, host: config.metrics.host }) },
            'metrics listening',
          );
        await migrateWhenReachable(infra.db, logger, () => draining);
        const port = (fastify.server.address() as { port: number }).port;
        const host = config.host === '0.0.0.0' || config.host === '::' ? '127.0.0.1' : config.host;
        const url = `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
        for (const m of modules) await m.start?.(url);
        logger.info({ address }, 'ready');
        return { url };
      },
      async close() {
        if (draining) return;
        draining = true;
        logger.info('shutting down: closing websockets, draining HTTP');
        await graphql.close();
        await closeAll(closers, logger);
        logger.info('shut down');
      },
    };
  } catch (e) {
    await closeAll(closers, logger);
    throw e;
  }
}
