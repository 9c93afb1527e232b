/**
 * The service's webhook subscription at the remittances platform, and its signing secret.
 *
 * - Our URL is PUBLIC_URL + /webhooks/remittances (in sandbox mode PUBLIC_URL defaults to the service's
 *   own address, known once it listens).
 * - register: idempotent by URL. A subscription with our URL and the same event set is reused; one with
 *   other events is replaced (the platform has no update: create the new one — with a secret when the
 *   old one had one, so there is never a moment of unsigned mode — then delete the old ones).
 * - rotateSecret: the platform generates (first call) or rotates the secret and returns it once; we store
 *   it encrypted at once. The platform switches at once (no grace period); deliveries signed with the new
 *   secret that reach an instance before the row is written get a 401 and are retried by the platform.
 * - Only fingerprints are ever shown again.
 * - ensureSandboxRegistration (sandbox mode, at start): find-or-create our subscription by URL, and give
 *   it a secret unless we already hold the one the platform reports (same fingerprint); secrets stored
 *   for our URL whose subscription no longer exists are dropped. Idempotent across restarts.
 */
import type { Clock } from '../../shared/clock';
import type { Logger } from '../../shared/logger';
import { AppError, badInput, notFound } from '../../shared/errors';
import type { RemittancesClient } from '../../upstream/remittances/remittances.client';
import type { WebhookSubscription } from '../../upstream/remittances/remittances.types';
import { SUBSCRIBED_EVENTS, eventTypeOf } from './webhook.normalize';
import type { WebhookSecretStore } from './webhook.secrets';

export const WEBHOOK_PATH = '/webhooks/remittances';

export interface SubscriptionView {
  id: string;
  url: string;
  events: string[];
  createdAt: Date | null;
  /** The platform's view: v1 when it signs deliveries. */
  signatureVersion: string | null;
  secretFingerprint: string | null;
  secretRotatedAt: Date | null;
  /** The URL is this service's webhook endpoint. */
  isOwn: boolean;
  /** We hold (encrypted) the secret whose fingerprint the platform reports. */
  secretStored: boolean;
}

export interface SecretView {
  subscriptionId: string;
  fingerprint: string;
  rotatedAt: Date;
}

const sameEvents = (a: readonly string[], b: readonly string[]) => {
  const norm = (l: readonly string[]) => [...new Set(l.map((e) => e.toLowerCase()))].sort().join(',');
  return norm(a) === norm(b);
};
const date = (v: string | null | undefined) => (v ? new Date(v) : null);

export class WebhookSubscriptionService {
  private publicUrl: string | null;

  constructor(
    private readonly remittances: RemittancesClient,
    private readonly secrets: WebhookSecretStore,
    private readonly clock: Clock,
    private readonly logger: Logger,
    publicUrl: string | null,
  ) {
    this.publicUrl = publicUrl;
  }

  /** Sandbox mode: PUBLIC_URL defaults to the service's own address once it listens. */
  setDefaultPublicUrl(url: string): void {
    this.publicUrl ??= url;
  }

  ownUrl(): string {
    if (!this.publicUrl) throw new AppError('INVALID_STATE', 'PUBLIC_URL is not configured: the platform cannot reach this service');
    return `${this.publicUrl.replace(/\/+$/, '')}${WEBHOOK_PATH}`;
  }

  async list(): Promise<SubscriptionView[]> {
    const [{ webhooks }, stored] = await Promise.all([this.remittances.listWebhooks(), this.secrets.list()]);
    const own = this.publicUrl ? this.ownUrl() : null;
    return webhooks.map((w) => this.view(w, own, stored));
  }

  async register(opts: { events?: string[]; createSecret?: boolean } = {}): Promise<{ subscription: SubscriptionView; created: boolean; secret: SecretView | null }> {
    const events = opts.events?.length ? [...new Set(opts.events)] : [...SUBSCRIBED_EVENTS];
    const unknown = events.filter((e) => !eventTypeOf(e));
    if (unknown.length) throw badInput('unknown event names', { fields: [{ path: 'events', constraints: ['known event names'] }] });
    const url = this.ownUrl();
    const { webhooks } = await this.remittances.listWebhooks();
    const mine = webhooks.filter((w) => w.url === url);
    const same = mine.find((w) => sameEvents(w.events, events));
    if (same) {
      const stored = await this.secrets.list();
      const secret = opts.createSecret !== false && !this.holdsSecret(same, stored) ? await this.rotateSecret(same.id) : null;
      return { subscription: await this.one(same.id), created: false, secret };
    }
    const created = await this.remittances.createWebhook({ url, events });
    this.logger.info({ subscriptionId: created.id, url, events }, 'webhook subscription registered at the platform');
    const hadSecret = mine.some((w) => w.secretFingerprint);
    const secret = opts.createSecret !== false || hadSecret ? await this.rotateSecret(created.id) : null;
    for (const old of mine) await this.delete(old.id);
    return { subscription: await this.one(created.id), created: true, secret };
  }

