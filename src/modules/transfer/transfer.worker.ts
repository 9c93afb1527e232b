import { randomUUID } from 'node:crypto';
import type { Logger } from '../../shared/logger';
import type { IdempotencyService } from '../../db/idempotency.service';
import { PollLoop } from '../../shared/poll-loop';
import { withQueryPhase } from '../../db/instrument';
import type { Loaded } from './transfer.rows.repository';
import type { LeaseRelease } from './transfer.leases';
import type { TransferSaga } from './transfer.saga';

interface WorkerOptions {
  pollIntervalMs: number;
  /** The transfers' lease (SAGA_LEASE_MS): a claim older than a third of it is renewed before its transfer is advanced. */
  leaseMs: number;
  batchSize: number;
  /** Claimed transfers advanced at once (each holds at most one pool connection at a time; default 1). */
  concurrency?: number;
}

/**
 * Runs due sagas. Each tick claims up to batchSize transfers whose next_run_at has come and whose lease is free
 * or expired (FOR UPDATE SKIP LOCKED, so any number of instances share the work), advances each under its
 * lease — renewed by a heartbeat (TransferLeases.keep) for as long as the advance runs —, then releases it
 * (after an error too: it then backs off through next_run_at — TransferLeases.backOff —, never by holding the lease,
 * which would hold up a wake-up such as a compliance decision whose kick found the transfer busy). A process that dies holding leases loses them when they expire: another tick
 * (this instance after a restart, or any other) reclaims the transfer — crash recovery needs nothing else.
 * `nudge()` runs a tick at once (createTransfer, webhooks), instead of waiting for the poll interval.
 */
export class TransferWorker {
  readonly owner = `worker:${randomUUID()}`;
  /** Polls every pollIntervalMs after the last tick ended; nudge() runs a tick at once (or right after the one running). */
  private readonly loop: PollLoop;
  private lastPurge = 0;

  constructor(
    private readonly saga: TransferSaga,
    private readonly idempotency: IdempotencyService,
    private readonly logger: Logger,
    private readonly opts: WorkerOptions,
  ) {
    this.loop = new PollLoop(() => withQueryPhase('saga.worker', () => this.tick()), {
      intervalMs: opts.pollIntervalMs,
      cadence: 'after-round',
    });
  }

  start(): void {
    this.loop.start();
  }

  /** Stops polling and waits for the tick in flight, which stops claiming and advancing at its next boundary. */
  stop(): Promise<void> {
    return this.loop.stop();
  }

  nudge(): void {
    this.loop.wake();
  }

  /** One round: claim due transfers and advance them. Returns how many were processed (tests call it directly). */
  async tick(): Promise<number> {
    let processed = 0;
    try {
      for (let round = 0; round < 20 && !this.loop.isClosed; round++) {
        const claimed = await this.saga.leases.claimDueWithWakes(this.owner, this.opts.batchSize);
        if (claimed.length === 0) break;
        // Advanced `concurrency` at a time (distinct transfers, each under its own lease: like that many instances).
        const queue = [...claimed];
        const lane = async () => {
          for (let c = queue.shift(); c !== undefined && !this.loop.isClosed; c = queue.shift()) if (await this.runOne(c)) processed++;
        };
        await Promise.all(Array.from({ length: Math.min(Math.max(1, this.opts.concurrency ?? 1), queue.length) }, lane));
      }
      if (Date.now() - this.lastPurge > 3600_000) {
        this.lastPurge = Date.now();
        await this.idempotency.purgeExpired();
      }
    } catch (err) {
      this.logger.error({ err: { message: (err as Error).message } }, 'transfer worker tick failed');
    }
    return processed;
  }

  /** Advances one claimed transfer under its lease, then releases it. True when the advance succeeded. */
  private async runOne(c: { id: string; wakeSeq: number; loaded: Loaded; claimedAt: number }): Promise<boolean> {
    const { id, wakeSeq } = c;
    // Claimed in a batch and advanced after others: a transfer whose lease may have run out while it waited may
    // belong to another instance by now — renew first (unless claimed within the last third of a lease), skip it
    // unless still ours; then what the claim read may be old: read it again.
    const late = Date.now() - c.claimedAt > this.opts.leaseMs / 3;
    if (late && !(await this.saga.leases.renew(id, this.owner))) return false;
    const lease = this.saga.leases.keep(id, this.owner); // heartbeat: a long advance never outlives its lease
    const release: LeaseRelease = { owner: this.owner, released: false }; // the saga's last write may release it
    let failed = false;
    try {
      await this.saga.advance(id, { cause: 'worker', actor: 'worker' }, late ? null : c.loaded, release);
    } catch (err) {
      failed = true;
      this.logger.error({ err, transferId: id }, 'saga step failed; will retry after a back-off (or at once if woken meanwhile)');
    } finally {
      await lease.stop();
    }
    // The lease is always released: a wake-up (a kick that found the transfer busy) must not wait for it to expire.
    if (failed) {
      if (!release.released) await this.saga.leases.backOff(id, this.owner, wakeSeq).catch(() => undefined);
    } else if (!release.released) await this.saga.leases.release(id, this.owner).catch(() => undefined);
    return !failed;
  }
}
