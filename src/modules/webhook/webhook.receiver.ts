/**
 * Receiving one delivery: verify the signature over the raw bytes, parse, store in the inbox, nudge the processor —
 * or, for a transaction event whose stream is idle, apply it in the statement(s) that store it
 * (WebhookProcessor.applyAtReceipt). Nothing is stored unless the delivery verified (or unsigned mode is on) and
 * parsed. Unsigned mode exists only outside production and only while no secret is stored.
 * Answers: 401 signature missing, malformed, stale or not matching while a secret is set (in production: any delivery
 * while none is); 400 not a JSON object with an `event` name; 503 the database cannot store it (the platform
 * retries); 200 `{ received: true, duplicate }` (a duplicate of a stored event too).
 */
import { withQueryPhase } from '../../db/instrument';
import type { Clock } from '../../shared/clock';
import type { Logger } from '../../shared/logger';
import type { Metrics } from '../../shared/metrics';
import { eventNameOf } from './webhook.normalize';
import type { WebhookInbox } from './webhook.inbox.repository';
import type { WebhookProcessor } from './webhook.processor';
import type { WebhookSecretStore } from './webhook.secrets.repository';
import { verifySignature, type SignatureResult } from './webhook.signature';

interface ReceiveResult {
  status: 200 | 400 | 401 | 503;
  body: Record<string, unknown>;
}

export class WebhookReceiver {
  private readonly deliveries: Metrics['webhookDeliveries'];

  constructor(
    private readonly inbox: WebhookInbox,
    private readonly secrets: WebhookSecretStore,
    private readonly processor: WebhookProcessor,
    private readonly clock: Clock,
    private readonly logger: Logger,
    metrics: Metrics,
    private readonly opts: { toleranceS: number; allowUnsigned: boolean },
  ) {
    this.deliveries = metrics.webhookDeliveries;
  }

  async receive(rawBody: Buffer, signatureHeader: string | string[] | undefined): Promise<ReceiveResult> {
    let snapshot;
    try {
      snapshot = await this.secrets.get();
    } catch (err) {
      this.deliveries.inc({ outcome: 'unavailable' });
      this.logger.warn({ err: { message: (err as Error).message } }, 'webhook refused: cannot read the signing secrets');
      return { status: 503, body: { error: 'unavailable' } };
    }

    const verify = (secrets: readonly string[]): SignatureResult =>
      verifySignature({ header: signatureHeader, rawBody, secrets, nowMs: this.clock.nowMs(), toleranceS: this.opts.toleranceS });

    let signed = false;
    if (snapshot.signed || signatureHeader !== undefined) {
      let result = snapshot.signed ? verify(snapshot.secrets) : null;
      if (!result?.ok) {
        // another instance may have rotated (or created, or deleted) the secret: re-read once
        const fresh = await this.secrets.reloadAfterFailure().catch(() => null);
        if (fresh) {
          snapshot = fresh;
          result = fresh.signed ? verify(fresh.secrets) : null;
        }
      }
      if (snapshot.signed) {
        if (!result?.ok) {
          this.deliveries.inc({ outcome: 'bad_signature' });
          this.logger.warn({ reason: result?.reason ?? 'missing' }, 'webhook refused: signature does not verify');
          return { status: 401, body: { error: 'invalid_signature' } };
        }
        signed = true;
      }
    }
    if (!signed && !this.opts.allowUnsigned) {
      this.deliveries.inc({ outcome: 'unsigned_refused' });
      this.logger.warn('webhook refused: no signing secret is stored yet, and production never accepts unsigned deliveries');
      return { status: 401, body: { error: 'invalid_signature' } };
    }

    let payload: unknown;
    try {
      payload = JSON.parse(rawBody.toString('utf8'));
    } catch {
      this.deliveries.inc({ outcome: 'bad_request' });
      return { status: 400, body: { error: 'malformed_json' } };
    }
    const eventName = eventNameOf(payload);
    if (!eventName) {
      this.deliveries.inc({ outcome: 'bad_request' });
      return { status: 400, body: { error: 'not_an_event', message: 'expected a JSON object with an "event" name' } };
    }

    try {
      const delivery = this.inbox.prepare({ eventName, payload: payload as Record<string, unknown>, signed, receivedAt: this.clock.now() });
      const duplicate = await withQueryPhase('webhook.receive', async () => {
        // a transaction event is applied as it is stored when its stream is idle (one statement for a mere fact)
        const at = await this.processor.applyAtReceipt(delivery, (result) => this.inbox.receipt(delivery, result, this.clock.now()));
        if (at !== null) return at === 'duplicate';
        const stored = await this.inbox.store(delivery);
        if (!stored.duplicate) this.processor.nudge();
        return stored.duplicate;
      });
      this.deliveries.inc({ outcome: duplicate ? 'duplicate' : signed ? 'stored' : 'unsigned' });
      return { status: 200, body: { received: true, duplicate } };
    } catch (err) {
      this.deliveries.inc({ outcome: 'unavailable' });
      this.logger.warn(
        { err: { message: (err as Error).message }, event: eventName },
        'webhook not stored (database); the platform will retry',
      );
      return { status: 503, body: { error: 'unavailable' } };
    }
  }
}
