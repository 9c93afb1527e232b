import type { SagaStep } from '../../generated/prisma/client';
import type { LeaseRelease, TransferLeases } from './transfer.leases';
import type { ChangeResult, TransferRow } from './transfer.repository';
import type { Loaded } from './transfer.rows.repository';
import type { Settlement, StepName } from './transfer.steps';
import type { SagaStepLog } from './transfer.steps.repository';

/**
 * One run of TransferSaga.advance: what it knows of the transfer and its steps, a step's result held back to be
 * written with the run's next write, and the caller's lease, which the run's last write may release.
 *
 * Read once (or handed over by the claim), then carried: each write of the run returns or updates what it changed.
 * Anything the run cannot know exactly (a refused or conflicting change, a wait whose conditions failed, the
 * platform's answer) marks it stale, and the next decision reads the transfer again. Changes made meanwhile by others
 * (platform facts, wake-ups) are caught by the conditions of the writes.
 */
export class SagaRun {
  t: TransferRow | null;
  steps: Map<string, SagaStep>;
  /** Read again before the next decision. */
  stale: boolean;
  /** When this run last recorded a change (ms): the transfer has not been quiet since. */
  changedAt?: number;
  /** A step's result to be written with the run's next write (hold). */
  private held?: Settlement;

  constructor(
    readonly transferId: string,
    loaded: Loaded | null | undefined,
    /** The caller's lease, released by the run's last write when it can be. */
    readonly lease: LeaseRelease | undefined,
    private readonly log: SagaStepLog,
    private readonly leases: TransferLeases,
  ) {
    this.t = loaded?.t ?? null;
    this.steps = loaded?.steps ?? new Map();
    this.stale = !loaded;
  }

  /** The transfer as the next decision must see it (read again when stale); false: no such transfer. */
  async refresh(): Promise<boolean> {
    if (!this.stale && this.t) return true;
    await this.flush(); // what is read must include it
    const fresh = await this.log.load(this.transferId);
    if (!fresh) return false;
    this.t = fresh.t;
    this.steps = fresh.steps;
    this.stale = false;
    return true;
  }

  /**
   * Holds a step's result to be written with the run's next write (in the same statement) rather than alone: the run
   * carries it as written meanwhile. Should the run end first, it is written alone (flush); should the process die
   * first, the step is still unsettled in the database and is run again (same key).
   */
  hold(settled: Settlement): void {
    if (this.held) throw new Error('a step result is already waiting to be written');
    settled.written();
    this.held = settled;
  }

  /** The held result, for the caller to write with its statement (already carried as written). */
  take(): Settlement | undefined {
    const held = this.held;
    this.held = undefined;
    return held && { sql: held.sql, written: () => undefined };
  }

  /** Writes the held result alone. */
  async flush(): Promise<void> {
    const held = this.take();
    if (held) await this.log.write(held);
  }

  markStale(): void {
    this.stale = true;
  }

  /** After a transition: carries the transfer it wrote, or reads again. */
  moved(r: ChangeResult, nowMs: number): void {
    if (r.ok) {
      this.t = r.transfer;
      this.changedAt = nowMs;
    } else this.stale = true;
  }

  /** After an intent was written (null: refused, the transfer moved): the intent made the transfer due at once. */
  intentWritten(step: StepName, written: SagaStep | null, now: Date): void {
    if (this.t && written) {
      if (!this.t.nextRunAt || this.t.nextRunAt > now) this.t = { ...this.t, nextRunAt: now };
      this.steps.set(step, written);
    } else this.stale = true;
  }

  /** Whether the caller's lease is still held (the run's last write may release it). */
  get holdsLease(): boolean {
    return this.lease !== undefined && !this.lease.released;
  }

  /**
   * The run's last write, releasing the lease with it (one statement instead of two): `write` gets the owner and
   * answers whether it was written (and so the lease released).
   */
  async releaseWith(write: (owner: string) => Promise<boolean>): Promise<boolean> {
    const lease = this.lease!;
    this.leases.releasing(this.transferId, true);
    lease.released = await write(lease.owner);
    if (!lease.released) this.leases.releasing(this.transferId, false);
    return lease.released;
  }
}
