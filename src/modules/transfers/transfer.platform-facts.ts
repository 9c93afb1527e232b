import { randomUUID } from 'node:crypto';
import type { PrismaClient } from '../../generated/prisma/client';
import type { Clock } from '../../shared/clock';
import type { Logger } from '../../shared/logger';
import type { ApplyOutcome, PlatformTransactionEvent, PlatformTransactionLookup, TransferEventSink } from './transfer.ports';
import { WAKE, type TransferRepository, type TransferRow } from './transfer.repository';
import type { TransferSaga } from './transfer.saga';
import { isTerminal, type TransferStatus } from './transfer.states';
import { payoutRank, platformRank, platformTarget } from './transfer.platform';

/** A platform transaction id other than the event's was recorded for this transfer (seen again on the locked row). */
const boundElsewhere = (row: { externalTransactionId: string | null }, e: PlatformTransactionEvent) =>
  row.externalTransactionId !== null && row.externalTransactionId !== e.transactionId;

const mismatchOf = (transferId: string): ApplyOutcome => ({ applied: false, transferId, reason: 'mismatch', mismatch: 'transaction_id' });

/** The platform's compliance statuses, and those that are a decision (never overwritten by a later report). */
const COMPLIANCE = new Set(['Pending', 'Approved', 'Rejected', 'Cancelled', 'Refunded', 'Failed']);
const COMPLIANCE_FINAL = new Set(['Approved', 'Rejected', 'Cancelled', 'Refunded', 'Failed']);

export interface PlatformFactsOptions {
  /** Confirms a webhook's platform transaction id before it is first linked to a transfer (absent: webhooks never link). */
  platform?: PlatformTransactionLookup;
  /** The worker should look now (a decision's kick found the transfer busy). */
  nudge: () => void;
}

/**
 * What the remittances platform reports about a transfer (webhook events, and reconciliations that read its state),
 * recorded on the transfer — the TransferEventSink. Each event is first bound to what we know (transferOfEvent);
 * compliance decisions are recorded with a wake-up and kick the saga (it captures or voids); transaction and payout
 * statuses only move forward (transfer.platform.ts ranks them) and the transfer's status follows the latest facts.
 */
export class PlatformFacts implements TransferEventSink {
  private readonly owner = `api:${randomUUID()}`;

  constructor(
    private readonly prisma: PrismaClient,
    private readonly repo: TransferRepository,
    private readonly saga: TransferSaga,
    private readonly clock: Clock,
    private readonly logger: Logger,
    private readonly opts: PlatformFactsOptions,
  ) {}

  /**
   * The transfer an event is about, bound to what we know: its externalTransactionId (= our externalPaymentId) and
   * its platform transactionId must name the same transfer, and that transfer must not have recorded another
   * platform transaction id. Anything else is a mismatch: the event has no effect.
   */
  private async transferOfEvent(e: PlatformTransactionEvent): Promise<TransferRow | ApplyOutcome> {
    const byExternal = e.externalTransactionId
      ? await this.prisma.transfer.findUnique({ where: { externalPaymentId: e.externalTransactionId } })
      : null;
    const byTransaction = await this.prisma.transfer.findUnique({ where: { externalTransactionId: e.transactionId } });
    if (byTransaction && e.externalTransactionId && byExternal?.id !== byTransaction.id)
      return { applied: false, transferId: byExternal?.id ?? byTransaction.id, reason: 'mismatch', mismatch: 'transaction_conflict' };
    const t = byExternal ?? byTransaction;
    if (!t) return { applied: false, transferId: null, reason: 'unknown_transfer' };
    if (t.externalTransactionId && t.externalTransactionId !== e.transactionId) return mismatchOf(t.id);
    if (!t.externalTransactionId && e.source.kind === 'webhook') {
      // Not linked yet: a signed event alone must not choose the platform transaction the transfer is bound to (it
      // would lock the genuine events out and apply its own decision). The platform's own answer must agree; until it
      // knows the transaction, the event waits like one for a transfer not committed yet (retried, then recorded).
      const known = this.opts.platform ? await this.opts.platform.transactionIdOf(t.externalPaymentId) : null;
      if (known === null) return { applied: false, transferId: t.id, reason: 'unknown_transfer' };
      if (known !== e.transactionId) return mismatchOf(t.id);
    }
    return t;
  }

