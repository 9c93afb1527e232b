/**
 * Webhook subscriptions of the simulated remittances platform: the store and the
 * /organizations/{tenant}/webhooks routes.
 */
import type { FastifyInstance } from 'fastify';
import type { RemittancesAuth } from './remittances.auth';
import { badRequest, notFound } from './remittances.errors';
import { isKnownEventName } from './remittances.events';
import { isRecord, randomSecret, sha256Hex, uuid } from './remittances.util';
import type { SandboxContext } from '../sandbox.context';

export const MAX_WEBHOOK_URL_LENGTH = 2048;
const LOOPBACK_HOSTS = new Set(['127.0.0.1', 'localhost', '[::1]', '::1']);

export interface DeliveryRecord {
  deliveryId: string;
  event: string;
  attempt: number;
  status: number | null; // HTTP status of the receiver, null when unreachable
  outcome: 'delivered' | 'failed' | 'unreachable' | 'dropped';
  willRetry: boolean;
  signed: boolean;
  duplicate: boolean;
  error?: string;
  at: string; // sandbox clock
}

export interface Subscription {
  id: string;
  tenantId: string;
  url: string;
  events: string[];
  isBatch: boolean;
  createdAt: string;
  secret: string | null;
  secretFingerprint: string | null;
  secretRotatedAt: string | null;
  deliveries: DeliveryRecord[];
}

export interface SubscriptionView {
  id: string;
  url: string;
  events: string[];
  isBatch: boolean;
  createdAt: string;
  signatureVersion: 'v1' | null;
  secretFingerprint: string | null;
  secretRotatedAt: string | null;
}

export const MAX_DELIVERY_RECORDS = 200;

export class WebhookStore {
  private readonly subs = new Map<string, Subscription>();

  constructor(private readonly ctx: SandboxContext) {}

  reset(): void {
    this.subs.clear();
  }

  all(): Subscription[] {
    return [...this.subs.values()];
  }

  byTenant(tenantId: string): Subscription[] {
    return this.all().filter((s) => s.tenantId === tenantId);
  }

  get(tenantId: string, id: string): Subscription | undefined {
    const s = this.subs.get(id);
    return s && s.tenantId === tenantId ? s : undefined;
  }

  isLive(sub: Subscription): boolean {
    return this.subs.get(sub.id) === sub;
  }

  create(tenantId: string, body: unknown): Subscription {
    if (!isRecord(body)) throw badRequest('body must be a JSON object');
    const problems: Array<{ field: string; problem: string }> = [];
    const url = body.url;
    if (typeof url !== 'string' || url.length === 0) problems.push({ field: 'url', problem: 'required' });
    else if (url.length > MAX_WEBHOOK_URL_LENGTH)
      problems.push({ field: 'url', problem: `longer than ${MAX_WEBHOOK_URL_LENGTH} characters` });
    else {
      let parsed: URL | null = null;
      try {
        parsed = new URL(url);
      } catch {
        problems.push({ field: 'url', problem: 'not a valid URL' });
      }
      if (parsed) {
        const loopbackHttp = parsed.protocol === 'http:' && LOOPBACK_HOSTS.has(parsed.hostname);
        if (parsed.protocol !== 'https:' && !loopbackHttp)
          problems.push({ field: 'url', problem: 'must be https (http only to 127.0.0.1, localhost or ::1 in the sandbox)' });
      }
    }
    const events = body.events;
    if (!Array.isArray(events) || events.length === 0) problems.push({ field: 'events', problem: 'at least one event name is required' });
    else {
      events.forEach((e, i) => {
        if (typeof e !== 'string' || !isKnownEventName(e))
          problems.push({ field: `events[${i}]`, problem: `unknown event name ${JSON.stringify(e)}` });
      });
    }
    if (body.isBatch !== undefined && typeof body.isBatch !== 'boolean') problems.push({ field: 'isBatch', problem: 'must be a boolean' });
    if (problems.length > 0) throw badRequest('invalid webhook subscription', problems);

    const sub: Subscription = {
      id: uuid(),
      tenantId,
      url: url as string,
      events: [...(events as string[])],
      isBatch: body.isBatch === true,
      createdAt: this.ctx.now().toISOString(),
      secret: null,
      secretFingerprint: null,
      secretRotatedAt: null,
      deliveries: [],
    };
    this.subs.set(sub.id, sub);
    return sub;
  }

  delete(tenantId: string, id: string): void {
    if (!this.get(tenantId, id)) throw notFound('webhook');
    this.subs.delete(id);
  }

  rotateSecret(tenantId: string, id: string) {
    const sub = this.get(tenantId, id);
    if (!sub) throw notFound('webhook');
    const secret = randomSecret(32); // 44 characters of base64
    sub.secret = secret;
    sub.secretFingerprint = sha256Hex(secret).slice(0, 8);
    sub.secretRotatedAt = this.ctx.now().toISOString();
    return {
      signingSecret: secret,
      secretFingerprint: sub.secretFingerprint,
      signatureVersion: 'v1' as const,
      secretRotatedAt: sub.secretRotatedAt,
    };
  }

  deleteSecret(tenantId: string, id: string): void {
    const sub = this.get(tenantId, id);
    if (!sub) throw notFound('webhook');
    sub.secret = null;
    sub.secretFingerprint = null;
    sub.secretRotatedAt = this.ctx.now().toISOString();
  }

  static view(sub: Subscription): SubscriptionView {
    return {
      id: sub.id,
      url: sub.url,
      events: [...sub.events],
      isBatch: sub.isBatch,
      createdAt: sub.createdAt,
      signatureVersion: sub.secret ? 'v1' : null,
      secretFingerprint: sub.secretFingerprint,
      secretRotatedAt: sub.secretRotatedAt,
    };
  }
}

export function registerWebhookRoutes(app: FastifyInstance, store: WebhookStore, auth: RemittancesAuth): void {
  type P = { tenant: string; webhookId: string };
  app.post<{ Params: { tenant: string } }>('/organizations/:tenant/webhooks', async (request, reply) => {
    const sub = store.create(auth.principal(request).tenantId, request.body);
    return reply.code(201).send(WebhookStore.view(sub));
  });
  app.get<{ Params: { tenant: string } }>('/organizations/:tenant/webhooks', async (request) => ({
    webhooks: store.byTenant(auth.principal(request).tenantId).map((s) => WebhookStore.view(s)),
  }));
  app.delete<{ Params: P }>('/organizations/:tenant/webhooks/:webhookId', async (request, reply) => {
    store.delete(auth.principal(request).tenantId, request.params.webhookId);
    return reply.code(204).send();
  });
  app.post<{ Params: P }>('/organizations/:tenant/webhooks/:webhookId/secret', { preHandler: auth.requireAgent }, async (request) =>
    store.rotateSecret(auth.principal(request).tenantId, request.params.webhookId),
  );
  app.delete<{ Params: P }>(
    '/organizations/:tenant/webhooks/:webhookId/secret',
    { preHandler: auth.requireAgent },
    async (request, reply) => {
      store.deleteSecret(auth.principal(request).tenantId, request.params.webhookId);
      return reply.code(204).send();
    },
  );
}
