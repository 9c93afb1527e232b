import type { PrismaClient, SagaStep } from '../../generated/prisma/client';
import type { Clock } from '../../shared/clock';
import type { Logger } from '../../shared/logger';
import { formatAmount } from '../../shared/money';
import type { GatewayClient } from '../../upstream/gateway/gateway.client';
import type { Payment } from '../../upstream/gateway/gateway.types';
import { isUnknownOutcome, isUpstreamError, type MoneyMovingResult, type UpstreamError } from '../../upstream/http/upstream.errors';
import { evaluateCardCheck } from '../checks/checks.ports';
import {
  authorizationOutcome,
  checkOutcome,
  moneyStepRequest,
  nextAction,
  NO_NEXT_ACTION,
  paymentStatus,
  refundStepRequest,
  transferDetails,
  type AuthorizationOutcome,
  type CheckOutcome,
  type RefundKind,
} from './transfer.columns';
import type { CrashHook } from './transfer.faults';
import { TransferLeases, type LeaseRelease } from './transfer.leases';
import { paidOut, payoutStopped, platformTarget, type PlatformTarget } from './transfer.platform';
import { reconcileIfQuiet } from './transfer.reconciler';
import { withReturnUrl } from '../../shared/return-url';
import type { TransferRepository, TransferRow, TransferPatch } from './transfer.repository';
import { accountCheck, cardCheck, paymentRequest, tokenPullPaymentRequest, totalOf } from './transfer.requests';
import type { Loaded } from './transfer.rows';
import {
  isRefundStep,
  SagaStepLog,
  stepKey,
  type RefundStep,
  type Settlement,
  type StepName,
  type StepOutcome,
  type StepState,
} from './transfer.steps';
import { isTerminal, type Cause, type TransferStatus } from './transfer.states';

export type { TransferDetails } from './transfer.columns';
export type { LeaseHandle, LeaseRelease } from './transfer.leases';

export interface SagaContext {
  cause: Cause;
  actor: string;
  upstreamRef?: string | null;
}

export interface SagaOptions {
  leaseMs: number;
  /** Waiting on the platform this long with no change → read its state from the platform (absent/0 = never). */
  reconcileAfterMs?: number;
  captureWindowMs: number;
  /** Retry delay after a transient failure: min(base × 2^attempts, max). */
  retryBaseMs: number;
  retryMaxMs: number;
}

type MoneyStep = 'capture' | 'void';
/** What a run of advance() carries between its decisions (see advance). */
interface Run {
  t: TransferRow | null;
  steps: Map<string, SagaStep>;
  /** Read again before the next decision. */
  stale: boolean;
  /** When this run last recorded a change (ms): the transfer has not been quiet since. */
  changedAt?: number;
  /** The caller's lease, released by the run's last write when it can be. */
  lease?: LeaseRelease;
  /** A step's result written with the run's next write (defer). */
  deferred?: Settlement;
}
type Next = 'again' | 'wait';
/** Money intents are written under the transfer's row lock, ordered with platform events that end an authorization. */
const LOCKED = { whileStatusUnchanged: true } as const;

/** Payment states a settled capture/void step can have found (saga_steps.response.status). */
const SETTLED_PAYMENT_STATES = new Set(['CAPTURED', 'VOIDED', 'CANCELLED']);

const unsettled = (s: SagaStep | undefined) => s !== undefined && (s.state === 'PENDING' || s.state === 'UNKNOWN');
/** A refund step not settled yet (at most one is made at a time). */
const unsettledRefund = (steps: Map<string, SagaStep>) => [...steps.values()].find((s) => isRefundStep(s.step) && unsettled(s));
/** The next refund step's name: refund:1, refund:2, … */
export function nextRefundStep(steps: Iterable<{ step: string }>): RefundStep {
  let n = 0;
  for (const s of steps) if (isRefundStep(s.step)) n = Math.max(n, Number(s.step.slice('refund:'.length)));
  return `refund:${n + 1}`;
}
const errorText = (e: UpstreamError) => `${e.kind}${e.status ? ` ${e.status}` : ''}${e.upstreamCode ? ` ${e.upstreamCode}` : ''}`;
const messageOf = (e: unknown) => (isUpstreamError(e) ? errorText(e) : String((e as Error).message));

/**
 * The transfer saga: decides the next step from the persisted state (transfer row + saga_steps) and runs it.
 * Exactly-once effects: the intent (step, key) is written before each upstream call; a step left PENDING or
 * UNKNOWN (crash, lost response) is always re-run first, with the same key — the gateway replays a payment
 * by externalPaymentId and answers capture/void repeats with 409 + the payment, which settles the step.
 * Callers must hold the transfer's lease (`leases`: withLease, or the worker's claim), so one process advances a
 * transfer at a time. Kept elsewhere: the leases (transfer.leases.ts), the intent log (transfer.steps.ts), the
 * upstream bodies (transfer.requests.ts), the JSON columns' types (transfer.columns.ts), the reconciliation of a
 * quiet wait on the platform (transfer.reconciler.ts).
 */
export class TransferSaga {
  /** Who may advance which transfer now (the worker, mutations and platform decisions take them here). */
  readonly leases: TransferLeases;
  private readonly steps: SagaStepLog;

  constructor(
    private readonly prisma: PrismaClient,
    private readonly repo: TransferRepository,
    private readonly gateway: GatewayClient,
    private readonly clock: Clock,
    private readonly logger: Logger,
    private readonly opts: SagaOptions,
    private readonly crash: CrashHook,
  ) {
    this.leases = new TransferLeases(repo, clock, logger, opts.leaseMs);
    this.steps = new SagaStepLog(prisma, repo.sql, clock);
  }

  /** The run of advance() in progress per transfer (one at a time: the lease). */
  private readonly runs = new Map<string, Run>();

  /** Reads a waiting transfer's state from the platform (set by the module; absent in unit set-ups). */
  reconciler: { reconcile(t: TransferRow): Promise<number> } | null = null;

