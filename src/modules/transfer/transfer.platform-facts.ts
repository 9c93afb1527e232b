import { randomUUID } from 'node:crypto';
import { LRUCache } from 'lru-cache';
import type { Clock } from '../../shared/clock';
import { withQueryPhase } from '../../db/instrument';
import type { Logger } from '../../shared/logger';
import type {
  ApplyOutcome,
  DeliveryReceipt,
  PlatformTransactionEvent,
  PlatformTransactionLookup,
  ReceiptOutcome,
  ReceiptResult,
  TransferEventSink,
} from './transfer.ports';
import {
  WAKE,
  type ChangeRequest,
  type ChangeResult,
  type Decision,
  type TransferRepository,
  type TransferRow,
} from './transfer.repository';
import type { TransferSaga } from './transfer.saga';
import { isTerminal, type TransferStatus } from './transfer.states';
import { transferFromSql } from './transfer.rows.repository';
import { PlatformFactsRepository, type QuietFact } from './transfer.platform-facts.repository';
import { payoutRank, quietPairs, platformRank, platformTarget, valuesBelow } from './transfer.platform';

/** A platform transaction id other than the event's was recorded for this transfer (seen again on the locked row). */
const boundElsewhere = (row: { externalTransactionId: string | null }, e: PlatformTransactionEvent) =>
  row.externalTransactionId !== null && row.externalTransactionId !== e.transactionId;

type NotApplied = Extract<ApplyOutcome, { applied: false }>;

const mismatchOf = (transferId: string): NotApplied => ({ applied: false, transferId, reason: 'mismatch', mismatch: 'transaction_id' });

/** The platform's compliance statuses, and those that are a decision (never overwritten by a later report). */
const COMPLIANCE = new Set(['Pending', 'Approved', 'Rejected', 'Cancelled', 'Refunded', 'Failed']);
const COMPLIANCE_FINAL = new Set(['Approved', 'Rejected', 'Cancelled', 'Refunded', 'Failed']);
/** How long a delivery that applied a compliance decision waits for the saga run it started before it is answered. */
const KICK_WAIT_MS = 1_000;

interface PlatformFactsOptions {
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
  /** Saga runs started by deliveries (applyAtReceipt) that may outlast their answer. */
  private readonly kicks = new Set<Promise<void>>();
  /**
   * The latest row this process wrote or read of each linked transfer, by platform transaction id, without its
   * details (no PII kept): what an event is first decided on (applyAtReceipt). Rows may be old — another instance may
   * have written since —: a change decided on one is written only if nothing was recorded since.
   */
  private readonly seen = new LRUCache<string, TransferRow>({ max: 5_000 });

  constructor(
    private readonly repo: TransferRepository,
    private readonly saga: TransferSaga,
    private readonly clock: Clock,
    private readonly logger: Logger,
    private readonly opts: PlatformFactsOptions,
  ) {
    repo.written.add((row) => this.remember(row));
    this.facts = new PlatformFactsRepository(repo.sql);
  }

  private readonly facts: PlatformFactsRepository;

  private remember(row: TransferRow): void {
    if (row.externalTransactionId) this.seen.set(row.externalTransactionId, { ...row, details: null });
  }

  /**
   * The transfer an event is about, bound to what we know: its externalTransactionId (= our externalPaymentId) and
   * its platform transactionId must name the same transfer, and that transfer must not have recorded another
   * platform transaction id. Anything else is a mismatch: the event has no effect.
   */
  private async transferOfEvent(e: PlatformTransactionEvent): Promise<TransferRow | NotApplied> {
    // the transfers the event names — by our externalPaymentId and by its platform transaction id — in one query
    const rows = await this.facts.candidates(e.transactionId, e.externalTransactionId);
    const byExternal = e.externalTransactionId ? (rows.find((r) => r.externalPaymentId === e.externalTransactionId) ?? null) : null;
    const byTransaction = rows.find((r) => r.externalTransactionId === e.transactionId) ?? null;
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
    const found = await this.bound(e);
    if (!('id' in found)) return found;
    const change = this.changeOf(e, found);
    if (!('request' in change)) return change;
    const r = await this.repo.transition(change.request, found);
    const out = change.outcome(r);
    if (out.applied && change.decided) await this.kick(found.id, change.ref);
    return out;
  }

