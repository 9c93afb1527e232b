/**
 * The GraphQL edge: Apollo Server on POST/GET /graphql and graphql-ws on the same path, with what guards them —
 * query limits, trusted documents, per-caller rate limits and upstream budgets, per-IP limits for anonymous
 * traffic, error formatting (upstream failures mapped here, once), metrics and tracing.
 */
import type { FastifyInstance } from 'fastify';
import type { GraphQLSchema } from 'graphql';
import type { AuthService } from '../auth/auth.service';
import type { Config } from '../config';
import type { Clock } from '../shared/clock';
import type { Logger } from '../shared/logger';
import type { Metrics } from '../shared/metrics';
import type { TrustedProxies } from '../shared/trust-proxy';
import type { UpstreamErrorRule } from '../upstream/http/upstream.errors';
import { createAdmission } from './admission';
import { createErrorFormatter } from './errors';
import { startApollo } from './graphql.apollo';
import { graphqlHttpHandler } from './graphql.http';
import { httpContext } from './graphql.http-context';
import { createEdgeLimits } from './graphql.rate-limit';
import { registerGraphQLRoute } from './graphql.route';
import { attachGraphQLWs } from './graphql.ws-upgrade';
import { TrustedDocuments } from './trusted-documents';

export interface GraphQLServerDeps {
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
  const { config, schema, logger } = d;
  const formatError = createErrorFormatter(logger, {
    hideSchemaDetails: config.production,
    maxTokens: config.limits.maxTokens,
    upstreamErrors: d.upstreamErrors,
  });
  const trusted = loadTrustedDocuments(config, logger);
  const limits = createEdgeLimits(config, schema, logger);
  // what may run: the same parser options, validation rules and refusals over HTTP and graphql-ws
  const admission = createAdmission({ config, rateLimiter: limits.rateLimiter, rules: limits.rules });
  const apollo = await startApollo({ ...d, admission, formatError, redis: limits.redis });
  const countAnonymous = async (ip: string) => {
    const refusal = await limits.anonymousRefusal(ip);
    if (refusal) throw refusal;
  };
  const handler = graphqlHttpHandler(apollo, { metrics: d.metrics, context: httpContext(d.auth, countAnonymous) });
  await registerGraphQLRoute(d.fastify, { config, logger, trusted, handler });
  const ws = attachGraphQLWs({ ...d, formatError, trusted, admission, limits });

  return {
    async close() {
      await ws.close();
      logger.debug('websockets closed');
      await apollo.stop();
      logger.debug('http server closed');
      await limits.close();
    },
  };
}

/** Persisted documents (TRUSTED_DOCUMENTS): checked before Apollo or graphql-ws parse anything. */
function loadTrustedDocuments(config: Config, logger: Logger): TrustedDocuments | null {
  const trusted = TrustedDocuments.load(config.trustedDocuments.mode, config.trustedDocuments.manifestPath);
  if (trusted) logger.info({ mode: trusted.mode, documents: trusted.size }, 'trusted documents');
  else if (config.production) logger.warn('TRUSTED_DOCUMENTS=off: any document may run (set only to run nothing but the app manifest)');
  return trusted;
}