  /** Asks the platform to stop a transaction's payout (set by the module; absent in unit set-ups). */
  platform: { cancel(externalPaymentId: string): Promise<void> } | null = null;

  /** Counts refunds by outcome (set by the module: transfer_refunds_total). */
  onRefund: (outcome: 'requested' | 'succeeded' | 'failed' | 'unknown') => void = () => undefined;

  // ── Intent log (SagaStepLog) ──────────────────────────────────────────────────────────────────────

  /** Writes the intent row (idempotent: the (transfer, step) row is unique). */
  recordIntent(t: TransferRow, step: StepName, request: Record<string, unknown>): Promise<SagaStep>;
  /**
   * …or, with `whileStatusUnchanged`, only if the transfer is still in the status `t` was read in, checked under the
   * transfer's row lock (null otherwise: look again). For the authorization: a compliance rejection counts authorize
   * steps under the same lock (PlatformFacts.applyPlatformEvent), so the two are ordered — either the rejection
   * comes first (REJECTED, no intent is written, no money moves) or it sees the intent (the saga authorizes, then voids).
   */
  recordIntent(
    t: TransferRow,
    step: StepName,
    request: Record<string, unknown>,
    opts: { whileStatusUnchanged: true },
  ): Promise<SagaStep | null>;
  async recordIntent(
    t: TransferRow,
    step: StepName,
    request: Record<string, unknown>,
    opts?: { whileStatusUnchanged: true },
  ): Promise<SagaStep | null> {
    const deferred = this.takeDeferred(t.id);
    const written = await this.steps.record(t, step, request, opts, deferred?.sql);
    deferred?.written();
    const run = this.runs.get(t.id);
    if (run?.t && written) {
      // the intent made the transfer due at once (next_run_at only ever earlier)
      const now = this.clock.now();
      if (!run.t.nextRunAt || run.t.nextRunAt > now) run.t = { ...run.t, nextRunAt: now };
      run.steps.set(step, written);
    } else if (run) run.stale = true;
    return written;
  }

  private settle(s: SagaStep, state: StepState, response?: StepOutcome, lastError?: string): Promise<void> {
    return this.steps.settle(s, state, response, lastError);
  }

  private async retryLater(t: TransferRow, s: SagaStep, state: 'UNKNOWN' | 'PENDING', why: string): Promise<'wait'> {
    const attempts = s.attempts;
    await this.settle(s, state, undefined, why);
    const delay = Math.min(this.opts.retryBaseMs * 2 ** Math.min(attempts, 16), this.opts.retryMaxMs);
    // A wake-up that arrived since `t` was read wins: the row stays due and the step is retried at once.
    await this.deferLast(t, new Date(this.clock.nowMs() + delay));
    this.logger.warn({ transferId: t.id, step: s.step, attempts: attempts + 1, why }, 'saga step will be retried');
    return 'wait';
  }

  /**
   * Sleep until `at` (null: until an event) — unless the transfer changed or was woken since it was read: then
   * look again (no lost wake-up: see TransferRepository, Scheduling). Nothing to write if `at` is already set:
   * a wake-up since then has moved next_run_at earlier, and it stays so.
   */
  private async waitUntil(t: TransferRow, at: Date | null): Promise<Next> {
    await this.flushDeferred(t.id);
    const lease = this.runs.get(t.id)?.lease;
    if (lease && !lease.released) {
      // the run's last write: it also releases the lease (one statement instead of two)
      this.leases.releasing(t.id, true);
      if (await this.repo.scheduleIfUnchanged(t.id, t.eventSeq, t.wakeSeq, at, lease.owner)) {
        lease.released = true;
        return 'wait';
      }
      this.leases.releasing(t.id, false);
    } else {
      if ((t.nextRunAt?.getTime() ?? null) === (at?.getTime() ?? null)) return 'wait';
      if (await this.repo.scheduleIfUnchanged(t.id, t.eventSeq, t.wakeSeq, at)) return 'wait';
    }
    this.stale(t.id); // recorded or woken meanwhile (or the lease lost): read it again
    return 'again';
  }

  /** Defers the transfer to `at` unless woken since `t` was read (deferIfNoWake) — releasing the run's lease with it. */
  private async deferLast(t: TransferRow, at: Date | null): Promise<void> {
    await this.flushDeferred(t.id);
    const lease = this.runs.get(t.id)?.lease;
    if (lease && !lease.released) {
      this.leases.releasing(t.id, true);
      lease.released = await this.repo.deferAndRelease(t.id, t.wakeSeq, at, lease.owner);
      if (!lease.released) this.leases.releasing(t.id, false);
    } else await this.repo.deferIfNoWake(t.id, t.wakeSeq, at);
  }

  /**
   * A step's result to be written with the run's next write (in the same statement) rather than alone: the run
   * carries it as written meanwhile. Should the run end first, it is written alone (flushDeferred); should the process
   * die first, the step is still unsettled in the database and is run again (same key).
   */
  private async defer(transferId: string, settled: Settlement): Promise<void> {
    const run = this.runs.get(transferId);
    if (!run) return this.steps.write(settled);
    if (run.deferred) throw new Error('a step result is already waiting to be written');
    settled.written();
    run.deferred = settled;
  }

  private takeDeferred(transferId: string): Settlement | undefined {
    const run = this.runs.get(transferId);
    const d = run?.deferred;
    if (run) run.deferred = undefined;
    return d && { sql: d.sql, written: () => undefined };
  }

  private async flushDeferred(transferId: string): Promise<void> {
    const d = this.takeDeferred(transferId);
    if (d) await this.steps.write(d);
  }

  /** What this run carries is no longer what the database holds: the next decision reads the transfer again. */
  private stale(transferId: string): void {
    const run = this.runs.get(transferId);
    if (run) run.stale = true;
  }