  async delete(subscriptionId: string): Promise<boolean> {
    await this.remittances.deleteWebhook(subscriptionId);
    await this.secrets.remove(subscriptionId);
    this.logger.info({ subscriptionId }, 'webhook subscription deleted at the platform');
    return true;
  }

  /** Generates (first call) or rotates the signing secret; stores it encrypted; returns only its fingerprint. */
  async rotateSecret(subscriptionId?: string): Promise<SecretView> {
    const id = subscriptionId ?? (await this.ownSubscriptionId());
    const sub = (await this.remittances.listWebhooks()).webhooks.find((w) => w.id === id);
    if (!sub) throw notFound('Webhook subscription');
    const res = await this.remittances.rotateWebhookSecret(id);
    const rotatedAt = date(res.secretRotatedAt) ?? this.clock.now();
    const fingerprint = await this.secrets.put(id, sub.url, res.signingSecret, rotatedAt);
    this.logger.info({ subscriptionId: id, fingerprint }, 'webhook signing secret created or rotated');
    return { subscriptionId: id, fingerprint, rotatedAt };
  }

  /** Deletes the signing secret at the platform (deliveries resume unsigned) and ours. */
  async deleteSecret(subscriptionId?: string): Promise<boolean> {
    const id = subscriptionId ?? (await this.ownSubscriptionId());
    await this.remittances.deleteWebhookSecret(id);
    await this.secrets.remove(id);
    this.logger.warn({ subscriptionId: id }, 'webhook signing secret deleted');
    return true;
  }

  async storedSecrets(): Promise<SecretView[]> {
    return (await this.secrets.list()).map((s) => ({ subscriptionId: s.subscriptionId, fingerprint: s.fingerprint, rotatedAt: s.rotatedAt }));
  }

  /** Sandbox mode, at start: our subscription exists and is signed with a secret we hold. */
  async ensureSandboxRegistration(): Promise<{ subscriptionId: string; created: boolean; rotated: boolean }> {
    const url = this.ownUrl();
    const { webhooks } = await this.remittances.listWebhooks();
    let sub: WebhookSubscription | undefined = webhooks.find((w) => w.url === url && sameEvents(w.events, SUBSCRIBED_EVENTS));
    let created = false;
    if (!sub) {
      sub = await this.remittances.createWebhook({ url, events: [...SUBSCRIBED_EVENTS] });
      created = true;
    }
    const stored = await this.secrets.list();
    // secrets stored for our URL whose subscription the platform no longer has (an embedded sandbox that
    // restarted forgets them). Rows of other URLs belong to other instances (each with its own embedded
    // sandbox in development) and are left alone.
    const live = new Set(webhooks.map((w) => w.id).concat(sub.id));
    for (const s of stored) if (!live.has(s.subscriptionId) && s.url === url) await this.secrets.remove(s.subscriptionId);
    let rotated = false;
    if (!this.holdsSecret(sub, stored)) {
      await this.rotateSecret(sub.id);
      rotated = true;
    }
    this.logger.info({ subscriptionId: sub.id, url, created, rotated }, 'sandbox: webhook subscription ready');
    return { subscriptionId: sub.id, created, rotated };
  }

  private holdsSecret(sub: WebhookSubscription, stored: { subscriptionId: string; fingerprint: string }[]): boolean {
    return !!sub.secretFingerprint && stored.some((s) => s.subscriptionId === sub.id && s.fingerprint === sub.secretFingerprint);
  }

  private async ownSubscriptionId(): Promise<string> {
    const url = this.ownUrl();
    const { webhooks } = await this.remittances.listWebhooks();
    const mine = webhooks.filter((w) => w.url === url);
    if (mine.length === 0) throw new AppError('NOT_FOUND', 'This service has no webhook subscription at the platform: register one first');
    return mine[mine.length - 1]!.id;
  }

  private async one(id: string): Promise<SubscriptionView> {
    const found = (await this.list()).find((s) => s.id === id);
    if (!found) throw notFound('Webhook subscription');
    return found;
  }

  private view(w: WebhookSubscription, own: string | null, stored: { subscriptionId: string; fingerprint: string }[]): SubscriptionView {
    return {
      id: w.id,
      url: w.url,
      events: [...w.events],
      createdAt: date(w.createdAt),
      signatureVersion: w.signatureVersion ?? null,
      secretFingerprint: w.secretFingerprint ?? null,
      secretRotatedAt: date(w.secretRotatedAt ?? null),
      isOwn: own !== null && w.url === own,
      secretStored: this.holdsSecret(w, stored),
    };
  }
}
