/**
 * The GraphQL edge: Apollo Server on POST/GET /graphql and graphql-ws on the same path, with what guards them —
 * query limits, trusted documents, per-caller rate limits and upstream budgets, per-IP limits for anonymous
 * traffic, error formatting (upstream failures mapped here, once), metrics and tracing.
 */
import type { FastifyInstance } from 'fastify';
import { ApolloServer } from '@apollo/server';
import {
  ApolloServerPluginCacheControlDisabled,
  ApolloServerPluginInlineTraceDisabled,
  ApolloServerPluginLandingPageDisabled,
} from '@apollo/server/plugin/disabled';
import { fastifyApolloDrainPlugin } from '@as-integrations/fastify';
import IORedis from 'ioredis';
import type { GraphQLSchema } from 'graphql';
import type { AuthService } from '../auth/auth.service';
import type { Caller } from '../auth/auth.types';
import type { Config } from '../config';
import type { Clock } from '../shared/clock';
import { isAppError, type AppError } from '../shared/errors';
import type { Logger } from '../shared/logger';
import type { Metrics } from '../shared/metrics';
import { RateLimiter } from '../shared/rate-limit';
import { clientKey } from '../shared/client-address';
import { negotiateLanguage, type Language } from '../shared/messages';
import { setRequestUser } from '../shared/request-context';
import type { TrustedProxies } from '../shared/trust-proxy';
import type { UpstreamErrorRule } from '../upstream/http/upstream.errors';
import { GRAPHIQL_HTML_HEADERS, graphiqlHtml, graphiqlInstalled, graphiqlPlugin, prefersHtml } from '../http/graphiql.routes';
import { apqOptions } from './apq';
import type { GraphQLContext } from './context';
import { edgeGateway } from './edge.gateway';
import { createErrorFormatter } from './errors';
import { graphqlHttpHandler, httpErrorFormatter } from './graphql.http';
import { graphqlJsExecutor, jitExecutor } from './jit';
import { createAdmission } from './admission';
import { anonymousRefusal, type RateLimitRules } from './rate-limits';
import { tracingPlugin } from './tracing';
import { TrustedDocuments } from './trusted-documents';
import { tracingActive } from '../shared/tracing';
import { upstreamCost } from './upstream-fields';
import { createGraphQLWsServer } from './ws';

interface GraphQLServerDeps {
  config: Config;
  schema: GraphQLSchema;
  auth: AuthService;
  fastify: FastifyInstance;
  proxies: TrustedProxies;
  clock: Clock;
  logger: Logger;
  metrics: Metrics;
  upstreamErrors: readonly UpstreamErrorRule[];
  /** True once shutdown began: new websocket upgrades are refused. */
  isDraining: () => boolean;
}

interface GraphQLServer {
  /** Closes websockets (1001), then stops Apollo, whose drain plugin closes Fastify (in-flight requests finish). */
  close(): Promise<void>;
}