  private async move(
    t: TransferRow,
    to: TransferStatus | undefined,
    ctx: SagaContext,
    detail: Record<string, unknown>,
    patch: TransferPatch = {},
    cause?: Cause,
    settled?: Settlement,
  ) {
    // decided on `t`: one statement when nothing was recorded since it was read (else on the locked row); the step's
    // result that calls for the move (`settled`) is written with it, whatever comes of the move
    if (settled) await this.flushDeferred(t.id);
    else settled = this.takeDeferred(t.id);
    const r = await this.repo.transition(
      {
        transferId: t.id,
        to,
        cause: cause ?? ctx.cause,
        actor: ctx.actor,
        upstreamRef: ctx.upstreamRef ?? null,
        detail,
        patch,
        guard: (row) => (row.status === t.status ? null : `status moved to ${row.status}`),
        alongside: settled?.sql,
      },
      t,
    );
    settled?.written();
    const run = this.runs.get(t.id);
    if (run && r.ok) {
      run.t = r.transfer;
      run.changedAt = this.clock.nowMs();
    } else if (run) run.stale = true;
    return r;
  }

  /** Moves the transfer where recorded platform facts call for (cause webhook: the platform decided it). */
  private async followPlatform(
    t: TransferRow,
    target: PlatformTarget,
    ctx: SagaContext,
    detail: Record<string, unknown>,
  ): Promise<'again'> {
    await this.move(
      t,
      target.to,
      ctx,
      { action: 'platform catch-up', ...detail },
      {
        ...(target.failureCode ? { failureCode: target.failureCode, failureMessage: target.failureMessage } : {}),
      },
      'webhook',
    );
    return 'again';
  }

  /** Waiting on the platform: ask it when it has been quiet (transfer.reconciler.ts), else sleep until `cap` at the latest. */
  private async waitOnPlatform(t: TransferRow, cap: number | null): Promise<Next> {
    const next = await reconcileIfQuiet(
      {
        prisma: this.prisma,
        clock: this.clock,
        logger: this.logger,
        reconciler: this.reconciler,
        afterMs: this.opts.reconcileAfterMs ?? 0,
      },
      t,
      cap,
      this.runs.get(t.id)?.changedAt,
    );
    if (next !== 'again') return this.waitUntil(t, next);
    this.stale(t.id); // the platform's answer changed the transfer
    return 'again';
  }

  // ── Decisions ─────────────────────────────────────────────────────────────────────────────────────

  /**
   * Advances the transfer as far as it can go now. Loops: each iteration re-reads the state and does one
   * thing; stops when waiting (on the customer, the platform, a retry delay, a timer).
   */
  async advance(transferId: string, ctx: SagaContext, loaded?: Loaded | null, lease?: LeaseRelease): Promise<TransferRow | null> {
    // What this run knows of the transfer and its steps: read once (or handed over by the claim), then carried —
    // each write of the run returns or updates what it changed. Anything it cannot know exactly (a refused or
    // conflicting change, a wait whose conditions failed, the platform's answer) marks it stale: read again.
    // Changes made meanwhile by others (platform facts, wake-ups) are caught by the conditions of the writes.
    // With `lease` (the caller's lease, which it would release next), the run's last write releases it too.
    const run: Run = loaded ? { t: loaded.t, steps: loaded.steps, stale: false, lease } : { t: null, steps: new Map(), stale: true, lease };
    this.runs.set(transferId, run);
    try {
      for (let i = 0; i < 12; i++) {
        if (this.leases.isLost(transferId)) break; // another instance holds it now: it carries on
        if (run.stale || !run.t) {
          await this.flushDeferred(transferId); // what is read must include it
          const fresh = await this.steps.load(transferId);
          if (!fresh) return null;
          Object.assign(run, { t: fresh.t, steps: fresh.steps, stale: false });
        }
        const outcome = await this.step(run.t!, run.steps, ctx);
        if (outcome === 'wait') {
          await this.flushDeferred(transferId);
          return run.t;
        }
      }
      // Stopped before reaching a wait (iteration cap, or the lease was lost): not done — keep it due.
      await this.flushDeferred(transferId);
      await this.repo.dueBy(transferId, this.clock.now());
      return run.t;
    } finally {
      this.runs.delete(transferId);
    }
  }

