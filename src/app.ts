/**
 * The composition root: every dependency is built here, once, with plain constructor injection.
 * Nothing else in the code base constructs services, clients or connections.
 */
import { randomUUID } from 'node:crypto';
import Fastify, { LogController, type FastifyBaseLogger, type FastifyInstance, type RouteHandlerMethod } from 'fastify';
import { ApolloServer } from '@apollo/server';
import { ApolloServerPluginLandingPageDisabled } from '@apollo/server/plugin/disabled';
import { ApolloServerPluginCacheControlDisabled } from '@apollo/server/plugin/disabled';
import { fastifyApolloDrainPlugin, fastifyApolloHandler } from '@as-integrations/fastify';
import type { DestinationStream } from 'pino';
import type { Config } from './config';
import { systemClock, type Clock } from './shared/clock';
import { createLogger, type Logger } from './shared/logger';
import { Metrics } from './shared/metrics';
import { isAppError } from './shared/errors';
import { AuthService } from './auth/auth.service';
import { createDatabase, type Database } from './db/database';
import { isDatabaseUnavailable } from './db/db.errors';
import { MemoryPubSub, type PubSub } from './events/pubsub';
import { RedisPubSub } from './events/redis.pubsub';
import { buildGraphQLSchema, type ResolverInstances } from './graphql/schema';
import { createErrorFormatter } from './graphql/errors';
import { metricsPlugin } from './graphql/metrics.plugin';
import { jitGateway } from './graphql/jit';
import { createGraphQLWsServer, type GraphQLWsServer } from './graphql/ws';
import type { GraphQLContext } from './graphql/context';
import { createMetricsServer, registerHealthRoutes, type ReadinessCheck } from './http/health.routes';
import { GRAPHIQL_HTML_HEADERS, graphiqlHtml, graphiqlInstalled, graphiqlPlugin, prefersHtml } from './http/graphiql.routes';
import { loadSandbox, type RunningSandbox } from './sandbox.loader';
import { createUpstreamClients, type UpstreamClients } from './upstream/upstream.clients';
import { ViewerResolver } from './modules/viewer/viewer.resolver';
import { NoticeResolver } from './modules/notices/notice.resolver';
import { NoticeService } from './modules/notices/notice.service';
import { createWebhooksModule, type WebhooksDeps, type WebhooksModule } from './modules/webhooks/webhook.module';
import { WebhookResolver } from './modules/webhooks/webhook.resolver';
import { registerWebhookRoutes } from './http/webhooks.routes';
import { createSurface } from './modules/admin/admin.wiring';
import IORedis from 'ioredis';
import { queryLimits } from './graphql/limits';
import { httpStatusPlugin } from './graphql/http-status';
import { apqOptions } from './graphql/apq';
import { TrustedDocuments } from './graphql/trusted-documents';
import { RateLimiter } from './shared/rate-limit';
import { anonymousRefusal, rateLimitPlugin, rateLimitRefusal, type RateLimitPluginOptions } from './shared/rate-limit.plugin';
import { upstreamCost } from './graphql/upstream-fields';
import { registerRequestContext, setRequestUser } from './shared/request-context';
import { trustedProxies } from './shared/trust-proxy';
import { startTracing, traceDatabase } from './shared/tracing';
import { traceRootFields, tracingPlugin } from './graphql/tracing';
import type { SpanProcessor } from '@opentelemetry/sdk-trace-base';
import { getOperationAST } from 'graphql';
import { FxResolver } from './modules/fx/fx.resolver';
import { FxService } from './modules/fx/fx.service';
import { KycResolver } from './modules/kyc/kyc.resolver';
import { KycService } from './modules/kyc/kyc.service';
import { ChecksResolver } from './modules/checks/checks.resolver';
import { ChecksService } from './modules/checks/checks.service';
import { FundingCredentials } from './modules/checks/checks.credentials';
import { createTransfersModule, type TransfersModule } from './modules/transfers/transfer.module';
import { TransferResolver } from './modules/transfers/transfer.resolver';
import { registerTransferSubscriptions } from './modules/transfers/transfer.subscriptions';

