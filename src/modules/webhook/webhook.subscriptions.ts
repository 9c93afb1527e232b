/**
 * The service's webhook subscription at the remittances platform, and its signing secret.
 *
 * - Our URL is PUBLIC_URL + /webhooks/remittances (in sandbox mode PUBLIC_URL defaults to the service's
 *   own address, known once it listens).
 * - The service relies on one subscription of its own: our URL, every event it processes (SUBSCRIBED_EVENTS,
 *   matched case-insensitively; more events are fine) and signed with a secret we hold.
 * - ensureRegistration (at start, every mode with a known URL; webhook.module.ts retries it until it
 *   succeeds): find-or-create that subscription, and give it a secret unless we already hold the one the
 *   platform reports (same fingerprint); secrets stored for our URL whose subscription no longer exists are
 *   dropped. Idempotent across restarts; several instances sharing one database (and one PUBLIC_URL) take
 *   turns under a lease (WebhookSecretStore.exclusive), so they neither create two subscriptions nor rotate
 *   each other's secret away.
 * - register: idempotent by URL and events. The events the service needs are always kept (merged into any
 *   requested list), so no call can unsubscribe it. The platform has no update: another event list creates a
 *   new subscription — signed with a new secret at once — and only then removes our older subscriptions whose
 *   events it all receives too; there is never a moment without a signed subscription covering every needed
 *   event.
 * - rotateSecret: the platform generates (first call) or rotates the secret and returns it once; we store
 *   it encrypted at once. The platform switches at once (no grace period); deliveries signed with the new
 *   secret that reach an instance before the row is written get a 401 and are retried by the platform.
 * - deleteSecret / delete of our own subscription: refused in production (INVALID_STATE) when it would leave
 *   no signed subscription covering the needed events — that would reopen a window in which the service hears
 *   nothing it can trust; rotate instead. Outside production both stay allowed (development may go back to
 *   the documented unsigned mode; the receiver accepts unsigned deliveries only there).
 * - Only fingerprints are ever shown again.
 */
import type { Clock } from '../../shared/clock';
import type { Logger } from '../../shared/logger';
import { AppError, badField, notFound } from '../../shared/errors';
import type { RemittancesClient } from '../../upstream/remittances/remittances.client';
import type { WebhookSubscription } from '../../upstream/remittances/remittances.types';
import { SUBSCRIBED_EVENTS, eventTypeOf } from './webhook.normalize';
import type { WebhookSecretStore } from './webhook.secrets.repository';

export const WEBHOOK_PATH = '/webhooks/remittances';
/** The lease under which instances sharing one database register (one at a time per URL). */
const registrationKey = (url: string) => `registration:${url}`;

interface SubscriptionView {
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

interface SecretView {
  subscriptionId: string;
  fingerprint: string;
  rotatedAt: Date;
}

const sameEvents = (a: readonly string[], b: readonly string[]) => {
  const norm = (l: readonly string[]) => [...new Set(l.map((e) => e.toLowerCase()))].sort().join(',');
  return norm(a) === norm(b);
};
/** Every event of `needed` is in `events` (case-insensitively, as the platform matches them). */
const covers = (events: readonly string[], needed: readonly string[]) => {
  const have = new Set(events.map((e) => e.toLowerCase()));
  return needed.every((e) => have.has(e.toLowerCase()));
};
/** `a` then the events of `b` it lacks (first spelling kept). */
const union = (a: readonly string[], b: readonly string[]) => {
  const out = [...a];
  for (const e of b) if (!covers(out, [e])) out.push(e);
  return out;
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
    private readonly opts: { production: boolean } = { production: false },
  ) {
    this.publicUrl = publicUrl;
  }

