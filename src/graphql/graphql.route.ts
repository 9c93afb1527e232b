import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Config } from '../config';
import type { Logger } from '../shared/logger';
import { GRAPHIQL_HTML_HEADERS, graphiqlHtml, graphiqlInstalled, graphiqlPlugin, prefersHtml } from '../http/graphiql.routes';
import type { TrustedDocuments } from './trusted-documents';

/**
 * `/graphql` over HTTP: GraphiQL to a browser (when on), the trusted-documents check, then Apollo's handler.
 * GraphiQL's assets come from development dependencies: off (with a warning) in an install without them.
 */
export async function registerGraphQLRoute(
  fastify: FastifyInstance,
  o: {
    config: Config;
    logger: Logger;
    trusted: TrustedDocuments | null;
    handler: (request: FastifyRequest, reply: FastifyReply) => Promise<unknown>;
  },
): Promise<void> {
  const { config, trusted, handler } = o;
  const graphiql = config.graphiql && graphiqlInstalled();
  if (config.graphiql && !graphiql)
    o.logger.warn(
      'GraphiQL is on but its packages (graphiql, react, react-dom: development dependencies) are not installed; not serving it',
    );
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
      return handler(request, reply);
    },
  });
}

const hasQueryParam = (q: unknown) => typeof q === 'object' && q !== null && 'query' in q;
