import { randomUUID } from 'node:crypto';
import type { Clock } from '../../shared/clock';
import type { Logger } from '../../shared/logger';
import type { TransferRepository } from './transfer.repository';
import { backoffDelay } from '../../shared/backoff';
import { LeaseRepository } from './transfer.leases.repository';
import type { Loaded } from './transfer.rows.repository';

/** A lease kept alive by TransferLeases.keep. */
export interface LeaseHandle {
  /** Set when a renewal found the lease held by someone else (or gone). */
  lost: boolean;
  /** The holder is releasing it (a renewal that finds it gone is then no loss). */
  releasing: boolean;
  /** How many renewals succeeded (tests). */
  renewals: number;
  /** Stops renewing (waits for a renewal in flight). */
  stop(): Promise<void>;
}

/**
 * A held lease that the saga may release with its last write (TransferSaga.advance): `released` tells the holder it
 * need not release it again.
 */
export interface LeaseRelease {
  owner: string;
  released: boolean;
}

/**
 * Who may advance a transfer now: one lease per transfer (transfers.lease_owner / lease_until), so one process
 * runs its saga at a time. The worker claims due transfers in batches (FOR UPDATE SKIP LOCKED: any number of
 * instances share the work); a mutation or a platform decision takes one transfer's lease (withLease). A lease
 * that expires — its holder died or stalled — is free for anyone: crash recovery needs nothing else.
 */
export class TransferLeases {
  /** The leases this process keeps alive, by transfer (advance() stops at a step boundary once one is lost). */
  private readonly held = new Map<string, LeaseHandle>();
  private readonly store: LeaseRepository;

  constructor(
    private readonly repo: TransferRepository,
    private readonly clock: Clock,
    private readonly logger: Logger,
    private readonly leaseMs: number,
  ) {
    this.store = new LeaseRepository(repo.sql);
  }

  async acquire(transferId: string, owner: string): Promise<boolean> {
    return (await this.take(transferId, owner)) !== null;
  }

  /** acquire(), answering the transfer with its steps as the lease was taken (null: not acquired). One statement. */
  async take(transferId: string, owner: string): Promise<Loaded | null> {
    const now = this.clock.now();
    return this.store.take(transferId, owner, now, new Date(now.getTime() + this.leaseMs));
  }

  async release(transferId: string, owner: string): Promise<void> {
    await this.store.release(transferId, owner);
  }

  /** Claims up to `limit` due transfers whose lease is free or expired (FOR UPDATE SKIP LOCKED: N workers never collide). */
  async claimDue(owner: string, limit: number): Promise<string[]> {
    return (await this.claimDueWithWakes(owner, limit)).map((r) => r.id);
  }

  /**
   * claimDue, with each transfer's wake_seq at the claim (for backOff), the transfer with its steps as claimed (what
   * the saga decides from first) and when the lease was taken (Date.now()).
   */
  async claimDueWithWakes(owner: string, limit: number): Promise<{ id: string; wakeSeq: number; loaded: Loaded; claimedAt: number }[]> {
    const now = this.clock.now();
    const claimed = await this.store.claimDue(owner, limit, now, new Date(now.getTime() + this.leaseMs));
    const claimedAt = Date.now();
    return claimed.map((loaded) => ({ id: loaded.t.id, wakeSeq: loaded.t.wakeSeq, loaded, claimedAt }));
  }

  /**
   * After an advance failed unexpectedly (e.g. the database): look again in leaseMs — unless a wake-up arrived
   * since the claim (`wakeSeq`), which keeps it due — then release the lease. (Keeping the lease instead would
   * hold every wake-up, e.g. a compliance decision whose kick found the lease taken, until the lease expired.)
   */
  async backOff(transferId: string, owner: string, wakeSeq: number): Promise<void> {
    await this.repo.deferIfNoWake(transferId, wakeSeq, new Date(this.clock.nowMs() + this.leaseMs), owner);
    await this.release(transferId, owner);
  }

  /**
   * Keeps a held lease alive while the saga advances (heartbeat): every leaseMs/3 (real time) lease_until is
   * pushed to clock.now() + leaseMs, as long as `owner` still holds it. A single advance() may outlast the
   * lease (slow upstream calls with retries, a moved clock): without renewal another instance would claim
   * the transfer mid-step. Should a renewal find the lease gone (it expired — e.g. the event loop or the
   * database stalled longer than the lease — and another instance took it), `lost` is set and advance()
   * stops at the next step boundary; the intent rows and per-effect idempotency keys keep even that overlap
   * free of double effects.
   */
  keep(transferId: string, owner: string): LeaseHandle {
    const every = Math.max(20, Math.floor(this.leaseMs / 3));
    let renewing: Promise<unknown> = Promise.resolve();
    const handle: LeaseHandle = {
      lost: false,
      releasing: false,
      renewals: 0,
      stop: async () => {
        clearInterval(timer);
        if (this.held.get(transferId) === handle) this.held.delete(transferId);
        await renewing.catch(() => undefined);
      },
    };
    const timer = setInterval(() => {
      renewing = this.renew(transferId, owner).then(
        (held) => {
          if (held) handle.renewals++;
          else if (!handle.lost && !handle.releasing) {
            handle.lost = true;
            this.logger.warn({ transferId }, 'transfer lease lost while advancing; stopping at the next step boundary');
          }
        },
        (err) => this.logger.warn({ err: { message: (err as Error).message }, transferId }, 'renewing a transfer lease failed; retrying'),
      );
    }, every);
    timer.unref?.();
    this.held.set(transferId, handle);
    return handle;
  }

  /** Marks the lease this process keeps on the transfer as being released by its holder (or no longer: `on` false). */
  releasing(transferId: string, on: boolean): void {
    const h = this.held.get(transferId);
    if (h) h.releasing = on;
  }

  /** Whether the lease this process keeps on the transfer was found taken by another holder. */
  isLost(transferId: string): boolean {
    return this.held.get(transferId)?.lost ?? false;
  }

  /** Pushes lease_until forward if `owner` still holds the lease. */
  async renew(transferId: string, owner: string): Promise<boolean> {
    return this.store.renew(transferId, owner, new Date(this.clock.nowMs() + this.leaseMs));
  }

  /** Runs fn holding the lease; waits (polling) up to waitMs for it. Returns null when it could not get it. */
  async withLease<T>(
    transferId: string,
    ownerPrefix: string,
    waitMs: number,
    fn: (loaded: Loaded, lease: LeaseRelease) => Promise<T>,
  ): Promise<{ value: T } | null> {
    // One token per call: concurrent calls of the same process must exclude each other too (no re-entry).
    const owner = `${ownerPrefix}:${randomUUID()}`;
    const deadline = Date.now() + waitMs;
    let loaded: Loaded | null;
    for (let attempt = 0; !(loaded = await this.take(transferId, owner)); attempt++) {
      if (Date.now() >= deadline) return null;
      await new Promise((r) => setTimeout(r, backoffDelay({ baseMs: 5, maxMs: 100, attempt, jitter: 'double' })));
    }
    const lease = this.keep(transferId, owner);
    const release: LeaseRelease = { owner, released: false };
    try {
      return { value: await fn(loaded, release) };
    } finally {
      await lease.stop();
      if (!release.released) await this.release(transferId, owner).catch(() => undefined);
    }
  }
}