  private async step(t: TransferRow, steps: Map<string, SagaStep>, runCtx: SagaContext): Promise<Next> {
    const status = t.status as TransferStatus;
    // Before authorization every move is the saga's own (check outcome, authorization): the worker's decision,
    // whoever runs the saga — a platform event's kick included (the table allows none of them to `webhook`; a
    // refused move would leave a settled check unapplied).
    const ctx: SagaContext =
      (status === 'PENDING' || status === 'ACTION_REQUIRED') && runCtx.cause !== 'worker' ? { ...runCtx, cause: 'worker' } : runCtx;
    // 0. A refund not settled is run first, whatever the status (back-office refunds a COMPLETED transfer too).
    const refund = unsettledRefund(steps);
    if (refund) return this.runRefund(t, refund, ctx);
    if (isTerminal(status)) {
      await this.steps.abandonCheck(t.id, status);
      if (t.nextRunAt || this.runs.get(t.id)?.lease) await this.deferLast(t, null);
      return 'wait';
    }
    const capture = steps.get('capture');
    const voidStep = steps.get('void');
    const authorize = steps.get('authorize');
    const now = this.clock.nowMs();

    // 1. Reconcile any money step whose outcome is not settled, before anything else.
    if (unsettled(voidStep)) return this.runVoid(t, voidStep!, ctx);
    if (unsettled(capture)) return this.runCapture(t, capture!, ctx);
    if (unsettled(authorize)) return this.runAuthorize(t, authorize!, ctx);

    switch (status) {
      case 'PENDING':
      case 'ACTION_REQUIRED': {
        if (authorize?.state === 'SUCCEEDED') return this.applyAuthorization(t, authorizationOutcome(authorize.response), ctx);
        if (t.cancelRequestedAt && !authorize) {
          // cancelled before any authorization was asked for: no money moved, nothing to release
          await this.move(
            t,
            'VOIDED',
            ctx,
            { action: 'cancel', reason: 'cancelled before the authorization' },
            { failureCode: 'CANCELLED_BY_CUSTOMER', failureMessage: failureMessage('CANCELLED_BY_CUSTOMER'), nextAction: NO_NEXT_ACTION },
          );
          return 'again';
        }
        const d = transferDetails(t.details);
        if (now > Date.parse(d.quoteExpiresAt)) {
          await this.move(
            t,
            'EXPIRED',
            ctx,
            { action: 'watchdog', reason: 'quote expired before authorization' },
            {
              failureCode: 'QUOTE_EXPIRED',
              failureMessage: 'The quote expired before the payment was authorized; get a new quote',
              nextAction: NO_NEXT_ACTION,
            },
            'timer',
          );
          return 'again';
        }
        if (status === 'ACTION_REQUIRED') return this.waitUntil(t, new Date(Date.parse(d.quoteExpiresAt) + 1));
        if (d.funding.type === 'ACCOUNT_TOKEN') {
          // Stored before ACCOUNT_TOKEN funding stopped being offered: a token PULL pays no recipient (transfers.md,
          // Decisions), so it is not authorized now — nothing was taken.
          await this.move(
            t,
            'FAILED',
            ctx,
            { action: 'funding', reason: 'a linked bank account cannot pay a recipient' },
            { failureCode: 'FUNDING_NOT_OFFERED', failureMessage: failureMessage('FUNDING_NOT_OFFERED'), nextAction: NO_NEXT_ACTION },
          );
          return 'again';
        }
        const check = steps.get('check');
        if (check?.state !== 'SUCCEEDED') return this.runCheck(t, check, ctx);
        // A settled check that did not approve, yet the transfer is still PENDING: its move (→ ACTION_REQUIRED /
        // DECLINED) was lost (crash between the two writes, or refused). Run it again (same key): it applies it.
        if (checkOutcome(check.response) !== 'APPROVED') return this.runCheck(t, check, ctx);
        const intent = await this.recordIntent(t, 'authorize', { externalPaymentId: t.externalPaymentId, fxId: d.fxId }, LOCKED);
        if (!intent) return 'again'; // the transfer moved meanwhile (e.g. compliance rejected it): decide anew
        return this.runAuthorize(t, intent, ctx);
      }
      case 'AUTHORIZED': {
        // A settled capture/void whose effect is not on the transfer yet (crash between the two writes): apply it.
        for (const [name, x] of [
          ['capture', capture],
          ['void', voidStep],
        ] as const) {
          const found = x ? paymentStatus(x.response) : null;
          if (x && found !== null && SETTLED_PAYMENT_STATES.has(found)) return this.applyPaymentState(t, x, ctx, found, name);
        }
        if (capture?.state === 'SUCCEEDED' || voidStep?.state === 'SUCCEEDED') return 'wait';
        // The platform reported its own void / auto-cancel while nothing of ours was in flight (none is: see 1.).
        const released = platformTarget(status, t);
        if (released) return this.followPlatform(t, released, ctx, { upstreamStatus: t.upstreamTransactionStatus });
        const windowEnds = (t.authorizedAt?.getTime() ?? now) + this.opts.captureWindowMs;
        if (!capture && !voidStep && t.cancelRequestedAt)
          return this.startVoid(t, { target: 'VOIDED', failureCode: 'CANCELLED_BY_CUSTOMER', requestedBy: 'cancel' }, ctx);
        // a token PULL authorized before ACCOUNT_TOKEN funding stopped being offered: nothing can pay its recipient
        if (!capture && !voidStep && t.fundingType === 'account_token')
          return this.startVoid(t, { target: 'VOIDED', failureCode: 'FUNDING_NOT_OFFERED', requestedBy: 'no payout' }, ctx);
        if (!capture && !voidStep) {
          if (now >= windowEnds)
            return this.startVoid(
              t,
              { target: 'EXPIRED', failureCode: 'CAPTURE_WINDOW_EXPIRED', cause: 'timer' },
              { ...ctx, cause: 'timer' },
            );
          if (t.complianceStatus === 'Approved') {
            const c = await this.recordIntent(t, 'capture', { amount: null, requestedBy: 'compliance Approved' }, LOCKED);
            return c ? this.runCapture(t, c, ctx) : 'again';
          }
          if (t.complianceStatus === 'Rejected')
            return this.startVoid(t, { target: 'VOIDED', failureCode: 'COMPLIANCE_REJECTED', requestedBy: 'compliance Rejected' }, ctx);
        }
        // Any failure after authorization releases it.
        if (capture?.state === 'FAILED' && !voidStep)
          return this.startVoid(t, { target: 'VOIDED', failureCode: 'CAPTURE_FAILED', requestedBy: 'compensation' }, ctx);
        return this.waitOnPlatform(t, windowEnds);
      }
      case 'CAPTURED':
      case 'PAYOUT_PENDING': {
        // Platform facts recorded before our own step settled (events arrive in any order): apply them now.
        const target = platformTarget(status, t);
        if (target)
          return this.followPlatform(t, target, ctx, { upstreamStatus: t.upstreamTransactionStatus, payoutStatus: t.payoutStatus });
        if (t.cancelRequestedAt) {
          // the owner cancelled after the capture: the platform is asked to stop the payout, then the money goes back
          await this.move(
            t,
            'REFUND_PENDING',
            ctx,
            { action: 'cancel', reason: 'cancelled after the capture' },
            { failureCode: 'CANCELLED_BY_CUSTOMER', failureMessage: failureMessage('CANCELLED_BY_CUSTOMER') },
            ctx.cause === 'mutation' ? 'mutation' : 'worker',
          );
          return 'again';
        }
        if (t.fundingType === 'account_token') {
          // a token PULL captured before ACCOUNT_TOKEN funding stopped being offered: no recipient will be paid, the
          // money goes back (refundPending: the payout is known to be none)
          await this.move(
            t,
            'REFUND_PENDING',
            ctx,
            { action: 'no payout', reason: 'a linked bank account cannot pay a recipient' },
            { failureCode: 'FUNDING_NOT_OFFERED', failureMessage: failureMessage('FUNDING_NOT_OFFERED') },
            'worker',
          );
          return 'again';
        }
        return this.waitOnPlatform(t, null);
      }
      case 'REFUND_PENDING':
        return this.refundPending(t, steps, ctx);
      default:
        return this.waitUntil(t, null);
    }
  }

