/**
 * The signing secrets the service verifies deliveries with: one per platform subscription we hold a
 * secret for, encrypted at rest (webhook.crypto.ts), shared by every instance through the database.
 *
 * Reading: cached for cacheMs while signed; re-read at once when a delivery does not verify (at most once
 * per minReloadMs, so garbage cannot turn into a query storm), so a rotation done through another
 * instance is picked up on the first delivery signed with the new secret. In unsigned mode (no secret
 * stored) every delivery re-reads, so a secret created by another instance closes unsigned mode at once.
 * A row that cannot be decrypted (wrong key) still counts as "a secret is configured": the service never
 * falls back to accepting unsigned deliveries because of a configuration mistake; it refuses them all and
 * says why in /readyz and the logs.
 */
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { prismaRawSql, type RawSql } from '../../db/raw-sql';
import type { PrismaClient } from '../../generated/prisma/client';
import type { Clock } from '../../shared/clock';
import type { Logger } from '../../shared/logger';
import { SecretBox, secretFingerprint } from './webhook.crypto';

interface SecretSnapshot {
  /** Decrypted secrets (never logged, never returned by the API). */
  secrets: string[];
  /** true when at least one secret row exists (even one we cannot decrypt). */
  signed: boolean;
  fingerprints: string[];
  undecryptable: number;
  loadedAtMs: number;
}

export class WebhookSecretStore {
  private snapshot: SecretSnapshot | null = null;
  private loading: Promise<SecretSnapshot> | null = null;
  private lastMode: 'signed' | 'unsigned' | null = null;

  constructor(
    private readonly prisma: PrismaClient,
    private readonly box: SecretBox,
    private readonly clock: Clock,
    private readonly logger: Logger,
    /** unsignedAccepted: false in production (only what the warning says depends on it: the receiver decides). */
    private readonly opts: { cacheMs: number; minReloadMs?: number; unsignedAccepted?: boolean } = { cacheMs: 5_000 },
  ) {
    this.sql = prismaRawSql(prisma);
  }

  private readonly sql: RawSql;

  get keyId(): string {
    return this.box.keyId;
  }

  /** The last loaded snapshot (for /readyz details); null before the first load. */
  peek(): SecretSnapshot | null {
    return this.snapshot;
  }

  /** Current secrets: cached while signed and fresh; re-read otherwise. Stale cache is used if the DB fails. */
  async get(): Promise<SecretSnapshot> {
    const s = this.snapshot;
    if (s && s.signed && this.clock.nowMs() - s.loadedAtMs < this.opts.cacheMs) return s;
    return this.reload();
  }

  /** Re-reads after a failed verification, unless the snapshot is younger than minReloadMs. */
  async reloadAfterFailure(): Promise<SecretSnapshot | null> {
    const s = this.snapshot;
    if (s && this.clock.nowMs() - s.loadedAtMs < (this.opts.minReloadMs ?? 1_000)) return null;
    return this.reload();
  }

  async reload(): Promise<SecretSnapshot> {
    this.loading ??= this.load().finally(() => (this.loading = null));
    try {
      return await this.loading;
    } catch (err) {
      if (this.snapshot) {
        this.logger.warn({ err: { message: (err as Error).message } }, 'webhook secrets: reload failed, using the previous ones');
        return this.snapshot;
      }
      throw err;
    }
  }

