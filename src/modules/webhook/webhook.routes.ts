import type { FastifyInstance } from 'fastify';
import type { WebhookReceiver } from './webhook.receiver';
import { SIGNATURE_HEADER } from './webhook.signature';
import { WEBHOOK_PATH } from './webhook.subscriptions';

/**
 * POST /webhooks/remittances. In its own encapsulated scope every content type is read as a raw Buffer:
 * the signature is computed over the exact bytes received, so nothing may parse (and re-serialise) the
 * body before it is verified.
 */
export async function registerWebhookRoutes(
  fastify: FastifyInstance,
  receiver: WebhookReceiver,
  opts: { bodyLimit?: number } = {},
): Promise<void> {
  await fastify.register(async (scope) => {
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: opts.bodyLimit ?? 256 * 1024 }, (_req, body, done) => done(null, body));
    scope.post(WEBHOOK_PATH, async (request, reply) => {
      const raw = Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0);
      const result = await receiver.receive(raw, request.headers[SIGNATURE_HEADER]);
      return reply.code(result.status).header('cache-control', 'no-store').send(result.body);
    });
  });
}
