/**
 * POST /oauth/token and the bearer-token check of every other endpoint.
 *
 * Decision ("Token response shape and lifetime: not shown"): 200
 *   { "access_token": "gw_<48 hex>", "token_type": "Bearer", "expires_in": 3600 }
 * The lifetime is options.gatewayTokenLifetimeS, measured on the sandbox clock. Missing fields → 400
 * VALIDATION_ERROR; unknown credentials → 401 INVALID_CLIENT. On other endpoints a missing, unknown or
 * expired token → 401 UNAUTHORIZED with `WWW-Authenticate: Bearer error="invalid_token"`.
 */
import { randomBytes, timingSafeEqual } from 'node:crypto';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { GatewayError, Issues } from './gateway.errors';
import type { GatewayDeps } from './gateway.state';
import { bodyObject, reqString } from './gateway.validate';

const clientOf = new WeakMap<FastifyRequest, string>();

/** The clientId of the token the request was authenticated with. */
export function requestClientId(request: FastifyRequest): string {
  return clientOf.get(request) ?? 'anonymous';
}

function sameSecret(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

const unauthorized = (message: string): GatewayError =>
  new GatewayError(401, 'UNAUTHORIZED', message, undefined, {}, { 'www-authenticate': 'Bearer error="invalid_token"' });

export function registerAuth(app: FastifyInstance, { ctx, state }: GatewayDeps): void {
  app.post('/oauth/token', { config: { public: true } }, async (request) => {
    const body = bodyObject(request.body);
    const issues = new Issues();
    const clientId = reqString(issues, body, 'clientId', 'clientId');
    const secret = reqString(issues, body, 'secretID', 'secretID');
    issues.throwIfAny();
    if (!clientId || !secret || clientId !== ctx.options.gatewayClientId || !sameSecret(secret, ctx.options.gatewayClientSecret)) {
      throw new GatewayError(401, 'INVALID_CLIENT', 'unknown client credentials');
    }
    const token = `gw_${randomBytes(24).toString('hex')}`;
    const lifetimeS = ctx.options.gatewayTokenLifetimeS;
    state.tokens.set(token, { clientId, expiresAtMs: ctx.nowMs() + lifetimeS * 1000 });
    return { access_token: token, token_type: 'Bearer', expires_in: lifetimeS };
  });

  app.addHook('preHandler', async (request) => {
    const config = request.routeOptions.config as { public?: boolean } | undefined;
    if (config?.public) return;
    const header = request.headers.authorization;
    const match = typeof header === 'string' ? /^Bearer\s+(\S+)$/i.exec(header) : null;
    if (!match) throw unauthorized('missing bearer token');
    const token = state.tokens.get(match[1]);
    if (!token) throw unauthorized('unknown access token');
    if (ctx.nowMs() >= token.expiresAtMs) {
      state.tokens.delete(match[1]);
      throw unauthorized('access token expired');
    }
    clientOf.set(request, token.clientId);
  });
}
