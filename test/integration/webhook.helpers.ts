/** Helpers for the webhook tests: signed deliveries over real HTTP, the sandbox's view of our subscription. */
import { request } from 'undici';
import { signatureHeaderFor } from '../../src/modules/webhook/webhook.signature';
import type { TestApp } from '../helpers/app';

/** An app whose transfers run end to end on the sandbox's own webhooks, quickly (inbox and saga poll every 50 ms). */
export const END_TO_END_ENV = {
  WEBHOOK_POLL_INTERVAL_MS: '50',
  SAGA_POLL_INTERVAL_MS: '50',
  SAGA_RETRY_BASE_MS: '50',
  SAGA_RETRY_MAX_MS: '200',
  RATE_LIMIT_MUTATIONS_PER_MINUTE: '1000000',
  RATE_LIMIT_UPSTREAM_POINTS_PER_MINUTE: '1000000',
  LOG_LEVEL: 'warn',
};

export interface SandboxSubscription {
  id: string;
  url: string;
  events: string[];
  signingSecret: string | null;
  secretFingerprint: string | null;
  deliveries: { event: string; status: number | null; outcome: string; signed: boolean; duplicate: boolean }[];
}

export async function sandboxSubscriptions(t: TestApp): Promise<SandboxSubscription[]> {
  const res = await request(`${t.app.sandbox!.url}/__sandbox/webhooks`);
  return ((await res.body.json()) as { webhooks: SandboxSubscription[] }).webhooks;
}

export async function ownSubscription(t: TestApp): Promise<SandboxSubscription> {
  const subs = (await sandboxSubscriptions(t)).filter((s) => s.url === `${t.url}/webhooks/remittances`);
  if (subs.length !== 1) throw new Error(`expected one own subscription, found ${subs.length}`);
  return subs[0]!;
}

export async function postWebhook(
  url: string,
  body: string | Buffer,
  headers: Record<string, string> = {},
): Promise<{ status: number; body: any }> {
  const res = await request(`${url}/webhooks/remittances`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body,
  });
  const text = await res.body.text();
  let parsed: unknown = text;
  try {
    parsed = JSON.parse(text);
  } catch {
    /* not JSON */
  }
  return { status: res.statusCode, body: parsed };
}

export const nowS = () => Math.floor(Date.now() / 1000);

/** POSTs `payload` signed with `secret` (t = now unless given). */
export function postSigned(url: string, secret: string, payload: unknown, t = nowS()) {
  const body = typeof payload === 'string' ? payload : JSON.stringify(payload);
  return postWebhook(url, body, { 'x-service-signature': signatureHeaderFor(secret, t, body) });
}

export const documentEvent = (id: string, status: string, occurredAt: string, event = 'DocumentUpdatedEvents') => ({
  event,
  id,
  entityId: '22222222-2222-4222-8222-222222222222',
  entityType: 'Participant',
  documentType: 'PASSPORT',
  verificationStatus: status,
  occurredAt,
  tenantId: 'sandbox-tenant',
  version: 1,
});