export interface AppOptions {
  clock?: Clock;
  /** Where log lines go (tests capture them to check redaction). Defaults to stdout. */
  logDestination?: DestinationStream;
  /** Webhook inbox processor tuning (tests: `{ autoStart: false }` stores without processing). */
  webhookProcessor?: WebhooksDeps['processor'];
  /** Span processors to trace into even without OTEL_EXPORTER_OTLP_ENDPOINT (tests: an in-memory exporter). */
  traceSpanProcessors?: SpanProcessor[];
}

export interface App {
  readonly config: Config;
  readonly logger: Logger;
  readonly metrics: Metrics;
  readonly db: Database;
  readonly pubsub: PubSub;
  readonly auth: AuthService;
  readonly sandbox: RunningSandbox | null;
  readonly upstream: UpstreamClients;
  /** The transfer saga: service (also the webhook inbox's TransferEventSink), worker, subscriptions. */
  readonly transfers: TransfersModule;
  readonly fastify: FastifyInstance;
  readonly webhooks: WebhooksModule;
  /** Listens, then applies migrations (retrying while the database is unreachable); resolves when ready. */
  start(): Promise<{ url: string }>;
  /** Graceful shutdown: stop accepting, finish in-flight requests, close websockets (1001), close everything. */
  close(): Promise<void>;
}