  /** Whether the URL of our endpoint is known (PUBLIC_URL, or the sandbox default). */
  hasUrl(): boolean {
    return this.publicUrl !== null;
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

  async register(
    opts: { events?: string[]; createSecret?: boolean } = {},
  ): Promise<{ subscription: SubscriptionView; created: boolean; secret: SecretView | null }> {
    const requested = opts.events?.length ? [...new Set(opts.events)] : [...SUBSCRIBED_EVENTS];
    const unknown = requested.filter((e) => !eventTypeOf(e));
    if (unknown.length) throw badField('input.events', 'INVALID_CHOICE', 'events names an event this service does not know');
    // what the service needs stays subscribed, whatever was asked for
    const events = union(SUBSCRIBED_EVENTS, requested);
    const url = this.ownUrl();
    // a subscription of ours without a secret would be refused in production: always signed there
    const withSecret = opts.createSecret !== false || this.opts.production;
    return this.secrets.exclusive(registrationKey(url), async () => {
      const { webhooks } = await this.remittances.listWebhooks();
      const mine = webhooks.filter((w) => w.url === url);
      const same = mine.find((w) => sameEvents(w.events, events));
      if (same) {
        const stored = await this.secrets.list();
        const secret = withSecret && !this.holdsSecret(same, stored) ? await this.rotateSecret(same.id) : null;
        return { subscription: await this.one(same.id), created: false, secret };
      }
      const created = await this.remittances.createWebhook({ url, events });
      this.logger.info({ subscriptionId: created.id, url, events }, 'webhook subscription registered at the platform');
      const secret = withSecret || mine.some((w) => w.secretFingerprint) ? await this.rotateSecret(created.id) : null;
      // Superseded only now that the new one is signed with a secret we hold: our older subscriptions whose
      // every event it receives too. Deliveries the platform already sent through them were sent through the
      // new one as well (the inbox drops the duplicates).
      if (secret) for (const old of mine) if (covers(events, old.events)) await this.remove(old.id);
      return { subscription: await this.one(created.id), created: true, secret };
    });
  }

  async delete(subscriptionId: string): Promise<boolean> {
    await this.assertNotRelied(subscriptionId, 'delete the subscription');
    return this.remove(subscriptionId);
  }

  private async remove(subscriptionId: string): Promise<boolean> {
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

  /** Deletes the signing secret at the platform (deliveries resume unsigned) and ours; refused in production for ours. */
  async deleteSecret(subscriptionId?: string): Promise<boolean> {
    const id = subscriptionId ?? (await this.ownSubscriptionId());
    await this.assertNotRelied(id, 'delete its signing secret');
    await this.remittances.deleteWebhookSecret(id);
    await this.secrets.remove(id);
    this.logger.warn({ subscriptionId: id }, 'webhook signing secret deleted');
    return true;
  }

  async storedSecrets(): Promise<SecretView[]> {
    return (await this.secrets.list()).map((s) => ({
      subscriptionId: s.subscriptionId,
      fingerprint: s.fingerprint,
      rotatedAt: s.rotatedAt,
    }));
  }

  /**
   * At start: our subscription exists, covers every event we process and is signed with a secret we hold.
   * Under the registration lease; throws (the caller retries) when the platform or the database fails.
   */
  async ensureRegistration(): Promise<{ subscriptionId: string; created: boolean; rotated: boolean }> {
    const url = this.ownUrl();
    return this.secrets.exclusive(registrationKey(url), async () => {
      const { webhooks } = await this.remittances.listWebhooks();
      const stored = await this.secrets.list();
      const candidates = webhooks.filter((w) => w.url === url && covers(w.events, SUBSCRIBED_EVENTS));
      let sub: WebhookSubscription | undefined = candidates.find((w) => this.holdsSecret(w, stored)) ?? candidates[0];
      let created = false;
      if (!sub) {
        sub = await this.remittances.createWebhook({ url, events: [...SUBSCRIBED_EVENTS] });
        created = true;
      }
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
      this.logger.info({ subscriptionId: sub.id, url, created, rotated }, 'webhook subscription ready');
      return { subscriptionId: sub.id, created, rotated };
    });
  }

  /**
   * Production: refuses to remove a subscription of ours (or its secret) when no other subscription of ours
   * covering every needed event and signed with a secret we hold would remain.
   */
  private async assertNotRelied(subscriptionId: string, what: string): Promise<void> {
    if (!this.opts.production || !this.publicUrl) return;
    const url = this.ownUrl();
    const [{ webhooks }, stored] = await Promise.all([this.remittances.listWebhooks(), this.secrets.list()]);
    const target = webhooks.find((w) => w.id === subscriptionId);
    if (!target || target.url !== url) return;
    const others = webhooks.filter(
      (w) => w.id !== subscriptionId && w.url === url && covers(w.events, SUBSCRIBED_EVENTS) && this.holdsSecret(w, stored),
    );
    if (others.length === 0)
      throw new AppError(
        'INVALID_STATE',
        `This service relies on this webhook subscription to receive signed platform events: cannot ${what} in production (rotate the secret instead)`,
      );
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