  /** Writes a void intent under the row lock and runs it (or looks again if the transfer moved meanwhile). */
  private async startVoid(
    t: TransferRow,
    request: { target: TransferStatus; failureCode: string; requestedBy?: string; cause?: Cause },
    ctx: SagaContext,
  ): Promise<Next> {
    const v = await this.recordIntent(t, 'void', request, LOCKED);
    return v ? this.runVoid(t, v, ctx) : 'again';
  }

  // ── money back ────────────────────────────────────────────────────────────────────────────────────

  /**
   * REFUND_PENDING: the money taken goes back once the platform says the recipient will not be paid.
   * - The owner cancelled and the payout is not known to have stopped: ask the platform to cancel (step `cancel`),
   *   then wait for its answer (`Cancelled`, or `Paid` if it was too late).
   * - The platform paid out anyway (before the cancellation reached it) and no refund was made: COMPLETED — the money
   *   is with the recipient; the cancellation came too late (audit trail). Money never moves twice.
   * - The payout stopped: refund all that is left of the capture (step refund:<n>, one at a time); once what was
   *   refunded equals what was captured: REFUNDED. A refund the gateway refused stays FAILED and the transfer waits
   *   for a person (back-office `refundTransfer`, listed in `refundsNeedingAttention`).
   */
  private async refundPending(t: TransferRow, steps: Map<string, SagaStep>, ctx: SagaContext): Promise<Next> {
    const refunds = [...steps.values()].filter((s) => isRefundStep(s.step));
    const made = refunds.filter((s) => s.state !== 'FAILED');
    // the platform has no transaction to pay out (e.g. a token PULL opens none): nothing will reach a recipient
    const noPayout =
      (steps.get('cancel')?.state === 'SUCCEEDED' && paymentStatus(steps.get('cancel')!.response) === 'NoTransaction') ||
      t.fundingType === 'account_token'; // a token PULL pays no recipient (see step)
    const stopped = payoutStopped(t) ?? (noPayout ? 'PAYOUT_NONE' : null);
    if (!stopped && paidOut(t)) {
      if (made.length) {
        // the platform contradicts itself (paid after it stopped the payout, or a refund already went out): a person decides
        this.logger.error({ transferId: t.id }, 'the platform reports a payout of a transfer already refunded: needs a person');
        return this.waitUntil(t, null);
      }
      await this.move(
        t,
        'COMPLETED',
        ctx,
        { action: 'cancel too late', reason: 'the platform paid the recipient out before the cancellation reached it' },
        { failureCode: null, failureMessage: null },
        'webhook',
      );
      return 'again';
    }
    if (!stopped) {
      if (t.cancelRequestedAt) {
        const cancel = steps.get('cancel');
        if (!cancel || unsettled(cancel)) {
          const s = cancel ?? (await this.recordIntent(t, 'cancel', { requestedBy: 'cancel' }, LOCKED));
          return s ? this.runCancel(t, s, ctx) : 'again';
        }
      }
      return this.waitOnPlatform(t, null); // the platform's answer (Cancelled, PayoutRejected, Paid) comes by webhook
    }
    const captured = t.capturedAmount ?? totalOf(t);
    const left = captured.minus(t.refundedAmount);
    if (left.lte(0)) {
      await this.move(t, 'REFUNDED', ctx, { action: 'refunded', amount: formatAmount(t.refundedAmount, t.sendCurrency) }, {}, 'worker');
      return 'again';
    }
    if (refunds.some((s) => s.state === 'FAILED')) {
      this.logger.warn({ transferId: t.id }, 'a refund was refused by the gateway: the transfer waits for a person');
      return this.waitUntil(t, null);
    }
    const kind: RefundKind = t.cancelRequestedAt ? 'CANCELLED' : 'PAYOUT_FAILED';
    const s = await this.recordIntent(t, nextRefundStep(steps.values()), {
      amount: formatAmount(left, t.sendCurrency),
      kind,
      reason: kind === 'CANCELLED' ? 'cancelled at the sender’s request' : `the payout failed (${stopped})`,
      requestedBy: 'worker',
      idempotencyKey: null,
    });
    if (!s) return 'again';
    this.onRefund('requested');
    return this.runRefund(t, s, ctx);
  }

  /** One refund call (refund:<n>): its externalRefundId is the step's key, so a retry never refunds twice. */
  private async runRefund(t: TransferRow, s: SagaStep, ctx: SagaContext): Promise<Next> {
    const req = refundStepRequest(s.request);
    this.crash.at('refund', 'before');
    let result: MoneyMovingResult<{ refundId: string; status: string }>;
    try {
      result = await this.gateway.refundPayment(t.externalPaymentId, { externalRefundId: s.idempotencyKey, amount: req.amount });
    } catch (e) {
      if (isUpstreamError(e) && !e.retryable && (e.kind === 'rejected' || e.kind === 'not_found')) {
        // refused for good (nothing captured, nothing left, another amount under this id): a person looks at it
        await this.settle(s, 'FAILED', undefined, errorText(e));
        this.onRefund('failed');
        this.logger.warn({ transferId: t.id, step: s.step, error: errorText(e) }, 'refund refused by the gateway: needs a person');
        await this.move(t, undefined, ctx, { action: 'refund', step: s.step, outcome: 'refused', error: errorText(e) });
        return 'again';
      }
      return this.retryLater(t, s, 'PENDING', messageOf(e));
    }
    this.crash.at('refund', 'after');
    if (isUnknownOutcome(result)) {
      this.onRefund('unknown');
      return this.retryLater(t, s, 'UNKNOWN', `unknown outcome: ${result.reason}`);
    }
    const refunded = t.refundedAmount.plus(req.amount);
    const settled = this.steps.settlement(s, 'SUCCEEDED', { refundId: result.value.refundId, status: result.value.status });
    await this.move(
      t,
      undefined,
      ctx,
      { action: 'refund', step: s.step, amount: req.amount, kind: req.kind, requestedBy: req.requestedBy, reason: req.reason },
      { refundedAmount: formatAmount(refunded, t.sendCurrency) },
      undefined,
      settled,
    );
    this.onRefund('succeeded');
    return 'again';
  }

