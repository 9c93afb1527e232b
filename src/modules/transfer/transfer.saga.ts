import type { PrismaClient, SagaStep } from '../../generated/prisma/client';
import { backoffDelay } from '../../shared/backoff';
import type { Clock } from '../../shared/clock';
import type { Logger } from '../../shared/logger';
import type { GatewayClient } from '../../upstream/gateway/gateway.client';
import type { Payment } from '../../upstream/gateway/gateway.types';
import { isUnknownOutcome, isUpstreamError, type MoneyMovingResult, type UpstreamError } from '../../upstream/http/upstream.errors';
import { evaluateCardCheck } from '../checks/checks.ports';
import { moneyStepRequest, refundStepRequest, transferDetails, type AuthorizationOutcome, type CheckOutcome } from './transfer.columns';
import {
  afterAuthorization,
  afterCheck,
  afterPayment,
  afterRefund,
  authorizationRefused,
  cancelRequested,
  captureRefused,
  causeFor,
  checkRefused,
  decide,
  refundRefused,
  type MoneyStep,
  type Move,
  type SagaDecision,
} from './transfer.decisions';
import type { CrashHook } from './transfer.faults';
import { TransferLeases, type LeaseRelease } from './transfer.leases';
import { reconcileIfQuiet } from './transfer.reconciler';
import type { TransferRepository, TransferRow } from './transfer.repository';
import { accountCheck, cardCheck, paymentRequest, tokenPullPaymentRequest } from './transfer.requests';
import type { Loaded } from './transfer.rows.repository';
import { SagaRun } from './transfer.run';
import { isRefundStep, stepKey, type Settlement, type StepName, type StepOutcome, type StepState } from './transfer.steps';
import { SagaStepLog } from './transfer.steps.repository';
import { isTerminal, type Cause, type TransferStatus } from './transfer.states';

export interface SagaContext {
  cause: Cause;
  actor: string;
  upstreamRef?: string | null;
}

interface SagaOptions {
  leaseMs: number;
  /** Waiting on the platform this long with no change → read its state from the platform (absent/0 = never). */
  reconcileAfterMs?: number;
  captureWindowMs: number;
  /** Retry delay after a transient failure: min(base × 2^attempts, max). */
  retryBaseMs: number;
  retryMaxMs: number;
}

/** After a decision is carried out: decide again (the state moved), or the run ends here (waiting). */
type Then = 'decide-again' | 'wait';
/** Money intents are written under the transfer's row lock, ordered with platform events that end an authorization. */
const LOCKED = { whileStatusUnchanged: true } as const;

const errorText = (e: UpstreamError) => `${e.kind}${e.status ? ` ${e.status}` : ''}${e.upstreamCode ? ` ${e.upstreamCode}` : ''}`;
const messageOf = (e: unknown) => (isUpstreamError(e) ? errorText(e) : String((e as Error).message));

