/**
 * The simulated remittances platform, mounted by the sandbox server at /remittances.
 * Auth order and error shapes: see remittances.auth.ts and remittances.errors.ts.
 */
import type { FastifyPluginAsync } from 'fastify';
import type { SandboxContext } from '../sandbox.context';
import { registerAgentRoutes } from './remittances.agents';
import { installJsonParser } from './remittances.content';
import { installErrorHandler, RemittancesError } from './remittances.errors';
import { registerFxRoutes } from './remittances.fx';
import { registerPayoutRoutes } from './remittances.payout';
import { registerPeopleRoutes } from './remittances.people';
import { platformFor } from './remittances.platform';
import { registerWebhookRoutes } from './remittances.webhooks';

export const remittancesPlugin: FastifyPluginAsync<{ ctx: SandboxContext }> = async (app, { ctx }) => {
  const platform = platformFor(ctx);
  platform.acquire();
  app.addHook('onClose', async () => platform.release());

  installErrorHandler(app);
  installJsonParser(app);
  app.setNotFoundHandler((request, reply) => {
    reply.code(404).send(new RemittancesError(404, 'NOT_FOUND', `no route ${request.method} ${request.url}`).body());
  });
  app.addHook('onRequest', platform.auth.requireTenant);

  registerWebhookRoutes(app, platform.webhooks, platform.auth);
  registerAgentRoutes(app, platform.agents, platform.auth);
  registerPeopleRoutes(app, platform.people, platform.auth);
  registerFxRoutes(app, platform.transactions, platform.auth);
  registerPayoutRoutes(app, platform.payout, platform.auth);
};

export default remittancesPlugin;