  /** Asks the platform to stop the payout; a refusal (already cancelled, or paid out) is read back from the platform. */
  private async runCancel(t: TransferRow, s: SagaStep, ctx: SagaContext): Promise<Next> {
    if (!this.platform) {
      await this.settle(s, 'FAILED', undefined, 'no platform to ask');
      return this.waitOnPlatform(t, null);
    }
    this.crash.at('cancel', 'before');
    try {
      await this.platform.cancel(t.externalPaymentId);
    } catch (e) {
      if (isUpstreamError(e) && e.status === 404) {
        // the platform holds no transaction for this payment (a token PULL opens none): no payout to stop
        await this.settle(s, 'SUCCEEDED', { status: 'NoTransaction' });
        return 'again';
      }
      if (isUpstreamError(e) && !e.retryable && (e.kind === 'rejected' || e.kind === 'not_found' || e.status === 409)) {
        await this.settle(s, 'FAILED', undefined, errorText(e));
        // already cancelled (an earlier attempt whose answer was lost), or too late: what the platform says decides
        await this.reconciler
          ?.reconcile(t)
          .catch((err: unknown) =>
            this.logger.warn({ transferId: t.id, err: { message: messageOf(err) } }, 'reading the platform after a refused cancel failed'),
          );
        this.stale(t.id);
        return 'again';
      }
      return this.retryLater(t, s, 'PENDING', messageOf(e));
    }
    this.crash.at('cancel', 'after');
    await this.settle(s, 'SUCCEEDED', { status: 'CancelRequested' });
    await this.move(t, undefined, ctx, { action: 'platform cancel', outcome: 'requested' });
    return 'again';
  }

  // ── check ─────────────────────────────────────────────────────────────────────────────────────────

  /**
   * Where a card transfer's 3-D Secure challenge stands (resumeTransfer asks before it changes anything): the card
   * check again, as the saga sends it — the check step's key and body, no charge. The gateway documents no other way
   * to read a challenge (nor tells when one is done). Null for a transfer not funded by a card.
   */
  async readChallenge(t: TransferRow): Promise<CheckOutcome | null> {
    const d = transferDetails(t.details);
    if (d.funding.type !== 'CARD') return null;
    const res = evaluateCardCheck(await this.gateway.checkCard(cardCheck(d, stepKey(t, 'check'))));
    return { outcome: res.status, reasons: res.reasons, lastFour: res.lastFour };
  }

  private async runCheck(t: TransferRow, existing: SagaStep | undefined, ctx: SagaContext): Promise<Next> {
    const d = transferDetails(t.details);
    const s = existing ?? (await this.recordIntent(t, 'check', { funding: d.funding.type }));
    this.crash.at('check', 'before');
    try {
      if (d.funding.type === 'CARD') {
        // The customer's checkCard of this card for this sender was APPROVED moments before the transfer was created
        // (createTransfer decided, CARD_CHECK_REUSE_S): the same request again would only cost a gateway call.
        const reused = d.funding.approvedCheckAt ?? null;
        const res = reused ? null : evaluateCardCheck(await this.gateway.checkCard(cardCheck(d, stepKey(t, 'check'))));
        this.crash.at('check', 'after');
        // the check's result is written with the move it calls for — or, approved, with the next write of the run
        const settled = this.steps.settlement(
          s,
          'SUCCEEDED',
          res ? { outcome: res.status, reasons: res.reasons, lastFour: res.lastFour } : { outcome: 'APPROVED', reusedCheckAt: reused! },
        );
        if (res?.status === 'CHALLENGE') {
          await this.move(
            t,
            'ACTION_REQUIRED',
            ctx,
            { action: 'card check', outcome: 'CHALLENGE' },
            {
              // the page as the gateway gave it, with where to send the browser back (the sandbox's returnUrl)
              nextAction: { type: 'THREE_DS_CHALLENGE', redirectUrl: withReturnUrl(res.redirectUrl!, d.threeDSReturnUrl) },
            },
            undefined,
            settled,
          );
          return 'again';
        }
        if (res?.status === 'FAILED') {
          await this.move(
            t,
            'DECLINED',
            ctx,
            { action: 'card check', outcome: 'FAILED', reasons: res.reasons },
            {
              failureCode: 'CARD_CHECK_FAILED',
              failureMessage: `The card check failed: ${res.reasons.join(', ')}`,
              nextAction: NO_NEXT_ACTION,
            },
            undefined,
            settled,
          );
          return 'again';
        }
        if (t.status === 'PENDING' && nextAction(t.nextAction) !== null)
          await this.move(
            t,
            undefined,
            ctx,
            { action: 'card check', outcome: 'APPROVED', ...(reused ? { reusedCheckAt: reused } : {}) },
            { nextAction: NO_NEXT_ACTION },
            undefined,
            settled,
          );
        else await this.defer(t.id, settled);
        return 'again';
      }
      const res = await this.gateway.checkBankAccount(accountCheck(d, stepKey(t, 'check')));
      this.crash.at('check', 'after');
      const ok = res.status === 'APPROVED' && res.accountVerification.accountStatus === 'VALID';
      const settled = this.steps.settlement(s, 'SUCCEEDED', { outcome: ok ? 'APPROVED' : 'FAILED' });
      if (!ok) {
        await this.move(
          t,
          'DECLINED',
          ctx,
          { action: 'account check', outcome: 'DECLINED' },
          {
            failureCode: 'ACCOUNT_CHECK_FAILED',
            failureMessage: `The bank account check failed${res.accountVerification.message ? `: ${res.accountVerification.message}` : ''}`,
          },
          undefined,
          settled,
        );
      } else await this.defer(t.id, settled);
      return 'again';
    } catch (e) {
      if (isUpstreamError(e) && !e.retryable && e.kind === 'rejected') {
        await this.settle(s, 'FAILED', undefined, errorText(e));
        await this.move(
          t,
          'FAILED',
          ctx,
          { action: 'check', error: errorText(e) },
          { failureCode: 'CHECK_REJECTED', failureMessage: 'The funding check request was refused upstream' },
        );
        return 'again';
      }
      return this.retryLater(t, s, 'PENDING', messageOf(e));
    }
  }

