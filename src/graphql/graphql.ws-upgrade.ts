import type { Admission } from './admission';
import type { ErrorFormatter } from './errors';
import type { EdgeLimits } from './graphql.rate-limit';
import type { GraphQLServerDeps } from './graphql.server';
import type { TrustedDocuments } from './trusted-documents';
import { createGraphQLWsServer, type GraphQLWsServer } from './ws';

/** graphql-ws on `/graphql`: websocket upgrades of the API's server go to it (404 elsewhere, or once draining). */
export function attachGraphQLWs(
  o: Pick<GraphQLServerDeps, 'config' | 'schema' | 'auth' | 'fastify' | 'proxies' | 'clock' | 'logger' | 'isDraining'> & {
    formatError: ErrorFormatter;
    trusted: TrustedDocuments | null;
    admission: Admission;
    limits: EdgeLimits;
  },
): GraphQLWsServer {
  const { config } = o;
  const ws = createGraphQLWsServer({
    schema: o.schema,
    auth: o.auth,
    logger: o.logger,
    formatError: o.formatError,
    connectionInitWaitTimeoutMs: config.wsConnectionInitTimeoutMs,
    clock: o.clock,
    clientIp: (req) => o.proxies.clientIp(req),
    trusted: o.trusted,
    admission: o.admission,
    limits: {
      authFailure: (ip) => o.limits.anonymousRefusal(ip),
      maxOperationsPerSocket: config.budgets.wsMaxSubscriptionsPerSocket,
      maxSocketsPerUser: config.budgets.wsMaxSocketsPerUser,
    },
  });
  o.fastify.server.on('upgrade', (req, socket, head) => {
    if ((req.url ?? '').split('?')[0] !== '/graphql' || o.isDraining()) {
      socket.end('HTTP/1.1 404 Not Found\r\nConnection: close\r\n\r\n');
      return;
    }
    ws.handleUpgrade(req, socket, head);
  });
  return ws;
}
