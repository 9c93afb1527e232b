/**
 * The simulated verification-session API, mounted by the sandbox server at /verification.
 *
 * POST /oauth/token (application/x-www-form-urlencoded), checked in this order:
 *   - another Content-Type, or client credentials both in Basic and in the body → 400 invalid_request
 *   - grant_type absent or not client_credentials → 400 unsupported_grant_type
 *   - client missing/unknown/wrong secret → 401 invalid_client + WWW-Authenticate: Basic realm="verification"
 *   - scope with a name the client was not granted → 400 invalid_scope (absent or empty scope → all granted)
 *   → 200 { access_token (RS256 JWT), token_type: "Bearer", expires_in: options.verificationTokenLifetimeS,
 *     scope } with Cache-Control: no-store. Errors are RFC 6749 §5.2 { error, error_description }.
 * /v1/* with Authorization: Bearer <token>:
 *   - no/invalid/expired (sandbox clock)/foreign token → 401 { error: "invalid_token", error_description } and
 *     WWW-Authenticate: Bearer realm="verification"[, error="invalid_token", error_description="…"] (RFC 6750)
 *   - scope missing → 403 { error: "insufficient_scope", … } and
 *     WWW-Authenticate: Bearer realm="verification", error="insufficient_scope", scope="<needed>"
 *   - bad body → 400 { error: "invalid_request", error_description }; unknown or other tenant's → 404
 *     { error: "not_found", error_description }.
 * Sessions and verifications: see verification.sessions.ts.
 */
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import type { SandboxContext, SandboxVerificationClient } from '../sandbox.context';
import { SessionStore, type VerificationError } from './verification.sessions';
import { TokenSigner, type AccessClaims } from './verification.tokens';

const REALM = 'verification';
export const VERIFICATION_SCOPES = ['sessions', 'verifications'] as const;

function oauthError(reply: FastifyReply, status: number, error: string, description: string): FastifyReply {
  if (status === 401) reply.header('www-authenticate', `Basic realm="${REALM}"`);
  return reply
    .code(status)
    .header('cache-control', 'no-store')
    .header('pragma', 'no-cache')
    .send({ error, error_description: description });
}

/** RFC 6749 §2.3.1: client id and secret are form-urlencoded before being put into Basic credentials. */
function formDecode(v: string): string {
  try {
    return decodeURIComponent(v.replace(/\+/g, ' '));
  } catch {
    return v;
  }
}

function basicCredentials(request: FastifyRequest): { id: string; secret: string } | null | 'malformed' {
  const h = request.headers.authorization;
  if (!h) return null;
  const m = /^Basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(h);
  if (!m) return 'malformed';
  const decoded = Buffer.from(m[1], 'base64').toString('utf8');
  const i = decoded.indexOf(':');
  if (i < 0) return 'malformed';
  return { id: formDecode(decoded.slice(0, i)), secret: formDecode(decoded.slice(i + 1)) };
}