  // ── authorize ─────────────────────────────────────────────────────────────────────────────────────

  private async runAuthorize(t: TransferRow, s: SagaStep, ctx: SagaContext): Promise<Next> {
    const d = transferDetails(t.details);
    this.crash.at('authorize', 'before');
    let result: MoneyMovingResult<Payment>;
    try {
      // The body is rebuilt identically on every attempt from the stored details (the gateway checks replays).
      result =
        d.funding.type === 'ACCOUNT_TOKEN'
          ? await this.gateway.createTokenPullPayment(tokenPullPaymentRequest(t, d))
          : await this.gateway.createPayment(paymentRequest(t, d));
    } catch (e) {
      if (isUpstreamError(e) && (e.kind === 'rejected' || e.kind === 'not_found') && !e.retryable) {
        await this.settle(s, 'FAILED', undefined, errorText(e));
        const expired = e.upstreamCode === 'QUOTE_EXPIRED';
        await this.move(
          t,
          expired ? 'EXPIRED' : 'FAILED',
          ctx,
          { action: 'authorize', error: errorText(e) },
          {
            failureCode: expired ? 'QUOTE_EXPIRED' : 'AUTHORIZATION_REJECTED',
            failureMessage: expired
              ? 'The quote expired before the payment was authorized; get a new quote'
              : 'The payment request was refused by the gateway',
            nextAction: NO_NEXT_ACTION,
          },
        );
        return 'again';
      }
      return this.retryLater(t, s, 'PENDING', messageOf(e));
    }
    this.crash.at('authorize', 'after');
    if (isUnknownOutcome(result)) return this.retryLater(t, s, 'UNKNOWN', `unknown outcome: ${result.reason}`);
    const p = result.value;
    const outcome: AuthorizationOutcome = { paymentId: p.paymentId, status: p.status, approved: p.approved, message: p.message ?? null };
    return this.applyAuthorization(t, outcome, ctx, this.steps.settlement(s, 'SUCCEEDED', outcome));
  }

  /**
   * Moves the transfer as a settled authorization says. Called right after settling AND by step() when it finds
   * the authorize step SUCCEEDED while the transfer is still PENDING (a crash between the two writes).
   */
  private async applyAuthorization(t: TransferRow, p: AuthorizationOutcome, ctx: SagaContext, settled?: Settlement): Promise<'again'> {
    if (p.approved && (p.status === 'AUTHORIZED' || p.status === 'CAPTURED')) {
      await this.move(
        t,
        'AUTHORIZED',
        ctx,
        { action: 'authorize', paymentStatus: p.status },
        {
          authorizedAt: this.clock.now(),
          nextAction: NO_NEXT_ACTION,
          nextRunAt: this.clock.now(),
        },
        undefined,
        settled,
      );
    } else if (p.status === 'VOIDED' || p.status === 'CANCELLED') {
      // Replay of a payment that was released meanwhile (e.g. after a long outage).
      await this.move(
        t,
        'AUTHORIZED',
        ctx,
        { action: 'authorize', paymentStatus: p.status },
        { authorizedAt: this.clock.now() },
        undefined,
        settled,
      );
      await this.recordIntent(t, 'void', { target: p.status === 'VOIDED' ? 'VOIDED' : 'EXPIRED', failureCode: 'AUTHORIZATION_RELEASED' });
    } else {
      await this.move(
        t,
        'DECLINED',
        ctx,
        { action: 'authorize', paymentStatus: p.status },
        {
          failureCode: 'PAYMENT_DECLINED',
          failureMessage: p.message ? `The payment was declined: ${p.message}` : 'The payment was declined',
          nextAction: NO_NEXT_ACTION,
        },
        undefined,
        settled,
      );
    }
    return 'again';
  }

  // ── capture / void ────────────────────────────────────────────────────────────────────────────────

  private async runCapture(t: TransferRow, s: SagaStep, ctx: SagaContext): Promise<Next> {
    if (t.status !== 'AUTHORIZED') {
      // The payment left AUTHORIZED by another route (platform reported void/cancel): nothing to capture.
      await this.settle(s, 'FAILED', undefined, `transfer is ${t.status}`);
      return 'again';
    }
    const amount = moneyStepRequest(s.request).amount ?? undefined;
    return this.callGateway(
      t,
      s,
      ctx,
      'capture',
      () => this.gateway.capturePayment(t.externalPaymentId, amount ? { amount } : {}),
      async (e) => {
        if (e.retryable || (e.kind !== 'rejected' && e.kind !== 'not_found')) return null;
        await this.settle(s, 'FAILED', undefined, errorText(e));
        await this.move(t, undefined, ctx, { action: 'capture', outcome: 'refused', error: errorText(e) });
        return 'again'; // AUTHORIZED + failed capture → compensation (void)
      },
    );
  }