export async function createApp(config: Config, options: AppOptions = {}): Promise<App> {
  const clock = options.clock ?? systemClock;
  const logger = createLogger({ level: config.logLevel, name: 'remittance-bff', destination: options.logDestination });
  const metrics = new Metrics();
  const closers: { name: string; close: () => Promise<unknown> }[] = [];
  let draining = false;

  try {
    // Tracing first (closed last, so every span is flushed); null when off: no SDK started at all
    const tracing = startTracing({ ...config.tracing, spanProcessors: options.traceSpanProcessors });
    if (tracing) closers.push({ name: 'tracing', close: () => tracing.shutdown() });

    const sandbox = config.sandbox.enabled ? await startBuiltInSandbox(config) : null;
    if (sandbox) {
      closers.push({ name: 'sandbox', close: () => sandbox.close() });
      logger.info({ url: sandbox.url }, 'built-in sandbox started (no upstream base URL configured)');
    }

    const upstream = createUpstreamClients(config, {
      clock,
      metrics,
      logger,
      baseUrls: sandbox
        ? { gateway: `${sandbox.url}/gateway`, remittances: `${sandbox.url}/remittances`, verification: `${sandbox.url}/verification` }
        : undefined,
    });
    closers.push({ name: 'upstream', close: () => upstream.close() });

    const db = await createDatabase(config.database, logger);
    closers.push({ name: 'database', close: () => db.close() });
    if (tracing) traceDatabase((listener) => db.onQuery(listener));

    const pubsub: PubSub = config.redisUrl ? new RedisPubSub(config.redisUrl, logger) : new MemoryPubSub();
    closers.push({ name: 'pubsub', close: () => pubsub.close() });

    const auth = await AuthService.create(config.auth, config.dataDir, clock, metrics.registry);

    // Webhooks from the remittances platform: inbox, processor, signing secrets (src/modules/webhooks)
    const webhooks = createWebhooksModule({
      config,
      db,
      remittances: upstream.remittances,
      // the saga (built below) is the sink; events are applied only after start(), once everything exists
      sink: { applyPlatformEvent: (event) => transfers.service.applyPlatformEvent(event) },
      clock,
      logger,
      metrics,
      processor: options.webhookProcessor,
    });
    closers.push({ name: 'webhooks', close: () => webhooks.close() });

    // Services
    const notices = new NoticeService(pubsub, clock);
    const fx = new FxService(db.prisma, upstream.gateway, clock, config.corridors);
    const kyc = new KycService(db.prisma, upstream.gateway, clock);
    const credentials = new FundingCredentials(db.prisma, clock, { cardCheckMaxAgeMs: config.cardCheckMaxAgeMs });
    const checks = new ChecksService(upstream.gateway, credentials);
    const transfers = createTransfersModule({ config, prisma: db.prisma, pubsub, gateway: upstream.gateway, remittances: upstream.remittances, credentials, clock, logger });
    closers.push({ name: 'transfer worker', close: () => transfers.worker.stop() });

    const surface = createSurface({
      prisma: db.prisma,
      upstream,
      clock,
      directory: config.directory,
      cardCheckLegacyEnabled: config.cardCheckLegacyEnabled,
      credentials,
    });

    // GraphQL
    const resolvers: ResolverInstances = new Map<Function, object>([
      ...surface.resolvers,
      [ViewerResolver, new ViewerResolver()],
      [NoticeResolver, new NoticeResolver(notices)],
      [WebhookResolver, webhooks.resolver],
      [FxResolver, new FxResolver(fx)],
      [KycResolver, new KycResolver(kyc)],
      [ChecksResolver, new ChecksResolver(checks)],
      [TransferResolver, new TransferResolver(transfers.service, db.prisma)],
    ]);
    const schema = await buildGraphQLSchema({ resolvers, pubSub: pubsub });
    registerTransferSubscriptions(schema, transfers.subscriptions);
    traceRootFields(schema);
    const formatError = createErrorFormatter(logger, { hideSchemaDetails: config.production, maxTokens: config.limits.maxTokens });

    const proxies = trustedProxies(config.trustProxy);
    const fastify: FastifyInstance = Fastify({
      // X-Forwarded-For is believed only from TRUST_PROXY's addresses: request.ip is then the client behind them
      trustProxy: proxies.fastify,
      loggerInstance: logger as unknown as FastifyBaseLogger,
      logController: new LogController({ disableRequestLogging: true }),
      bodyLimit: config.limits.bodyLimitBytes,
      forceCloseConnections: 'idle',
      requestIdHeader: false,
      genReqId: (req) => {
        const given = req.headers['x-request-id'];
        return typeof given === 'string' && /^[\w.:-]{8,128}$/.test(given) ? given : randomUUID();
      },
    });
    registerRequestContext(fastify); // request id (and caller) on every log line written for a request
    fastify.addHook('onSend', async (req, reply) => {
      reply.header('x-request-id', req.id);
    });
    fastify.addHook('onResponse', async (req, reply) => {
      metrics.httpRequests.inc({ route: req.routeOptions.url ?? 'unmatched', method: req.method, status: String(reply.statusCode) });
    });

    // Abuse limits: query limits, per-user rate limits, persisted queries (Redis-backed when configured)
    const limitsRedis = config.redisUrl
      ? new IORedis(config.redisUrl, { connectionName: 'remittance-bff-limits', maxRetriesPerRequest: 1, enableOfflineQueue: false })
      : null;
    if (limitsRedis) {
      limitsRedis.on('error', (err) => logger.warn({ err: { message: err.message } }, 'limits redis error'));
      closers.push({ name: 'limits-redis', close: () => limitsRedis.quit().catch(() => limitsRedis.disconnect()) });
    }
    const limits = queryLimits(config);
    // Persisted documents (TRUSTED_DOCUMENTS): checked before Apollo or graphql-ws parse anything
    const trusted = TrustedDocuments.load(config.trustedDocuments.mode, config.trustedDocuments.manifestPath);
    if (trusted) logger.info({ mode: trusted.mode, documents: trusted.size }, 'trusted documents');
    else if (config.production) logger.warn('TRUSTED_DOCUMENTS=off: any document may run (set only to run nothing but the app manifest)');
    const rateLimiter = new RateLimiter(
      {
        mutation: { points: config.rateLimits.mutationsPerMinute, durationS: 60 },
        alias: { points: config.rateLimits.aliasLookupsPerMinute, durationS: 60 },
        upstream: { points: config.budgets.upstreamPointsPerMinute, durationS: 60 },
        anonymous: { points: config.budgets.anonymousPerMinute, durationS: 60 },
      },
      limitsRedis,
    );

    const rateLimitRules: RateLimitPluginOptions = {
      mutationRule: 'mutation',
      queryRules: { resolveAlias: 'alias' },
      upstream: { rule: 'upstream', cost: (document, operation) => upstreamCost(schema, document, operation) },
    };
    /** Unauthenticated traffic (no token, or a bad one) is counted per client address; over → RATE_LIMITED. */
    const countAnonymous = async (ip: string) => {
      const refusal = await anonymousRefusal(rateLimiter, 'anonymous', ip);
      if (refusal) throw refusal;
    };
    const apollo = new ApolloServer<GraphQLContext>({
      // Execution: graphql-jit through Apollo's gateway hook (GRAPHQL_JIT, src/graphql/jit.ts), else graphql-js
      ...(config.graphqlJit ? { gateway: jitGateway({ schema, logger, metrics }) } : { schema }),
      introspection: config.introspection,
      includeStacktraceInErrorResponses: false,
      // Callers authenticate with bearer tokens, never cookies, so cross-site requests carry no credentials.
      csrfPrevention: false,
      // main.ts owns SIGTERM/SIGINT and runs the whole shutdown; Apollo must not race it with its own handler.
      stopOnTerminationSignals: false,
      formatError,
      validationRules: limits.validationRules,
      parseOptions: limits.parseOptions,
      allowBatchedHttpRequests: false,
      persistedQueries: apqOptions({ ttlS: config.apq.ttlS, redis: limitsRedis }),
      plugins: [
        ...limits.plugins,
        httpStatusPlugin(),
        rateLimitPlugin(rateLimiter, rateLimitRules),
        tracingPlugin(),
        fastifyApolloDrainPlugin(fastify),
        ApolloServerPluginLandingPageDisabled(),
        ApolloServerPluginCacheControlDisabled(),
        metricsPlugin(metrics),
      ],
    });
    await apollo.start();

    const apolloHandler = fastifyApolloHandler(apollo, {
      context: async (request): Promise<GraphQLContext> => {
        try {
          const caller = await auth.fromAuthorizationHeader(request.headers.authorization);
          setRequestUser(caller?.userId);
          if (!caller) await countAnonymous(request.ip);
          return { caller, authError: null, requestId: request.id, clientIp: request.ip };
        } catch (e) {
          if (isAppError(e)) {
            await countAnonymous(request.ip);
            return { caller: null, authError: e, requestId: request.id, clientIp: request.ip };
          }
          throw e;
        }
      },
    });

    // GraphiQL's assets come from development dependencies: off (with a warning) in an install without them.
    const graphiql = config.graphiql && graphiqlInstalled();
    if (config.graphiql && !graphiql) logger.warn('GraphiQL is on but its packages (graphiql, react, react-dom: development dependencies) are not installed; not serving it');
    if (graphiql) await fastify.register(graphiqlPlugin);
    fastify.route({
      url: '/graphql',
      method: ['GET', 'POST', 'OPTIONS'],
      handler: async function (request, reply) {
        if (graphiql && request.method === 'GET' && prefersHtml(request.headers.accept) && !hasQueryParam(request.query)) {
          return reply.headers(GRAPHIQL_HTML_HEADERS).send(graphiqlHtml({ endpoint: '/graphql', subscriptionEndpoint: '/graphql' }));
        }
        const refusal = trusted?.applyToHttp(request);
        if (refusal) return reply.code(refusal.status).header('content-type', refusal.contentType).send(refusal.body);
        return (apolloHandler as RouteHandlerMethod).call(this, request, reply);
      },
    });

    const dbCheck: ReadinessCheck = { name: 'database', check: () => db.isReady() };
    const pubsubCheck: ReadinessCheck = { name: 'pubsub', check: async () => pubsub.healthy(), details: () => ({ kind: pubsub.kind }) };
    registerHealthRoutes(fastify, {
      checks: [dbCheck, pubsubCheck, webhooks.readiness],
      metrics: config.metrics.onApiPort ? metrics : undefined,
      isDraining: () => draining,
    });
    // Prometheus on its own listener (always in production, where the API port has no /metrics)
    const metricsServer = config.metrics.port !== null ? createMetricsServer(metrics) : null;
    if (metricsServer) closers.push({ name: 'metrics listener', close: () => metricsServer.close() });
    await registerWebhookRoutes(fastify, webhooks.receiver);

    const ws: GraphQLWsServer = createGraphQLWsServer({
      schema,
      auth,
      logger,
      formatError,
      connectionInitWaitTimeoutMs: config.wsConnectionInitTimeoutMs,
      clock,
      clientIp: (req) => proxies.clientIp(req),
      trusted,
      limits: {
        authFailure: (ip) => anonymousRefusal(rateLimiter, 'anonymous', ip),
        maxOperationsPerSocket: config.budgets.wsMaxSubscriptionsPerSocket,
        maxSocketsPerUser: config.budgets.wsMaxSocketsPerUser,
        validationRules: limits.validationRules,
        parseOptions: limits.parseOptions,
        rateLimit: (caller, document, operationName) =>
          rateLimitRefusal(rateLimiter, rateLimitRules, caller, getOperationAST(document, operationName), document),
      },
    });
    fastify.server.on('upgrade', (req, socket, head) => {
      const path = (req.url ?? '').split('?')[0];
      if (path !== '/graphql' || draining) {
        socket.end('HTTP/1.1 404 Not Found\r\nConnection: close\r\n\r\n');
        return;
      }
      ws.handleUpgrade(req, socket, head);
    });

    const app: App = {
      config,
      logger,
      metrics,
      db,
      pubsub,
      auth,
      sandbox,
      upstream,
      transfers,
      fastify,
      webhooks,
      async start() {
        const address = await fastify.listen({ port: config.port, host: config.host });
        if (metricsServer) logger.info({ address: await metricsServer.listen({ port: config.metrics.port!, host: config.metrics.host }) }, 'metrics listening');
        await migrateWhenReachable(db, logger, () => draining);
        if (config.saga.workerEnabled) transfers.worker.start();
        const port = (fastify.server.address() as { port: number }).port;
        const host = config.host === '0.0.0.0' || config.host === '::' ? '127.0.0.1' : config.host;
        const url = `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
        await webhooks.start(url);
        logger.info({ address }, 'ready');
        return { url };
      },
      async close() {
        if (draining) return;
        draining = true;
        logger.info('shutting down: closing websockets, draining HTTP');
        await ws.close();
        logger.debug('websockets closed');
        // Apollo's stop() runs the drain plugin, which closes Fastify: stop accepting, finish in-flight requests.
        await apollo.stop();
        logger.debug('http server closed');
        await closeAll(closers, logger);
        logger.info('shut down');
      },
    };
    return app;
  } catch (e) {
    await closeAll(closers, logger);
    throw e;
  }
}

async function closeAll(closers: { name: string; close: () => Promise<unknown> }[], logger: Logger) {
  for (const c of [...closers].reverse()) {
    try {
      logger.debug({ component: c.name }, 'closing');
      await c.close();
    } catch (err) {
      logger.warn({ err, component: c.name }, 'error while closing');
    }
  }
  closers.length = 0;
}

/** The built-in sandbox (loaded only now, see sandbox.loader.ts), accepting whatever credentials the service is configured with. */
async function startBuiltInSandbox(config: Config): Promise<RunningSandbox> {
  const { startSandbox, DEFAULT_OPTIONS } = await loadSandbox();
  return startSandbox({
    port: config.sandbox.port,
    host: config.sandbox.host,
    options: {
      gatewayClientId: config.gateway.clientId,
      gatewayClientSecret: config.gateway.clientSecret,
      remittancesTenantId: config.remittances.tenantId,
      remittancesApiKey: config.remittances.apiKey,
      remittancesAgentId: config.remittances.agentId,
      remittancesAgentApiKey: config.remittances.agentApiKey,
      verificationClients: [
        { clientId: config.verification.clientId, clientSecret: config.verification.clientSecret, tenantId: config.remittances.tenantId, scopes: ['sessions', 'verifications'] },
        ...DEFAULT_OPTIONS.verificationClients.filter((c) => c.clientId !== config.verification.clientId && c.tenantId !== config.remittances.tenantId),
      ],
    },
  });
}

/** Applies migrations, retrying with backoff while the database is unreachable; a failed migration is fatal. */
async function migrateWhenReachable(db: Database, logger: Logger, stopped: () => boolean): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      const { applied } = await db.migrate();
      if (applied.length) logger.info({ applied }, 'migrations applied');
      return;
    } catch (err) {
      if (!isDatabaseUnavailable(err) || stopped()) throw err;
      const delay = Math.min(250 * 2 ** attempt, 5_000);
      logger.warn({ attempt, delayMs: delay, err: { message: (err as Error).message } }, 'database unreachable, retrying');
      await new Promise((r) => setTimeout(r, delay));
    }
  }
}

const hasQueryParam = (q: unknown) => typeof q === 'object' && q !== null && 'query' in q;