  async applyPlatformEvent(e: PlatformTransactionEvent): Promise<ApplyOutcome> {
    const found = await this.transferOfEvent(e);
    if ('applied' in found) {
      if (found.applied === false && found.reason === 'mismatch')
        this.logger.warn(
          { transferId: found.transferId, mismatch: found.mismatch, source: e.source.kind },
          'platform event contradicts the transfer we know: no effect',
        );
      return found;
    }
    const t = found;
    const ref = e.source.kind === 'webhook' ? e.source.inboxId : e.transactionId;
    const actor = e.source.kind === 'webhook' ? 'webhook' : e.source.kind;
    const base = { transferId: t.id, cause: 'webhook' as const, actor, upstreamRef: ref };
    const link = t.externalTransactionId ? {} : { externalTransactionId: e.transactionId };
    const c = e.change;
    const status = t.status as TransferStatus;

    if (c.type === 'compliance') {
      if (!COMPLIANCE.has(c.newStatus)) return { applied: false, transferId: t.id, reason: 'unknown_value' };
      if (isTerminal(status)) return { applied: false, transferId: t.id, reason: 'terminal' };
      const decided = c.newStatus === 'Approved' || c.newStatus === 'Rejected';
      // Decided on the locked row: a concurrent event (e.g. the platform's own `Pending`, read before our
      // `Approved` committed) must not overwrite a final decision — the decision, and its wake-up, would be lost.
      let skipped: ApplyOutcome | null = null;
      const r = await this.repo.transition({
        ...base,
        detail: { action: 'platform compliance', value: c.newStatus },
        decide: async (row, tx) => {
          if (boundElsewhere(row, e)) return ((skipped = mismatchOf(t.id)), { skip: 'mismatch' });
          if (c.newStatus === row.complianceStatus)
            return ((skipped = { applied: false, transferId: t.id, reason: 'no_change' }), { skip: 'no change' });
          if (row.complianceStatus && COMPLIANCE_FINAL.has(row.complianceStatus))
            return ((skipped = { applied: false, transferId: t.id, reason: 'stale' }), { skip: 'stale' });
          const rowStatus = row.status as TransferStatus;
          if (isTerminal(rowStatus)) return ((skipped = { applied: false, transferId: t.id, reason: 'terminal' }), { skip: 'terminal' });
          // REJECTED only while no money can have moved: once an authorization was attempted (its outcome may not be
          // recorded yet), the saga finishes it and then voids (→ VOIDED). Counted under the row lock, which the
          // saga's authorize intent takes too (recordIntent): the two are ordered, never interleaved.
          const rejectedEarly =
            c.newStatus === 'Rejected' &&
            (rowStatus === 'PENDING' || rowStatus === 'ACTION_REQUIRED') &&
            (await tx.sagaStep.count({ where: { transferId: t.id, step: 'authorize' } })) === 0;
          return {
            to: rejectedEarly ? 'REJECTED' : undefined,
            patch: {
              ...link,
              complianceStatus: c.newStatus,
              // A decision is a wake-up, recorded with the fact (atomically: see TransferRepository, Scheduling).
              ...(decided ? WAKE(this.clock.now()) : {}),
              ...(rejectedEarly
                ? { failureCode: 'COMPLIANCE_REJECTED', failureMessage: 'Compliance review rejected the transfer before any money moved' }
                : {}),
            },
          };
        },
      });
      if (skipped) return skipped;
      if (!r.ok) return { applied: false, transferId: t.id, reason: r.kind === 'refused' ? 'terminal' : 'stale' };
      if (decided) await this.kick(t.id, ref);
      return { applied: true, transferId: t.id, version: r.transfer.version };
    }

    // Transaction status and payout status: facts only move forward (documented order); the transfer's status
    // is derived from the latest facts (transfer.platform.ts), so the order of arrival does not matter. Facts
    // that call for nothing yet (e.g. `Completed` while our capture is still settling) are recorded, and the
    // saga applies them when it catches up.
    const isStatus = c.type === 'status';
    const rankOf = isStatus ? platformRank : payoutRank;
    if (rankOf(c.newStatus) === -2) return { applied: false, transferId: t.id, reason: 'unknown_value' };
    if (isTerminal(status)) return { applied: false, transferId: t.id, reason: 'terminal' };
    // Decided on the locked row: the saga may have moved the transfer since `t` was read (e.g. its capture
    // committed just now), and the status must follow the facts as they stand at commit time.
    let skipped: ApplyOutcome | null = null;
    const r = await this.repo.transition({
      ...base,
      detail: { action: `platform ${c.type}`, value: c.newStatus, ...(c.type === 'payout' ? { amount: c.amount } : {}) },
      decide: async (row, tx) => {
        if (boundElsewhere(row, e)) return ((skipped = mismatchOf(t.id)), { skip: 'mismatch' });
        const current = isStatus ? row.upstreamTransactionStatus : row.payoutStatus;
        if (c.newStatus === current) return ((skipped = { applied: false, transferId: t.id, reason: 'no_change' }), { skip: 'no change' });
        if (rankOf(c.newStatus) <= rankOf(current))
          return ((skipped = { applied: false, transferId: t.id, reason: 'stale' }), { skip: 'stale' });
        const rowStatus = row.status as TransferStatus;
        if (isTerminal(rowStatus)) return ((skipped = { applied: false, transferId: t.id, reason: 'terminal' }), { skip: 'terminal' });
        const facts = {
          upstreamTransactionStatus: isStatus ? c.newStatus : row.upstreamTransactionStatus,
          payoutStatus: isStatus ? row.payoutStatus : c.newStatus,
        };
        let target = platformTarget(rowStatus, facts);
        // Only for the platform's own void/auto-cancel of an authorization: our capture/void in flight wins. Counted
        // under the row lock, which the capture and void intents take too (recordIntent, whileStatusUnchanged): either
        // the intent comes first (this event waits for the saga) or this event does (no capture or void is started).
        if (target && rowStatus === 'AUTHORIZED') {
          const busy =
            (await tx.sagaStep.count({
              where: { transferId: t.id, step: { in: ['capture', 'void'] }, state: { in: ['PENDING', 'UNKNOWN'] } },
            })) > 0;
          if (busy || status !== 'AUTHORIZED') target = null;
        }
        const failure = target?.failureCode ? { failureCode: target.failureCode, failureMessage: target.failureMessage } : {};
        return { to: target?.to, patch: { ...link, [isStatus ? 'upstreamTransactionStatus' : 'payoutStatus']: c.newStatus, ...failure } };
      },
    });
    if (skipped) return skipped;
    if (!r.ok) return { applied: false, transferId: t.id, reason: r.kind === 'refused' ? 'terminal' : 'stale' };
    return { applied: true, transferId: t.id, version: r.transfer.version };
  }

  /**
   * A decision arrived — already recorded as a wake-up, with the fact, in one transaction (`record`, WAKE): run the
   * saga now (cause webhook) if the transfer is free, else the worker does (the wake-up keeps it due, and no
   * holder of the lease that read the state before can defer it: TransferRepository, Scheduling).
   */
  private async kick(transferId: string, ref: string): Promise<void> {
    const got = await this.saga.leases
      .withLease(transferId, this.owner, 0, () => this.saga.advance(transferId, { cause: 'webhook', actor: 'webhook', upstreamRef: ref }))
      .catch((err) => {
        this.logger.warn(
          { err: { message: (err as Error).message }, transferId },
          'saga after a platform event failed; the worker retries',
        );
        return null;
      });
    if (!got) {
      await this.repo.wake(transferId, this.clock.now()); // e.g. the kick's own run failed after deferring
      this.opts.nudge();
    }
  }
}
