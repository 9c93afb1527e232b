/**
 * The remittances part of the sandbox control API, mounted at /__sandbox (no authentication; sandbox only):
 *
 * - GET  /webhooks → { webhooks: [{ id, tenantId, url, events, isBatch, createdAt, signatureVersion,
 *   secretFingerprint, secretRotatedAt, signingSecret (current secret or null), deliveries: [{ deliveryId,
 *   event, attempt, status, outcome (delivered|failed|unreachable), willRetry, signed, duplicate, error?, at }] }] }
 *   (the last 200 attempts per subscription, oldest first).
 * - POST /agents/{id}/approve → 200 agent (status ACTIVE; idempotent); 404 unknown.
 * - POST /transactions/{externalTransactionId}/compliance { decision: "Approved" | "Rejected" } → 200
 *   { transactionId, externalTransactionId, decision, status } (the events follow one lifecycle step later);
 *   400 bad decision, 404 unknown, 409 INVALID_STATE when not held in ManualReview.
 */
import type { FastifyPluginAsync } from 'fastify';
import type { SandboxContext } from '../sandbox.context';
import { badRequest, installErrorHandler } from './remittances.errors';
import { platformFor } from './remittances.platform';
import { isRecord } from './remittances.util';
import { WebhookStore } from './remittances.webhooks';

export const remittancesControlPlugin: FastifyPluginAsync<{ ctx: SandboxContext }> = async (app, { ctx }) => {
  const platform = platformFor(ctx);
  platform.acquire();
  app.addHook('onClose', async () => platform.release());
  installErrorHandler(app);

  app.get('/webhooks', async () => ({
    webhooks: platform.webhooks.all().map((s) => ({
      ...WebhookStore.view(s),
      tenantId: s.tenantId,
      signingSecret: s.secret,
      deliveries: s.deliveries,
    })),
  }));

  app.post<{ Params: { id: string } }>('/agents/:id/approve', async (request) => platform.agents.approve(request.params.id));

  app.post<{ Params: { externalTransactionId: string } }>('/transactions/:externalTransactionId/compliance', async (request) => {
    const body = request.body;
    const decision = isRecord(body) ? body.decision : undefined;
    if (decision !== 'Approved' && decision !== 'Rejected')
      throw badRequest('decision must be "Approved" or "Rejected"', [{ field: 'decision', problem: 'Approved | Rejected' }]);
    const t = platform.transactions.decide(request.params.externalTransactionId, decision);
    return { transactionId: t.transactionId, externalTransactionId: t.externalTransactionId, decision, status: t.status };
  });
};

export default remittancesControlPlugin;
