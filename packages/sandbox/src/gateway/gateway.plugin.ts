/**
 * The simulated payments gateway (after the gateway's API specification), mounted by the sandbox server under
 * /gateway. Every endpoint of the spec, same paths, bodies and rules; decisions where the spec says "not shown"
 * are written next to the code of each area and collected in docs/sandbox.md.
 */
import type { FastifyError, FastifyPluginAsync } from 'fastify';
import type { SandboxContext } from '../sandbox.context';
import { registerAuth } from './gateway.auth';
import { registerBanks } from './gateway.banks';
import { registerChecks } from './gateway.checks';
import { registerDirectory } from './gateway.directory';
import { GatewayError, sendGatewayError } from './gateway.errors';
import { registerFx } from './gateway.fx';
import { registerPayer } from './gateway.payer';
import { expireAuthorizations, registerPayments } from './gateway.payments';
import { registerPersons } from './gateway.persons';
import { GatewayState, type GatewayDeps } from './gateway.state';
import { registerThreeDs } from './gateway.threeds';
import { registerWallets } from './gateway.wallets';

export const gatewayPlugin: FastifyPluginAsync<{ ctx: SandboxContext }> = async (app, { ctx }) => {
  const state = new GatewayState();
  const deps: GatewayDeps = { ctx, state };

  const onReset = () => state.reset();
  const onClock = () => expireAuthorizations(ctx, state);
  ctx.bus.on('reset', onReset);
  ctx.bus.on('clock.advanced', onClock);
  app.addHook('onClose', async () => {
    ctx.bus.off('reset', onReset);
    ctx.bus.off('clock.advanced', onClock);
  });

  // JSON bodies: an empty body counts as no body (capture and void may be sent without one).
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (_req, body, done) => {
    const text = typeof body === 'string' ? body : body.toString('utf8');
    if (text.trim() === '') return done(null, undefined);
    try {
      done(null, JSON.parse(text));
    } catch {
      done(new GatewayError(400, 'INVALID_REQUEST', 'request body is not valid JSON') as unknown as FastifyError, undefined);
    }
  });
  // The 3DS page posts an HTML form.
  app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string' }, (_req, body, done) => {
    done(null, Object.fromEntries(new URLSearchParams(typeof body === 'string' ? body : body.toString('utf8'))));
  });

  app.setErrorHandler((err: FastifyError | GatewayError, request, reply) => {
    if (err instanceof GatewayError) return sendGatewayError(reply, err);
    const status = (err as FastifyError).statusCode;
    if (status && status >= 400 && status < 500) {
      const code = status === 415 ? 'UNSUPPORTED_MEDIA_TYPE' : status === 413 ? 'PAYLOAD_TOO_LARGE' : 'INVALID_REQUEST';
      return sendGatewayError(reply, new GatewayError(status, code, err.message));
    }
    request.log.error({ err }, 'sandbox gateway error');
    return sendGatewayError(reply, new GatewayError(500, 'INTERNAL_ERROR', 'internal error'));
  });
  app.setNotFoundHandler((request, reply) =>
    sendGatewayError(reply, new GatewayError(404, 'NOT_FOUND', `no route ${request.method} ${request.url.split('?')[0]}`)),
  );

  // Lazy 7-day auto-cancel: evaluated on every gateway request (and on clock moves, above).
  app.addHook('onRequest', async () => expireAuthorizations(ctx, state));

  registerAuth(app, deps);
  registerThreeDs(app, deps);
  registerFx(app, deps);
  registerPersons(app, deps);
  registerChecks(app, deps);
  registerDirectory(app, deps);
  registerBanks(app, deps);
  registerWallets(app, deps);
  registerPayer(app, deps);
  registerPayments(app, deps);
};

export default gatewayPlugin;