  /**
   * TransferEventSink.applyAtReceipt: a fact that changes nothing an app sees in one statement (recordQuietFact), any
   * other event read (the transfer), decided and written with the delivery's inbox row (TransferRepository.changeAlong).
   */
  async applyAtReceipt(e: PlatformTransactionEvent, receipt: (outcome: ReceiptOutcome) => DeliveryReceipt): Promise<ReceiptResult> {
    const quiet = await this.recordQuietFact(e, receipt({ applied: true }));
    if (quiet) return quiet;
    // Decided on the latest row this process saw of the transaction's transfer, without reading it — when nothing
    // was recorded since (the write is conditioned on it); else nothing is written and it is read below.
    const seen = this.seen.get(e.transactionId);
    if (seen && (!e.externalTransactionId || seen.externalPaymentId === e.externalTransactionId)) {
      const early = await this.applyOn(seen, e, receipt, true);
      if (early) return early;
    }
    const found = await this.bound(e);
    // not known yet: the processor retries it for a while (unknown_transfer) before recording that
    if (!('id' in found) && found.reason === 'unknown_transfer') return this.storeOnly(receipt(found), false);
    if (!('id' in found)) return this.storeOnly(receipt(found), true, found);
    return (await this.applyOn(found, e, receipt, false))!;
  }

  /**
   * The event decided on `t` and written with its delivery's inbox row. `seen` (t not read now, but the latest row this
   * process saw): when the change cannot be made on it, nothing is written (null).
   */
  private async applyOn(
    t: TransferRow,
    e: PlatformTransactionEvent,
    receipt: (outcome: ReceiptOutcome) => DeliveryReceipt,
    seen: boolean,
  ): Promise<ReceiptResult | null> {
    const found = t;
    const change = this.changeOf(e, found);
    if (!('request' in change)) return this.storeOnly(receipt(change), true, change);
    const { result, written } = await this.repo.changeAlong(found, change.request, receipt({ applied: true }), { onlyIfApplied: seen });
    if (result && !result.ok && result.kind === 'skipped') {
      const out = change.outcome(result);
      if (out.applied) throw new Error('a skipped change cannot be applied');
      return this.storeOnly(receipt(out), true, out);
    }
    if (seen && !result) return null;
    if (!written) return { stored: 'duplicate' };
    if (!result) return { stored: 'queued' };
    const out = change.outcome(result);
    if (out.applied && change.decided) {
      // Run the saga on at once (it captures or voids), answering the delivery when it is done or after KICK_WAIT_MS,
      // whichever comes first (the decision is recorded with its wake-up: the worker would run it anyway).
      const kick = this.kick(found.id, change.ref);
      this.kicks.add(kick);
      // kick never rejects (its failures are logged and left to the worker); nothing may be left unhandled anyway
      kick.then(
        () => this.kicks.delete(kick),
        () => this.kicks.delete(kick),
      );
      await Promise.race([kick, new Promise((r) => setTimeout(r, KICK_WAIT_MS).unref())]);
    }
    return { stored: 'processed', outcome: out };
  }

  /** Waits for the saga runs started by deliveries (applyAtReceipt) that are still going. */
  async drain(): Promise<void> {
    while (this.kicks.size) await Promise.allSettled([...this.kicks]);
  }

  /** The inbox row alone: processed with its outcome (`processed`), or for the processor. */
  private async storeOnly(receipt: DeliveryReceipt, processed: boolean, outcome?: ApplyOutcome): Promise<ReceiptResult> {
    if (!(await this.facts.storeReceipt(receipt, processed))) return { stored: 'duplicate' };
    return processed && outcome ? { stored: 'processed', outcome } : { stored: 'queued' };
  }

  /**
   * A transaction or payout status where it calls for no move (quietPairs), or the first
   * compliance report (Pending), about a transfer already linked to the event's transaction: recorded — forwards
   * only — with its audit event and the delivery's inbox row, in ONE statement. Null when it does not apply as such
   * (anything else, or not linked, stale, terminal, the stream busy): nothing written, the general path decides.
   */
  private async recordQuietFact(e: PlatformTransactionEvent, receipt: DeliveryReceipt): Promise<ReceiptResult | null> {
    const c = e.change;
    if (e.source.kind !== 'webhook') return null;
    let fact: QuietFact;
    if (c.type === 'compliance') {
      if (c.newStatus !== 'Pending') return null;
      fact = { column: 'compliance', value: c.newStatus };
    } else {
      const rank = c.type === 'status' ? platformRank : payoutRank;
      const pairs = rank(c.newStatus) < 0 ? null : quietPairs(c.type, c.newStatus);
      if (!pairs) return null;
      fact = { column: c.type, value: c.newStatus, below: valuesBelow(c.type, c.newStatus), pairs };
    }
    const detail = { action: `platform ${c.type}`, value: c.newStatus, ...(c.type === 'payout' ? { amount: c.amount } : {}) };
    const row = await this.facts.recordQuietFact(
      fact,
      { transactionId: e.transactionId, externalTransactionId: e.externalTransactionId, inboxId: e.source.inboxId },
      detail,
      receipt,
      this.clock.now(),
    );
    if (!row) return null;
    this.remember(transferFromSql(row)); // returned without its details, as remember keeps a row
    return { stored: 'processed', outcome: { applied: true, transferId: row.id as string, version: Number(row.version) } };
  }

