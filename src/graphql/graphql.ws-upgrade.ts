import type { FastifyInstance } from 'fastify';
import type { GraphQLSchema } from 'graphql';
import type { AuthService } from '../auth/auth.service';
import type { Config } from '../config';
import type { Clock } from '../shared/clock';
import type { Logger } from '../shared/logger';
import type { TrustedProxies } from '../shared/trust-proxy';
import type { Admission } from './admission';
import type { ErrorFormatter } from './errors';
import type { EdgeLimits } from './graphql.rate-limit';
import type { TrustedDocuments } from './trusted-documents';
import { createGraphQLWsServer, type GraphQLWsServer } from './ws';

/** graphql-ws on `/graphql`: websocket upgrades of the API's server go to it (404 elsewhere, or once draining). */
export function attachGraphQLWs(o: {
  config: Config;
  schema: GraphQLSchema;
  auth: AuthService;
  fastify: FastifyInstance;
  proxies: TrustedProxies;
  clock: Clock;
  logger: Logger;
  formatError: ErrorFormatter;
  trusted: TrustedDocuments | null;
  admission: Admission;
  limits: EdgeLimits;
  isDraining: () => boolean;
}): GraphQLWsServer {
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
