import type { FastifyInstance } from 'fastify';
import { ApolloServer } from '@apollo/server';
import {
  ApolloServerPluginCacheControlDisabled,
  ApolloServerPluginInlineTraceDisabled,
  ApolloServerPluginLandingPageDisabled,
} from '@apollo/server/plugin/disabled';
import { fastifyApolloDrainPlugin } from '@as-integrations/fastify';
import type IORedis from 'ioredis';
import type { GraphQLSchema } from 'graphql';
import type { Config } from '../config';
import type { Logger } from '../shared/logger';
import type { Metrics } from '../shared/metrics';
import { tracingActive } from '../shared/tracing';
import type { Admission } from './admission';
import { apqOptions } from './apq';
import type { GraphQLContext } from './context';
import { edgeGateway } from './edge.gateway';
import type { ErrorFormatter } from './errors';
import { httpErrorFormatter } from './graphql.http';
import { graphqlJsExecutor, jitExecutor } from './jit';
import { tracingPlugin } from './tracing';

/** Apollo Server for GraphQL over HTTP, started: admission and execution through its gateway hook. */
export async function startApollo(o: {
  config: Config;
  schema: GraphQLSchema;
  fastify: FastifyInstance;
  logger: Logger;
  metrics: Metrics;
  admission: Admission;
  formatError: ErrorFormatter;
  redis: IORedis | null;
}): Promise<ApolloServer<GraphQLContext>> {
  const { config, schema, logger, admission } = o;
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
      execute: config.graphqlJit ? jitExecutor({ schema, logger, metrics: o.metrics }) : graphqlJsExecutor(schema),
    }),
    // introspection is refused by the admission's validation rules (NoSchemaIntrospectionCustomRule where it is off),
    // shared with graphql-ws; Apollo's own switch would add the same rule to HTTP alone
    introspection: true,
    includeStacktraceInErrorResponses: false,
    // Callers authenticate with bearer tokens, never cookies, so cross-site requests carry no credentials.
    csrfPrevention: false,
    // main.ts owns SIGTERM/SIGINT and runs the whole shutdown; Apollo must not race it with its own handler.
    stopOnTerminationSignals: false,
    formatError: httpErrorFormatter(o.formatError, logger),
    validationRules: admission.validationRules,
    parseOptions: admission.parseOptions,
    allowBatchedHttpRequests: false,
    persistedQueries: apqOptions({ ttlS: config.apq.ttlS, redis: o.redis }),
    // no plugin with a per-request listener unless tracing is on (Armor adds none with the rules limits.ts turns on):
    // the edge's own work is done in its gateway, its error formatter and its HTTP handler (graphql.http.ts)
    plugins: [
      // a span per operation: only while tracing is on (otherwise no plugin, no per-request call)
      ...(tracingActive() ? [tracingPlugin()] : []),
      fastifyApolloDrainPlugin(o.fastify),
      ApolloServerPluginLandingPageDisabled(),
      ApolloServerPluginCacheControlDisabled(),
      // not a federated subgraph: no per-request hook of the inline-trace plugin Apollo would otherwise install
      ApolloServerPluginInlineTraceDisabled(),
    ],
  });
  await apollo.start();
  return apollo;
}