  /** transferOfEvent, with a mismatch logged. */
  private async bound(e: PlatformTransactionEvent): Promise<TransferRow | NotApplied> {
    const found = await this.transferOfEvent(e);
    if (!('applied' in found)) this.remember(found);
    if ('applied' in found && found.reason === 'mismatch')
      this.logger.warn(
        { transferId: found.transferId, mismatch: found.mismatch, source: e.source.kind },
        'platform event contradicts the transfer we know: no effect',
      );
    return found;
  }

  /**
   * What event `e` asks of transfer `t` (as read, not locked): an outcome at once (unknown value, terminal), or the
   * change, decided on the row it is applied to (`decide`: on `t` when nothing was recorded since, else on the locked
   * row) and how its result reads as an outcome. `decided`: a compliance decision (the saga is kicked once applied).
   */
  private changeOf(
    e: PlatformTransactionEvent,
    t: TransferRow,
  ): ApplyOutcome | { request: ChangeRequest; outcome: (r: ChangeResult) => ApplyOutcome; decided: boolean; ref: string } {
    const ref = e.source.kind === 'webhook' ? e.source.inboxId : e.transactionId;
    const actor = e.source.kind === 'webhook' ? 'webhook' : e.source.kind;
    const base = { transferId: t.id, cause: 'webhook' as const, actor, upstreamRef: ref };
    const link = t.externalTransactionId ? {} : { externalTransactionId: e.transactionId };
    const c = e.change;
    const status = t.status as TransferStatus;
    // the outcome of a skip decided on the row (decide may run twice: on `t`, then on the locked row)
    let skipped: ApplyOutcome | null = null;
    const skip = (o: ApplyOutcome, why: string): Decision => ((skipped = o), { skip: why });
    const outcome = (r: ChangeResult): ApplyOutcome => {
      if (skipped) return skipped;
      if (!r.ok) return { applied: false, transferId: t.id, reason: r.kind === 'refused' ? 'terminal' : 'stale' };
      return { applied: true, transferId: t.id, version: r.transfer.version };
    };

    if (c.type === 'compliance') {
      if (!COMPLIANCE.has(c.newStatus)) return { applied: false, transferId: t.id, reason: 'unknown_value' };
      if (isTerminal(status)) return { applied: false, transferId: t.id, reason: 'terminal' };
      const decided = c.newStatus === 'Approved' || c.newStatus === 'Rejected';
      // Decided on the row it is applied to: a concurrent event (e.g. the platform's own `Pending`, read before our
      // `Approved` committed) must not overwrite a final decision — the decision, and its wake-up, would be lost.
      const request: ChangeRequest = {
        ...base,
        detail: { action: 'platform compliance', value: c.newStatus },
        decide: async (row, tx) => {
          skipped = null;
          if (boundElsewhere(row, e)) return skip(mismatchOf(t.id), 'mismatch');
          if (c.newStatus === row.complianceStatus) return skip({ applied: false, transferId: t.id, reason: 'no_change' }, 'no change');
          if (row.complianceStatus && COMPLIANCE_FINAL.has(row.complianceStatus))
            return skip({ applied: false, transferId: t.id, reason: 'stale' }, 'stale');
          const rowStatus = row.status as TransferStatus;
          if (isTerminal(rowStatus)) return skip({ applied: false, transferId: t.id, reason: 'terminal' }, 'terminal');
          // REJECTED only while no money can have moved: once an authorization was attempted (its outcome may not be
          // recorded yet), the saga finishes it and then voids (→ VOIDED). Counted under the row lock, which the
          // saga's authorize intent takes too (recordIntent): the two are ordered, never interleaved.
          const mayReject = c.newStatus === 'Rejected' && (rowStatus === 'PENDING' || rowStatus === 'ACTION_REQUIRED');
          if (mayReject && !tx) return { lock: true };
          const rejectedEarly = mayReject && (await tx!.sagaStep.count({ where: { transferId: t.id, step: 'authorize' } })) === 0;
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
      };
      return { request, outcome, decided, ref };
    }

    // Transaction status and payout status: facts only move forward (documented order); the transfer's status
    // is derived from the latest facts (transfer.platform.ts), so the order of arrival does not matter. Facts
    // that call for nothing yet (e.g. `Completed` while our capture is still settling) are recorded, and the
    // saga applies them when it catches up.
    const isStatus = c.type === 'status';
    const rankOf = isStatus ? platformRank : payoutRank;
    if (rankOf(c.newStatus) === -2) return { applied: false, transferId: t.id, reason: 'unknown_value' };
    if (isTerminal(status)) return { applied: false, transferId: t.id, reason: 'terminal' };
    // Decided on the row it is applied to: the saga may have moved the transfer since `t` was read (e.g. its capture
    // committed just now), and the status must follow the facts as they stand at commit time.
    const request: ChangeRequest = {
      ...base,
      detail: { action: `platform ${c.type}`, value: c.newStatus, ...(c.type === 'payout' ? { amount: c.amount } : {}) },
      decide: async (row, tx) => {
        skipped = null;
        if (boundElsewhere(row, e)) return skip(mismatchOf(t.id), 'mismatch');
        const current = isStatus ? row.upstreamTransactionStatus : row.payoutStatus;
        if (c.newStatus === current) return skip({ applied: false, transferId: t.id, reason: 'no_change' }, 'no change');
        if (rankOf(c.newStatus) <= rankOf(current)) return skip({ applied: false, transferId: t.id, reason: 'stale' }, 'stale');
        const rowStatus = row.status as TransferStatus;
        if (isTerminal(rowStatus)) return skip({ applied: false, transferId: t.id, reason: 'terminal' }, 'terminal');
        const facts = {
          upstreamTransactionStatus: isStatus ? c.newStatus : row.upstreamTransactionStatus,
          payoutStatus: isStatus ? row.payoutStatus : c.newStatus,
        };
        let target = platformTarget(rowStatus, facts);
        // Only for the platform's own void/auto-cancel of an authorization: our capture/void in flight wins. Counted
        // under the row lock, which the capture and void intents take too (recordIntent, whileStatusUnchanged): either
        // the intent comes first (this event waits for the saga) or this event does (no capture or void is started).
        if (target && rowStatus === 'AUTHORIZED') {
          if (!tx) return { lock: true };
          const busy =
            (await tx.sagaStep.count({
              where: { transferId: t.id, step: { in: ['capture', 'void'] }, state: { in: ['PENDING', 'UNKNOWN'] } },
            })) > 0;
          if (busy || status !== 'AUTHORIZED') target = null;
        }
        const failure = target?.failureCode ? { failureCode: target.failureCode, failureMessage: target.failureMessage } : {};
        // money on its way back: the saga acts on every platform fact (refund once the payout stopped, or complete
        // if it was paid out before a cancellation reached it) — the fact is also a wake-up
        const wake = target?.to === 'REFUND_PENDING' || rowStatus === 'REFUND_PENDING' ? WAKE(this.clock.now()) : {};
        return {
          to: target?.to,
          patch: { ...link, [isStatus ? 'upstreamTransactionStatus' : 'payoutStatus']: c.newStatus, ...failure, ...wake },
        };
      },
    };
    return { request, outcome, decided: false, ref };
  }

  /**
   * A decision arrived — already recorded as a wake-up, with the fact, in one transaction (`record`, WAKE): run the
   * saga now (cause webhook) if the transfer is free, else the worker does (the wake-up keeps it due, and no
   * holder of the lease that read the state before can defer it: TransferRepository, Scheduling).
   */
  private async kick(transferId: string, ref: string): Promise<void> {
    const got = await withQueryPhase('saga.kick', () =>
      this.saga.leases.withLease(transferId, this.owner, 0, (loaded, lease) =>
        this.saga.advance(transferId, { cause: 'webhook', actor: 'webhook', upstreamRef: ref }, loaded, lease),
      ),
    ).catch((err) => {
      this.logger.warn({ err: { message: (err as Error).message }, transferId }, 'saga after a platform event failed; the worker retries');
      return null;
    });
    if (!got) {
      // e.g. the kick's own run failed after deferring; with the database out of reach this fails too, and the
      // decision's wake-up, recorded with it, keeps the transfer due for the worker
      await this.repo.wake(transferId, this.clock.now()).catch((err: unknown) => {
        this.logger.warn(
          { err: { message: (err as Error).message }, transferId },
          'wake-up after a platform event failed; the worker retries',
        );
      });
      this.opts.nudge();
    }
  }
}
