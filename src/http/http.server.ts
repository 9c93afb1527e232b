import Fastify, { LogController, type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import type { Config } from '../config';
import type { Logger } from '../shared/logger';
import type { Metrics } from '../shared/metrics';
import { registerRequestContext } from '../shared/request-context';
import { requestIdGenerator } from './request-id';
import type { TrustedProxies } from '../shared/trust-proxy';
import { clientKey } from '../shared/client-address';
import { limitConnectionsPerClient } from './connection-limit';

/**
 * The Fastify instance every route lives on: the client address believed only from TRUST_PROXY's proxies, a request
 * id on every response and log line (the caller's X-Request-Id when well-formed), a request counter per route.
 *
 * Per request it does no more than that: no child logger (the request id reaches every line through the request
 * context and the logger's mixin, shared/logger.ts), callback hooks (no promise each), pre-bound metric children.
 */
export function createHttpServer(config: Config, proxies: TrustedProxies, logger: Logger, metrics: Metrics): FastifyInstance {
  const newRequestId = requestIdGenerator();
  const fastify = Fastify({
    // X-Forwarded-For is believed only from TRUST_PROXY's addresses: request.ip is then the client behind them
    trustProxy: proxies.fastify,
    loggerInstance: requestLogger(logger),
    logController: new LogController({ disableRequestLogging: true }),
    bodyLimit: config.limits.bodyLimitBytes,
    forceCloseConnections: 'idle',
    // time bounds (docs/security.md): a request's headers, then its whole body, must arrive in time (408 and closed
    // otherwise; Node checks its open requests every connectionsCheckingInterval); idle keep-alive connections end
    requestTimeout: config.http.requestTimeoutMs,
    keepAliveTimeout: config.http.keepAliveTimeoutMs,
    http: {
      headersTimeout: config.http.headersTimeoutMs,
      connectionsCheckingInterval: Math.max(50, Math.floor(Math.min(config.http.headersTimeoutMs, config.http.requestTimeoutMs) / 4)),
    },
    requestIdHeader: false,
    genReqId: (req) => {
      const given = req.headers['x-request-id'];
      return typeof given === 'string' && /^[\w.:-]{8,128}$/.test(given) ? given : newRequestId();
    },
  });
  limitConnectionsPerClient(fastify.server, {
    max: config.http.maxConnectionsPerClient,
    keyOf: (address) => (proxies.isProxy(address) ? null : clientKey(address, config.clientIpv6Prefix)),
    onRefused: () => metrics.connectionsRefused.inc(),
  });
  // the request id on the response, and (request context) on every log line written for the request
  registerRequestContext(fastify, (req, reply) => void reply.header('x-request-id', req.id));
  fastify.addHook('onResponse', (req, reply, done) => {
    metrics.httpRequests.bind(req.routeOptions.url ?? 'unmatched', req.method, String(reply.statusCode)).inc();
    done();
  });
  return fastify;
}

/**
 * The logger Fastify is given. Fastify asks it once for a child carrying Fastify's serializers (`req`, `res`, `err`):
 * that child is made, and its own `child` — asked for on every request by Fastify's default child-logger factory, the
 * one factory whose result Fastify does not check again per request — returns it again. request.log is then one
 * logger for every request: a child per request (bindings, redaction, serializers) costs more than the rest of this
 * layer, and the mixin already stamps the request id. Nothing in the service asks Fastify's logger for a child.
 */
function requestLogger(logger: Logger): FastifyBaseLogger {
  const child = (...args: Parameters<Logger['child']>): FastifyBaseLogger => {
    const made = logger.child(...args);
    const same: FastifyBaseLogger = Object.create(made, { child: { value: () => same } });
    return same;
  };
  return Object.create(logger, { child: { value: child } });
}