  private async runVoid(t: TransferRow, s: SagaStep, ctx: SagaContext): Promise<Next> {
    if (t.status !== 'AUTHORIZED') {
      if (isTerminal(t.status as TransferStatus) || t.status === 'CAPTURED' || t.status === 'PAYOUT_PENDING') {
        await this.settle(s, 'FAILED', undefined, `transfer is ${t.status}`);
        return 'again';
      }
      // PENDING with an authorization just replayed as released: record AUTHORIZED first (runAuthorize does).
    }
    // Retried until confirmed (the gateway's 7-day auto-cancel is the backstop); a 404: the gateway has no such
    // payment, there is nothing to release.
    return this.callGateway(
      t,
      s,
      ctx,
      'void',
      () => this.gateway.voidPayment(t.externalPaymentId),
      async (e) => (e.status === 404 ? this.reconcile(t, s, ctx, 'VOIDED', 'void') : null),
    );
  }

  /**
   * One capture/void call: the answer (or the payment a 409 carries) settles the step and moves the transfer;
   * `refused` decides what another upstream error means (null: retry later); an unknown outcome is retried.
   */
  private async callGateway(
    t: TransferRow,
    s: SagaStep,
    ctx: SagaContext,
    step: MoneyStep,
    call: () => Promise<MoneyMovingResult<Payment>>,
    refused: (e: UpstreamError) => Promise<Next | null>,
  ): Promise<Next> {
    this.crash.at(step, 'before');
    let result: MoneyMovingResult<Payment>;
    try {
      result = await call();
    } catch (e) {
      if (!isUpstreamError(e)) return this.retryLater(t, s, 'PENDING', String((e as Error).message));
      const payment = (e.details?.payment ?? null) as Payment | null;
      if (e.status === 409 && payment) return this.reconcile(t, s, ctx, payment.status, step);
      return (await refused(e)) ?? this.retryLater(t, s, 'PENDING', errorText(e));
    }
    this.crash.at(step, 'after');
    if (isUnknownOutcome(result)) return this.retryLater(t, s, 'UNKNOWN', `unknown outcome: ${result.reason}`);
    return this.reconcile(t, s, ctx, result.value.status, step);
  }

  /** Applies where the payment stands (a 2xx answer, or the payment a 409 carries) to the step and the transfer. */
  private async reconcile(t: TransferRow, s: SagaStep, ctx: SagaContext, status: string, step: MoneyStep): Promise<'again'> {
    let settled: Settlement;
    switch (status) {
      case 'CAPTURED':
        settled = this.steps.settlement(
          s,
          step === 'capture' ? 'SUCCEEDED' : 'FAILED',
          { status },
          step === 'void' ? 'payment already captured' : undefined,
        );
        break;
      case 'VOIDED':
      case 'CANCELLED':
        settled = this.steps.settlement(s, step === 'void' ? 'SUCCEEDED' : 'FAILED', { status });
        break;
      default:
        await this.settle(s, 'FAILED', { status }, `unexpected payment status ${status}`);
        this.logger.error({ transferId: t.id, step, paymentStatus: status }, 'unexpected payment status while reconciling');
        return 'again';
    }
    // the step's result and the move it calls for: one write
    return this.applyPaymentState(t, s, ctx, status, step, settled);
  }

  /**
   * Moves the transfer to where a settled capture/void step found the payment. Called right after settling AND
   * by step() when it finds such a step while the transfer is still AUTHORIZED (a crash between the two writes).
   */
  private async applyPaymentState(
    t: TransferRow,
    s: SagaStep,
    ctx: SagaContext,
    paymentStatus: string,
    step: MoneyStep,
    settled?: Settlement,
  ): Promise<'again'> {
    const req = moneyStepRequest(s.request);
    const detail = { action: step, paymentStatus, requestedBy: req.requestedBy };
    if (paymentStatus === 'CAPTURED') {
      const captured = req.amount ?? formatAmount(totalOf(t), t.sendCurrency);
      // next_run_at is left as it is: the next iteration decides when to look again, from the state after the move.
      await this.move(t, 'CAPTURED', ctx, { ...detail, amount: captured }, { capturedAmount: captured }, undefined, settled);
    } else if (paymentStatus === 'VOIDED' || paymentStatus === 'CANCELLED') {
      const target: TransferStatus = paymentStatus === 'CANCELLED' ? 'EXPIRED' : step === 'void' ? (req.target ?? 'VOIDED') : 'VOIDED';
      const code = paymentStatus === 'CANCELLED' ? 'AUTHORIZATION_CANCELLED' : req.failureCode;
      await this.move(
        t,
        target,
        ctx,
        detail,
        {
          ...(code ? { failureCode: code, failureMessage: failureMessage(code) } : {}),
        },
        target === 'EXPIRED' && ctx.cause === 'mutation' ? 'worker' : undefined,
        settled,
      );
    }
    return 'again';
  }
}

export function failureMessage(code: string): string {
  switch (code) {
    case 'COMPLIANCE_REJECTED':
      return 'Compliance review rejected the transfer; the authorization was released';
    case 'CAPTURE_WINDOW_EXPIRED':
      return 'The authorization was not captured in time and was released';
    case 'AUTHORIZATION_CANCELLED':
      return 'The gateway cancelled the uncaptured authorization';
    case 'CAPTURE_FAILED':
      return 'The capture failed; the authorization was released';
    case 'VOIDED_BY_REQUEST':
      return 'The transfer was cancelled before capture';
    case 'CANCELLED_BY_CUSTOMER':
      return 'Cancelled at the sender’s request; any money taken goes back to the sender';
    case 'FUNDING_NOT_OFFERED':
      return 'A linked bank account cannot pay a recipient; any money taken goes back to the sender';
    default:
      return 'The authorization was released';
  }
}