  private async load(): Promise<SecretSnapshot> {
    const rows = await this.prisma.webhookSecret.findMany({ orderBy: { rotatedAt: 'desc' } });
    const secrets: string[] = [];
    const fingerprints: string[] = [];
    let undecryptable = 0;
    for (const r of rows) {
      try {
        secrets.push(this.box.decrypt(r.encryptedSecret, r.subscriptionId));
        fingerprints.push(r.fingerprint);
      } catch (err) {
        undecryptable++;
        this.logger.error(
          { subscriptionId: r.subscriptionId, fingerprint: r.fingerprint, err: { message: (err as Error).message } },
          'webhook secret cannot be decrypted with WEBHOOK_SECRET_ENCRYPTION_KEY: deliveries signed with it will be refused',
        );
      }
    }
    const snapshot: SecretSnapshot = { secrets, signed: rows.length > 0, fingerprints, undecryptable, loadedAtMs: this.clock.nowMs() };
    this.snapshot = snapshot;
    const mode = snapshot.signed ? 'signed' : 'unsigned';
    if (mode !== this.lastMode) {
      if (mode === 'unsigned' && this.opts.unsignedAccepted === false)
        this.logger.warn('webhooks: no signing secret is stored yet — every delivery is refused until the service has registered one');
      else if (mode === 'unsigned')
        this.logger.warn(
          'webhooks: UNSIGNED mode — no signing secret is configured, unsigned deliveries are accepted (create one with the rotateWebhookSecret mutation)',
        );
      else this.logger.info({ fingerprints }, 'webhooks: signed mode — deliveries must carry a valid X-Service-Signature');
      this.lastMode = mode;
    }
    return snapshot;
  }

  /** Stores (or replaces) the secret of a subscription, encrypted; returns its fingerprint. */
  async put(subscriptionId: string, url: string | null, secret: string, rotatedAt: Date): Promise<string> {
    const fingerprint = secretFingerprint(secret);
    const encryptedSecret = this.box.encrypt(secret, subscriptionId);
    await this.prisma.webhookSecret.upsert({
      where: { subscriptionId },
      create: { subscriptionId, url, encryptedSecret, fingerprint, rotatedAt },
      update: { url: url ?? undefined, encryptedSecret, fingerprint, rotatedAt },
    });
    this.snapshot = null;
    await this.reload().catch(() => undefined);
    return fingerprint;
  }

  async remove(subscriptionId: string): Promise<boolean> {
    const { count } = await this.prisma.webhookSecret.deleteMany({ where: { subscriptionId } });
    this.snapshot = null;
    await this.reload().catch(() => undefined);
    return count > 0;
  }

  /**
   * Runs `fn` holding the lease `key`, shared by every instance on this database: a row of
   * webhook_stream_leases (inbox streams are named tx:/doc:/agent:/misc:…, so other names never meet them).
   * Waits up to waitMs for another holder; a crashed holder's lease expires after leaseMs. Used so that
   * instances registering at the same time take turns (webhook.subscriptions.ts).
   */
  async exclusive<T>(key: string, fn: () => Promise<T>, opts: { leaseMs?: number; waitMs?: number } = {}): Promise<T> {
    const owner = randomUUID();
    const leaseMs = opts.leaseMs ?? 60_000;
    const deadline = this.clock.nowMs() + (opts.waitMs ?? 30_000);
    for (;;) {
      const now = this.clock.now();
      const got = await this.sql.query<{ stream_key: string }>`
        INSERT INTO webhook_stream_leases (stream_key, lease_owner, lease_until) VALUES (${key}, ${owner}, ${new Date(now.getTime() + leaseMs)})
        ON CONFLICT (stream_key) DO UPDATE SET lease_owner = EXCLUDED.lease_owner, lease_until = EXCLUDED.lease_until
        WHERE webhook_stream_leases.lease_until < ${now}
        RETURNING stream_key`;
      if (got.length > 0) break;
      if (this.clock.nowMs() > deadline) throw new Error('another instance holds the webhook registration lease');
      await sleep(100);
    }
    try {
      return await fn();
    } finally {
      await this.sql.execute`DELETE FROM webhook_stream_leases WHERE stream_key = ${key} AND lease_owner = ${owner}`.catch(() => undefined);
    }
  }

  /** Rows without the secret (for the admin API). */
  list(): Promise<{ subscriptionId: string; url: string | null; fingerprint: string; rotatedAt: Date }[]> {
    return this.prisma.webhookSecret.findMany({
      select: { subscriptionId: true, url: true, fingerprint: true, rotatedAt: true },
      orderBy: { rotatedAt: 'desc' },
    });
  }
}