export async function createGraphQLServer(d: GraphQLServerDeps): Promise<GraphQLServer> {
  const { config, schema, auth, fastify, logger } = d;
  const formatError = createErrorFormatter(logger, {
    hideSchemaDetails: config.production,
    maxTokens: config.limits.maxTokens,
    upstreamErrors: d.upstreamErrors,
  });

  // Abuse limits: query limits, per-user rate limits, persisted queries (Redis-backed when configured)
  const redis = config.redisUrl
    ? new IORedis(config.redisUrl, { connectionName: 'remittance-bff-limits', maxRetriesPerRequest: 1, enableOfflineQueue: false })
    : null;
  redis?.on('error', (err) => logger.warn({ err: { message: err.message } }, 'limits redis error'));
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
    redis,
  );
  const rules: RateLimitRules = {
    mutationRule: 'mutation',
    queryRules: { resolveAlias: 'alias' },
    sharedRules: { createRecipient: { field: 'resolveAlias', rule: 'alias', what: 'alias look-up' } },
    upstream: { rule: 'upstream', cost: (document, operation) => upstreamCost(schema, document, operation) },
  };
  // what may run: the same parser options, validation rules and refusals over HTTP and graphql-ws
  const admission = createAdmission({ config, rateLimiter, rules });
  /** Unauthenticated traffic (no token, or a bad one) is counted per client address; over → RATE_LIMITED. */
  const countAnonymous = async (ip: string) => {
    const refusal = await anonymousRefusal(rateLimiter, 'anonymous', clientKey(ip, config.clientIpv6Prefix));
    if (refusal) throw refusal;
  };

  const apollo = new ApolloServer<GraphQLContext>({
    // Execution through Apollo's gateway hook (edge.gateway.ts): what may not run refused first, then graphql-jit
    // (GRAPHQL_JIT, jit.ts) or graphql-js
    gateway: edgeGateway({
      schema,
      refuse: (req) =>
        admission.refuse({
          document: req.document,
          operation: req.operation,
          variables: req.variables,
          caller: req.contextValue.caller,
          transport: 'http',
        }),
      execute: config.graphqlJit ? jitExecutor({ schema, logger, metrics: d.metrics }) : graphqlJsExecutor(schema),
    }),
    // introspection is refused by the admission's validation rules (NoSchemaIntrospectionCustomRule where it is off),
    // shared with graphql-ws; Apollo's own switch would add the same rule to HTTP alone
    introspection: true,
    includeStacktraceInErrorResponses: false,
    // Callers authenticate with bearer tokens, never cookies, so cross-site requests carry no credentials.
    csrfPrevention: false,
    // main.ts owns SIGTERM/SIGINT and runs the whole shutdown; Apollo must not race it with its own handler.
    stopOnTerminationSignals: false,
    formatError: httpErrorFormatter(formatError, logger),
    validationRules: admission.validationRules,
    parseOptions: admission.parseOptions,
    allowBatchedHttpRequests: false,
    persistedQueries: apqOptions({ ttlS: config.apq.ttlS, redis }),
    // no plugin with a per-request listener unless tracing is on (Armor adds none with the rules limits.ts turns on):
    // the edge's own work is done in its gateway, its error formatter and its HTTP handler (graphql.http.ts)
    plugins: [
      // a span per operation: only while tracing is on (otherwise no plugin, no per-request call)
      ...(tracingActive() ? [tracingPlugin()] : []),
      fastifyApolloDrainPlugin(fastify),
      ApolloServerPluginLandingPageDisabled(),
      ApolloServerPluginCacheControlDisabled(),
      // not a federated subgraph: no per-request hook of the inline-trace plugin Apollo would otherwise install
      ApolloServerPluginInlineTraceDisabled(),
    ],
  });
  await apollo.start();

  const apolloHandler = graphqlHttpHandler(apollo, {
    metrics: d.metrics,
    context: async (request): Promise<GraphQLContext> => {
      const header = request.headers.authorization;
      let caller: Caller | null;
      try {
        caller = auth.cachedFromAuthorizationHeader(header) ?? (await auth.fromAuthorizationHeader(header));
      } catch (e) {
        if (!isAppError(e)) throw e;
        await countAnonymous(request.ip);
        return new HttpContext(null, e, request);
      }
      setRequestUser(caller?.userId);
      if (!caller) await countAnonymous(request.ip);
      return new HttpContext(caller, null, request);
    },
  });

  // GraphiQL's assets come from development dependencies: off (with a warning) in an install without them.
  const graphiql = config.graphiql && graphiqlInstalled();
  if (config.graphiql && !graphiql)
    logger.warn('GraphiQL is on but its packages (graphiql, react, react-dom: development dependencies) are not installed; not serving it');
  if (graphiql) await fastify.register(graphiqlPlugin);
  fastify.route({
    url: '/graphql',
    method: ['GET', 'POST', 'OPTIONS'],
    // not async: Apollo's handler returns its own promise, which Fastify awaits (an async wrapper would add a promise
    // and the ticks of resolving one with another on every request)
    handler: (request, reply) => {
      if (graphiql && request.method === 'GET' && prefersHtml(request.headers.accept) && !hasQueryParam(request.query)) {
        void reply.headers(GRAPHIQL_HTML_HEADERS).send(graphiqlHtml({ endpoint: '/graphql', subscriptionEndpoint: '/graphql' }));
        return;
      }
      const refusal = trusted?.applyToHttp(request);
      if (refusal) {
        void reply.code(refusal.status).header('content-type', refusal.contentType).send(refusal.body);
        return;
      }
      return apolloHandler(request, reply);
    },
  });

  const ws = createGraphQLWsServer({
    schema,
    auth,
    logger,
    formatError,
    connectionInitWaitTimeoutMs: config.wsConnectionInitTimeoutMs,
    clock: d.clock,
    clientIp: (req) => d.proxies.clientIp(req),
    trusted,
    admission,
    limits: {
      authFailure: (ip) => anonymousRefusal(rateLimiter, 'anonymous', clientKey(ip, config.clientIpv6Prefix)),
      maxOperationsPerSocket: config.budgets.wsMaxSubscriptionsPerSocket,
      maxSocketsPerUser: config.budgets.wsMaxSocketsPerUser,
    },
  });
  fastify.server.on('upgrade', (req, socket, head) => {
    if ((req.url ?? '').split('?')[0] !== '/graphql' || d.isDraining()) {
      socket.end('HTTP/1.1 404 Not Found\r\nConnection: close\r\n\r\n');
      return;
    }
    ws.handleUpgrade(req, socket, head);
  });

  return {
    async close() {
      await ws.close();
      logger.debug('websockets closed');
      await apollo.stop();
      logger.debug('http server closed');
      rateLimiter.close();
      if (redis) await redis.quit().catch(() => redis.disconnect());
    },
  };
}

const REQUEST = Symbol('request');
const LANGUAGE = Symbol('language');

/**
 * The context of an HTTP operation. The client address is worked out (X-Forwarded-For through TRUST_PROXY) and the
 * language negotiated (Accept-Language) only if something reads them: getters on the prototype, since Apollo runs
 * each operation on a copy of the context's own properties (which would read an own getter).
 */
class HttpContext implements GraphQLContext {
  requestId: string;
  [REQUEST]: { ip: string; headers: { 'accept-language'?: string } };
  [LANGUAGE]: Language | undefined = undefined;

  constructor(
    public caller: Caller | null,
    public authError: AppError | null,
    request: { id: string; ip: string; headers: { 'accept-language'?: string } },
  ) {
    this.requestId = request.id;
    this[REQUEST] = request;
  }

  get clientIp(): string {
    return this[REQUEST].ip;
  }

  get language(): Language {
    return (this[LANGUAGE] ??= negotiateLanguage(this[REQUEST].headers['accept-language']));
  }
}

const hasQueryParam = (q: unknown) => typeof q === 'object' && q !== null && 'query' in q;
