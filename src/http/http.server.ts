import { randomUUID } from 'node:crypto';
import Fastify, { LogController, type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import type { Config } from '../config';
import type { Logger } from '../shared/logger';
import type { Metrics } from '../shared/metrics';
import { registerRequestContext } from '../shared/request-context';
import type { TrustedProxies } from '../shared/trust-proxy';

/**
 * The Fastify instance every route lives on: the client address believed only from TRUST_PROXY's proxies, a request
 * id on every response and log line (the caller's X-Request-Id when well-formed), a request counter per route.
 */
export function createHttpServer(config: Config, proxies: TrustedProxies, logger: Logger, metrics: Metrics): FastifyInstance {
  const fastify = Fastify({
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
  return fastify;
}