/**
 * The transfer saga: carries out the decisions of transfer.decisions.ts, which read the persisted state (transfer row
 * + saga_steps). Exactly-once effects: the intent (step, key) is written before each upstream call; a step left
 * PENDING or UNKNOWN (crash, lost response) is always re-run first, with the same key — the gateway replays a payment
 * by externalPaymentId and answers capture/void repeats with 409 + the payment, which settles the step.
 * Callers must hold the transfer's lease (`leases`: withLease, or the worker's claim), so one process advances a
 * transfer at a time. Kept elsewhere: a run's state and batching (transfer.run.ts), the leases (transfer.leases.ts),
 * the intent log (transfer.steps.repository.ts), the upstream bodies (transfer.requests.ts), the reconciliation of a quiet wait
 * on the platform (transfer.reconciler.ts).
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

  /** Reads a waiting transfer's state from the platform (set by the module; absent in unit set-ups). */
  reconciler: { reconcile(t: TransferRow): Promise<number> } | null = null;

  /** Asks the platform to stop a transaction's payout (set by the module; absent in unit set-ups). */
  platform: { cancel(externalPaymentId: string): Promise<void> } | null = null;

  /** Counts refunds by outcome (set by the module: transfer_refunds_total). */
  onRefund: (outcome: 'requested' | 'succeeded' | 'failed' | 'unknown') => void = () => undefined;

  /** Writes an intent row outside a run (idempotent: the (transfer, step) row is unique). */
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
  recordIntent(t: TransferRow, step: StepName, request: Record<string, unknown>, opts?: { whileStatusUnchanged: true }) {
    return this.steps.record(t, step, request, opts);
  }

  // ── The run ───────────────────────────────────────────────────────────────────────────────────────

  /**
   * Advances the transfer as far as it can go now: one decision at a time, each carried out, until one waits (on the
   * customer, the platform, a retry delay, a timer). With `lease` (the caller's, which it would release next), the
   * run's last write releases it too.
   */
  async advance(transferId: string, ctx: SagaContext, loaded?: Loaded | null, lease?: LeaseRelease): Promise<TransferRow | null> {
    const run = new SagaRun(transferId, loaded, lease, this.steps, this.leases);
    for (let i = 0; i < 12; i++) {
      if (this.leases.isLost(transferId)) break; // another instance holds it now: it carries on
      if (!(await run.refresh())) return null;
      if ((await this.next(run, ctx)) === 'wait') {
        await run.flush();
        return run.t;
      }
    }
    // Stopped before reaching a wait (iteration cap, or the lease was lost): not done — keep it due.
    await run.flush();
    await this.repo.dueBy(transferId, this.clock.now());
    return run.t;
  }

  /** The next decision, carried out. */
  private async next(run: SagaRun, runCtx: SagaContext): Promise<Then> {
    const t = run.t!;
    const ctx: SagaContext = { ...runCtx, cause: causeFor(t.status as TransferStatus, runCtx.cause) };
    const d: SagaDecision = decide({
      t,
      steps: run.steps,
      now: this.clock.nowMs(),
      cause: ctx.cause,
      captureWindowMs: this.opts.captureWindowMs,
    });
    switch (d.kind) {
      case 'move':
        await this.move(run, t, d.move, ctx);
        if (d.thenVoid) await this.intent(run, t, 'void', { ...d.thenVoid });
        return 'decide-again';
      case 'run':
        return this.runStep(run, t, d.step, ctx);
      case 'check':
        return this.runCheck(run, t, d.existing, ctx);
      case 'start': {
        const s = await this.intent(run, t, d.step, d.request, LOCKED);
        // null: the transfer moved meanwhile (e.g. compliance rejected it): decide anew
        return s ? this.runStep(run, t, s, d.cause ? { ...ctx, cause: d.cause } : ctx) : 'decide-again';
      }
      case 'refund': {
        const s = await this.intent(run, t, d.step, { ...d.request });
        if (!s) return 'decide-again';
        this.onRefund('requested');
        return this.runRefund(run, t, s, ctx);
      }
      case 'wait':
        if (d.attention) this.logger[d.attention.level]({ transferId: t.id }, d.attention.message);
        return this.waitUntil(run, t, d.until);
      case 'wait-on-platform':
        return this.waitOnPlatform(run, t, d.until);
      case 'rest':
        await this.steps.abandonCheck(t.id, t.status);
        if (t.nextRunAt || run.lease) await this.deferLast(run, t, null);
        return 'wait';
      case 'stop':
        return 'wait';
    }
  }

  private runStep(run: SagaRun, t: TransferRow, s: SagaStep, ctx: SagaContext): Promise<Then> {
    if (isRefundStep(s.step)) return this.runRefund(run, t, s, ctx);
    switch (s.step as StepName) {
      case 'check':
        return this.runCheck(run, t, s, ctx);
      case 'authorize':
        return this.runAuthorize(run, t, s, ctx);
      case 'capture':
        return this.runCapture(run, t, s, ctx);
      case 'void':
        return this.runVoid(run, t, s, ctx);
      case 'cancel':
        return this.runCancel(run, t, s, ctx);
      default:
        throw new Error(`unknown saga step ${s.step}`);
    }
  }

  // ── Writes of a run ───────────────────────────────────────────────────────────────────────────────

  /** Writes an intent with the run's held result (one statement); the run carries what it wrote. */
  private async intent(
    run: SagaRun,
    t: TransferRow,
    step: StepName,
    request: Record<string, unknown>,
    opts?: { whileStatusUnchanged: true },
  ): Promise<SagaStep | null> {
    const held = run.take();
    const written = await this.steps.record(t, step, request, opts, held?.sql);
    held?.written();
    run.intentWritten(step, written, this.clock.now());
    return written;
  }

  /**
   * Moves the transfer as decided on `t`: one statement when nothing was recorded since it was read (else on the
   * locked row). The step's result that calls for the move (`settled`) — or else the run's held one — is written with
   * it, whatever comes of the move.
   */
  private async move(run: SagaRun, t: TransferRow, m: Move, ctx: SagaContext, settled?: Settlement) {
    if (settled) await run.flush();
    else settled = run.take();
    const r = await this.repo.transition(
      {
        transferId: t.id,
        to: m.to,
        cause: m.cause ?? ctx.cause,
        actor: ctx.actor,
        upstreamRef: ctx.upstreamRef ?? null,
        detail: m.detail,
        patch: m.patch ?? {},
        guard: (row) => (row.status === t.status ? null : `status moved to ${row.status}`),
        sideWrite: settled?.sql,
      },
      t,
    );
    settled?.written();
    run.moved(r, this.clock.nowMs());
    return r;
  }

  /** A step's result and the move it calls for, one write — or, calling for none, held for the run's next write. */
  private async settleWith(run: SagaRun, t: TransferRow, m: Move | null, ctx: SagaContext, settled: Settlement): Promise<'decide-again'> {
    if (m) await this.move(run, t, m, ctx, settled);
    else run.hold(settled);
    return 'decide-again';
  }

  private settle(s: SagaStep, state: StepState, response?: StepOutcome, lastError?: string): Promise<void> {
    return this.steps.settle(s, state, response, lastError);
  }

  private async retryLater(run: SagaRun, t: TransferRow, s: SagaStep, state: 'UNKNOWN' | 'PENDING', why: string): Promise<'wait'> {
    const attempts = s.attempts;
    await this.settle(s, state, undefined, why);
    const delay = backoffDelay({ baseMs: this.opts.retryBaseMs, maxMs: this.opts.retryMaxMs, attempt: attempts, maxExponent: 16 });
    // A wake-up that arrived since `t` was read wins: the row stays due and the step is retried at once.
    await this.deferLast(run, t, new Date(this.clock.nowMs() + delay));
    this.logger.warn({ transferId: t.id, step: s.step, attempts: attempts + 1, why }, 'saga step will be retried');
    return 'wait';
  }

  /**
   * Sleep until `at` (null: until an event) — unless the transfer changed or was woken since it was read: then
   * decide again (no lost wake-up: see TransferRepository, Scheduling). Nothing to write if `at` is already set:
   * a wake-up since then has moved next_run_at earlier, and it stays so.
   */
  private async waitUntil(run: SagaRun, t: TransferRow, at: Date | null): Promise<Then> {
    await run.flush();
    if (run.holdsLease) {
      if (await run.releaseWith((owner) => this.repo.scheduleIfUnchanged(t.id, t.eventSeq, t.wakeSeq, at, owner))) return 'wait';
    } else {
      if ((t.nextRunAt?.getTime() ?? null) === (at?.getTime() ?? null)) return 'wait';
      if (await this.repo.scheduleIfUnchanged(t.id, t.eventSeq, t.wakeSeq, at)) return 'wait';
    }
    run.markStale(); // recorded or woken meanwhile (or the lease lost): read it again
    return 'decide-again';
  }

  /** Defers the transfer to `at` unless woken since `t` was read (deferIfNoWake) — releasing the run's lease with it. */
  private async deferLast(run: SagaRun, t: TransferRow, at: Date | null): Promise<void> {
    await run.flush();
    if (run.holdsLease) await run.releaseWith((owner) => this.repo.deferAndRelease(t.id, t.wakeSeq, at, owner));
    else await this.repo.deferIfNoWake(t.id, t.wakeSeq, at);
  }

  /** Waiting on the platform: ask it when it has been quiet (transfer.reconciler.ts), else sleep until `cap` at the latest. */
  private async waitOnPlatform(run: SagaRun, t: TransferRow, cap: number | null): Promise<Then> {
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
      run.changedAt,
    );
    if (next !== 'again') return this.waitUntil(run, t, next);
    run.markStale(); // the platform's answer changed the transfer
    return 'decide-again';
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

  private async runCheck(run: SagaRun, t: TransferRow, existing: SagaStep | undefined, ctx: SagaContext): Promise<Then> {
    const d = transferDetails(t.details);
    const s = existing ?? (await this.intent(run, t, 'check', { funding: d.funding.type }))!;
    this.crash.at('check', 'before');
    try {
      if (d.funding.type === 'CARD') {
        // The customer's checkCard of this card for this sender was APPROVED moments before the transfer was created
        // (createTransfer decided, CARD_CHECK_REUSE_S): the same request again would only cost a gateway call.
        const reused = d.funding.approvedCheckAt ?? null;
        const res = reused ? null : evaluateCardCheck(await this.gateway.checkCard(cardCheck(d, stepKey(t, 'check'))));
        this.crash.at('check', 'after');
        const settled = this.steps.settlement(
          s,
          'SUCCEEDED',
          res ? { outcome: res.status, reasons: res.reasons, lastFour: res.lastFour } : { outcome: 'APPROVED', reusedCheckAt: reused! },
        );
        const answer = res
          ? { via: 'card' as const, status: res.status, reasons: res.reasons, redirectUrl: res.redirectUrl }
          : { via: 'card' as const, status: 'APPROVED', reasons: [], reusedCheckAt: reused! };
        return this.settleWith(run, t, afterCheck(t, d, answer), ctx, settled);
      }
      const res = await this.gateway.checkBankAccount(accountCheck(d, stepKey(t, 'check')));
      this.crash.at('check', 'after');
      const approved = res.status === 'APPROVED' && res.accountVerification.accountStatus === 'VALID';
      const settled = this.steps.settlement(s, 'SUCCEEDED', { outcome: approved ? 'APPROVED' : 'FAILED' });
      return this.settleWith(
        run,
        t,
        afterCheck(t, d, { via: 'account', approved, message: res.accountVerification.message }),
        ctx,
        settled,
      );
    } catch (e) {
      if (isUpstreamError(e) && !e.retryable && e.kind === 'rejected') {
        await this.settle(s, 'FAILED', undefined, errorText(e));
        await this.move(run, t, checkRefused(errorText(e)), ctx);
        return 'decide-again';
      }
      return this.retryLater(run, t, s, 'PENDING', messageOf(e));
    }
  }

  // ── authorize ─────────────────────────────────────────────────────────────────────────────────────

  private async runAuthorize(run: SagaRun, t: TransferRow, s: SagaStep, ctx: SagaContext): Promise<Then> {
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
        await this.move(run, t, authorizationRefused(errorText(e), e.upstreamCode), ctx);
        return 'decide-again';
      }
      return this.retryLater(run, t, s, 'PENDING', messageOf(e));
    }
    this.crash.at('authorize', 'after');
    if (isUnknownOutcome(result)) return this.retryLater(run, t, s, 'UNKNOWN', `unknown outcome: ${result.reason}`);
    const p = result.value;
    const outcome: AuthorizationOutcome = { paymentId: p.paymentId, status: p.status, approved: p.approved, message: p.message ?? null };
    const then = afterAuthorization(outcome, this.clock.nowMs());
    await this.move(run, t, then.move, ctx, this.steps.settlement(s, 'SUCCEEDED', outcome));
    if (then.thenVoid) await this.intent(run, t, 'void', { ...then.thenVoid });
    return 'decide-again';
  }

  // ── capture / void ────────────────────────────────────────────────────────────────────────────────

  private async runCapture(run: SagaRun, t: TransferRow, s: SagaStep, ctx: SagaContext): Promise<Then> {
    if (t.status !== 'AUTHORIZED') {
      // The payment left AUTHORIZED by another route (platform reported void/cancel): nothing to capture.
      await this.settle(s, 'FAILED', undefined, `transfer is ${t.status}`);
      return 'decide-again';
    }
    const amount = moneyStepRequest(s.request).amount ?? undefined;
    return this.callGateway(
      run,
      t,
      s,
      ctx,
      'capture',
      () => this.gateway.capturePayment(t.externalPaymentId, amount ? { amount } : {}),
      async (e) => {
        if (e.retryable || (e.kind !== 'rejected' && e.kind !== 'not_found')) return null;
        await this.settle(s, 'FAILED', undefined, errorText(e));
        await this.move(run, t, captureRefused(errorText(e)), ctx);
        return 'decide-again'; // AUTHORIZED + failed capture → compensation (void)
      },
    );
  }

  private async runVoid(run: SagaRun, t: TransferRow, s: SagaStep, ctx: SagaContext): Promise<Then> {
    // Nothing to release once the transfer ended or the money was taken. (PENDING with an authorization just replayed
    // as released: runAuthorize records AUTHORIZED first.)
    if (isTerminal(t.status as TransferStatus) || t.status === 'CAPTURED' || t.status === 'PAYOUT_PENDING') {
      await this.settle(s, 'FAILED', undefined, `transfer is ${t.status}`);
      return 'decide-again';
    }
    // Retried until confirmed (the gateway's 7-day auto-cancel is the backstop); a 404: the gateway has no such
    // payment, there is nothing to release.
    return this.callGateway(
      run,
      t,
      s,
      ctx,
      'void',
      () => this.gateway.voidPayment(t.externalPaymentId),
      async (e) => (e.status === 404 ? this.paymentFound(run, t, s, ctx, 'VOIDED', 'void') : null),
    );
  }

  /**
   * One capture/void call: the answer (or the payment a 409 carries) settles the step and moves the transfer;
   * `refused` decides what another upstream error means (null: retry later); an unknown outcome is retried.
   */
  private async callGateway(
    run: SagaRun,
    t: TransferRow,
    s: SagaStep,
    ctx: SagaContext,
    step: MoneyStep,
    call: () => Promise<MoneyMovingResult<Payment>>,
    refused: (e: UpstreamError) => Promise<Then | null>,
  ): Promise<Then> {
    this.crash.at(step, 'before');
    let result: MoneyMovingResult<Payment>;
    try {
      result = await call();
    } catch (e) {
      if (!isUpstreamError(e)) return this.retryLater(run, t, s, 'PENDING', String((e as Error).message));
      const payment = (e.details?.payment ?? null) as Payment | null;
      if (e.status === 409 && payment) return this.paymentFound(run, t, s, ctx, payment.status, step);
      return (await refused(e)) ?? this.retryLater(run, t, s, 'PENDING', errorText(e));
    }
    this.crash.at(step, 'after');
    if (isUnknownOutcome(result)) return this.retryLater(run, t, s, 'UNKNOWN', `unknown outcome: ${result.reason}`);
    return this.paymentFound(run, t, s, ctx, result.value.status, step);
  }

  /** Where the payment stands (a 2xx answer, or the payment a 409 carries) settles the step and moves the transfer, one write. */
  private async paymentFound(
    run: SagaRun,
    t: TransferRow,
    s: SagaStep,
    ctx: SagaContext,
    status: string,
    step: MoneyStep,
  ): Promise<'decide-again'> {
    const found = { status };
    let settled: Settlement;
    if (status === 'CAPTURED')
      settled = this.steps.settlement(
        s,
        step === 'capture' ? 'SUCCEEDED' : 'FAILED',
        found,
        step === 'void' ? 'payment already captured' : undefined,
      );
    else if (status === 'VOIDED' || status === 'CANCELLED')
      settled = this.steps.settlement(s, step === 'void' ? 'SUCCEEDED' : 'FAILED', found);
    else {
      await this.settle(s, 'FAILED', found, `unexpected payment status ${status}`);
      this.logger.error({ transferId: t.id, step, paymentStatus: status }, 'unexpected payment status while reconciling');
      return 'decide-again';
    }
    const m = afterPayment(t, step, moneyStepRequest(s.request), status, ctx.cause);
    if (m) await this.move(run, t, m, ctx, settled);
    return 'decide-again';
  }

  // ── money back ────────────────────────────────────────────────────────────────────────────────────

  /** One refund call (refund:<n>): its externalRefundId is the step's key, so a retry never refunds twice. */
  private async runRefund(run: SagaRun, t: TransferRow, s: SagaStep, ctx: SagaContext): Promise<Then> {
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
        await this.move(run, t, refundRefused(s.step, errorText(e)), ctx);
        return 'decide-again';
      }
      return this.retryLater(run, t, s, 'PENDING', messageOf(e));
    }
    this.crash.at('refund', 'after');
    if (isUnknownOutcome(result)) {
      this.onRefund('unknown');
      return this.retryLater(run, t, s, 'UNKNOWN', `unknown outcome: ${result.reason}`);
    }
    const settled = this.steps.settlement(s, 'SUCCEEDED', { refundId: result.value.refundId, status: result.value.status });
    await this.move(run, t, afterRefund(t, s.step, req), ctx, settled);
    this.onRefund('succeeded');
    return 'decide-again';
  }

  /** Asks the platform to stop the payout; a refusal (already cancelled, or paid out) is read back from the platform. */
  private async runCancel(run: SagaRun, t: TransferRow, s: SagaStep, ctx: SagaContext): Promise<Then> {
    if (!this.platform) {
      await this.settle(s, 'FAILED', undefined, 'no platform to ask');
      return this.waitOnPlatform(run, t, null);
    }
    this.crash.at('cancel', 'before');
    try {
      await this.platform.cancel(t.externalPaymentId);
    } catch (e) {
      if (isUpstreamError(e) && e.status === 404) {
        // the platform holds no transaction for this payment (a token PULL opens none): no payout to stop
        await this.settle(s, 'SUCCEEDED', { status: 'NoTransaction' });
        return 'decide-again';
      }
      if (isUpstreamError(e) && !e.retryable && (e.kind === 'rejected' || e.kind === 'not_found' || e.status === 409)) {
        await this.settle(s, 'FAILED', undefined, errorText(e));
        // already cancelled (an earlier attempt whose answer was lost), or too late: what the platform says decides
        await this.reconciler
          ?.reconcile(t)
          .catch((err: unknown) =>
            this.logger.warn({ transferId: t.id, err: { message: messageOf(err) } }, 'reading the platform after a refused cancel failed'),
          );
        run.markStale();
        return 'decide-again';
      }
      return this.retryLater(run, t, s, 'PENDING', messageOf(e));
    }
    this.crash.at('cancel', 'after');
    await this.settle(s, 'SUCCEEDED', { status: 'CancelRequested' });
    await this.move(run, t, cancelRequested, ctx);
    return 'decide-again';
  }
}