export const verificationPlugin: FastifyPluginAsync<{ ctx: SandboxContext }> = async (app, { ctx }) => {
  const signer = await TokenSigner.create();
  const sessions = new SessionStore(ctx);
  const onReset = () => sessions.reset();
  ctx.bus.on('reset', onReset);
  app.addHook('onClose', async () => {
    ctx.bus.off('reset', onReset);
  });

  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (_req, body, done) => {
    const text = typeof body === 'string' ? body : body.toString('utf8');
    if (text.trim() === '') return done(null, undefined);
    try {
      done(null, JSON.parse(text));
    } catch {
      done(Object.assign(new Error('body is not valid JSON'), { statusCode: 400 }), undefined);
    }
  });
  app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string' }, (_req, body, done) => {
    done(null, Object.fromEntries(new URLSearchParams(typeof body === 'string' ? body : body.toString('utf8'))));
  });
  app.setErrorHandler((error: { statusCode?: number; message: string }, _request, reply) => {
    const status = typeof error.statusCode === 'number' && error.statusCode >= 400 && error.statusCode < 500 ? error.statusCode : 500;
    return reply.code(status).send({
      error: status === 500 ? 'server_error' : 'invalid_request',
      error_description: status === 500 ? 'internal error' : error.message,
    });
  });
  app.setNotFoundHandler((request, reply) =>
    reply.code(404).send({ error: 'not_found', error_description: `no route ${request.method} ${request.url}` }),
  );

  const clients = (): SandboxVerificationClient[] => ctx.options.verificationClients;

  app.get('/.well-known/jwks.json', async () => signer.jwks());

  // The session's `url`: a placeholder hosted page (no authentication; the session id is the capability).
  app.get<{ Params: { sessionId: string } }>('/hosted/:sessionId', async (request, reply) => {
    const found = sessions.exists(request.params.sessionId);
    return reply
      .code(found ? 200 : 404)
      .type('text/html; charset=utf-8')
      .send(
        found
          ? '<!doctype html><title>Verification</title><h1>Sandbox verification session</h1><p>Nothing to do here: decide it with POST /v1/verifications.</p>'
          : '<!doctype html><title>Not found</title><h1>Unknown session</h1>',
      );
  });

  app.post('/oauth/token', async (request, reply) => {
    const type = String(request.headers['content-type'] ?? '')
      .split(';')[0]
      .trim()
      .toLowerCase();
    if (type !== 'application/x-www-form-urlencoded')
      return oauthError(reply, 400, 'invalid_request', 'Content-Type must be application/x-www-form-urlencoded');
    const form = (request.body ?? {}) as Record<string, string>;
    const basic = basicCredentials(request);
    const inBody = form.client_id !== undefined || form.client_secret !== undefined;
    if (basic && basic !== 'malformed' && inBody)
      return oauthError(reply, 400, 'invalid_request', 'client credentials must be sent either as HTTP Basic or in the body, not both');
    if (form.grant_type !== 'client_credentials')
      return oauthError(reply, 400, 'unsupported_grant_type', 'grant_type must be client_credentials');
    const creds =
      basic === 'malformed' ? null : (basic ?? (inBody ? { id: form.client_id ?? '', secret: form.client_secret ?? '' } : null));
    const client = creds ? clients().find((c) => c.clientId === creds.id) : undefined;
    if (!creds || !client || client.clientSecret !== creds.secret)
      return oauthError(reply, 401, 'invalid_client', 'client authentication failed');
    let scopes = client.scopes;
    const requested = (form.scope ?? '').split(' ').filter((s) => s.length > 0);
    if (requested.length > 0) {
      // an absent or empty scope means every granted scope
      const unknown = requested.filter((s) => !client.scopes.includes(s));
      if (unknown.length > 0) return oauthError(reply, 400, 'invalid_scope', `unknown or not granted scope: ${unknown.join(' ')}`);
      scopes = [...new Set(requested)];
    }
    const lifetime = ctx.options.verificationTokenLifetimeS;
    const iat = Math.floor(ctx.nowMs() / 1000);
    const scope = scopes.join(' ');
    const accessToken = await signer.sign({ sub: client.clientId, tenant_id: client.tenantId, scope, iat, exp: iat + lifetime });
    return reply
      .header('cache-control', 'no-store')
      .header('pragma', 'no-cache')
      .send({ access_token: accessToken, token_type: 'Bearer', expires_in: lifetime, scope });
  });

  const claimsOf = new WeakMap<FastifyRequest, AccessClaims>();
  const requireScope = (needed: (typeof VERIFICATION_SCOPES)[number]) => async (request: FastifyRequest, reply: FastifyReply) => {
    const h = request.headers.authorization;
    const m = h ? /^Bearer\s+(\S+)\s*$/i.exec(h) : null;
    if (!m) {
      return reply
        .code(401)
        .header('www-authenticate', `Bearer realm="${REALM}"`)
        .send({ error: 'invalid_token', error_description: 'missing Bearer access token' });
    }
    const result = await signer.verify(m[1], ctx.now());
    if (!result.ok) {
      return reply
        .code(401)
        .header('www-authenticate', `Bearer realm="${REALM}", error="invalid_token", error_description="${result.reason}"`)
        .send({ error: 'invalid_token', error_description: result.reason });
    }
    if (!result.claims.scope.split(' ').includes(needed)) {
      return reply
        .code(403)
        .header('www-authenticate', `Bearer realm="${REALM}", error="insufficient_scope", scope="${needed}"`)
        .send({ error: 'insufficient_scope', error_description: `the token lacks the scope ${needed}` });
    }
    claimsOf.set(request, result.claims);
  };
  const tenantOf = (request: FastifyRequest) => claimsOf.get(request)!.tenant_id;
  const send = (reply: FastifyReply, r: { status: number; body: unknown } | VerificationError) => reply.code(r.status).send(r.body);

  app.post('/v1/sessions', { preHandler: requireScope('sessions') }, async (request, reply) =>
    send(reply, sessions.createSession(tenantOf(request), request.body)),
  );
  app.get<{ Params: { sessionId: string } }>('/v1/sessions/:sessionId', { preHandler: requireScope('sessions') }, async (request, reply) =>
    send(reply, sessions.getSession(tenantOf(request), request.params.sessionId)),
  );
  app.post('/v1/verifications', { preHandler: requireScope('verifications') }, async (request, reply) =>
    send(reply, sessions.createVerification(tenantOf(request), request.body)),
  );
  app.get<{ Params: { verificationId: string } }>(
    '/v1/verifications/:verificationId',
    { preHandler: requireScope('verifications') },
    async (request, reply) => send(reply, sessions.getVerification(tenantOf(request), request.params.verificationId)),
  );
};

export default verificationPlugin;
