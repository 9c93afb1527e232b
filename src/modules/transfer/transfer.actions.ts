import { randomUUID } from 'node:crypto';
import type { Prisma, PrismaClient } from '../../generated/prisma/client';
import type { Caller } from '../../auth/auth.types';
import type { Clock } from '../../shared/clock';
import { AppError, badField, invalidState, isAppError, type StateReason } from '../../shared/errors';
import type { IdempotencyService } from '../../db/idempotency.service';
import { eventDetail, moneyStepRequest, NO_NEXT_ACTION, refundStepRequest, type CheckOutcome } from './transfer.columns';
import { nextRefundStep } from './transfer.decisions';
import { isRefundStep } from './transfer.steps';
import { totalOf } from './transfer.requests';
import { isTerminal, type TransferStatus } from './transfer.states';
import { paidOut, payoutStopped } from './transfer.platform';
import { formatAmount } from '../../shared/money';
import { WAKE, type TransferRepository, type TransferRow } from './transfer.repository';
import type { SagaContext, TransferSaga } from './transfer.saga';

type ActionName = 'resumeTransfer' | 'captureTransfer' | 'voidTransfer' | 'cancelTransfer' | 'refundTransfer';

/**
 * One of the customer's / back-office's actions on a transfer, as the shared course runs it (TransferActions.run):
 * idempotency record → already done by this very request? (then carry on) → cheap precheck → the transfer's lease
 * → read it → done by a duplicate meanwhile? → state check → record the action (intent or transition, under the
 * row lock where money moves) → run the saga on. What an app sees changes through the repository, which publishes.
 */
interface Action {
  operation: ActionName;
  caller: Caller;
  key: string;
  /** The transfer as the caller was allowed to see it (before the lease). */
  transfer: TransferRow;
  /** The request's arguments as its idempotency record hashes them. */
  args: Record<string, string | null>;
  /** How the saga runs on after the action (and on a retry of one that already took effect). */
  ctx: SagaContext;
  /** The status the action asks for (what a refusal records as its toStatus). */
  asks: TransferStatus;
  /** A cheap refusal without waiting for the lease (e.g. 199 of 200 concurrent captures). */
  precheck?: () => Promise<void>;
  /** On the transfer read under the lease: whether a duplicate of this very request took effect first. */
  doneMeanwhile(t: TransferRow): Promise<boolean>;
  /** Throws INVALID_STATE unless the action is allowed on the transfer read under the lease. */
  check(t: TransferRow): Promise<void>;
  /** Records the action; throws INVALID_STATE when the transfer changed meanwhile. */
  record(t: TransferRow): Promise<void>;
}

/**
 * resumeTransfer, captureTransfer and voidTransfer: each records its intent under the transfer's lease and runs
 * the saga inline (TransferService checks who may ask and the arguments first).
 */
export class TransferActions {
  private readonly owner = `api:${randomUUID()}`;

  constructor(
    private readonly prisma: PrismaClient,
    private readonly repo: TransferRepository,
    private readonly saga: TransferSaga,
    private readonly idempotency: IdempotencyService,
    private readonly clock: Clock,
    private readonly opts: { leaseWaitMs: number; cancelWindowMs: number },
  ) {}

  /**
   * Until when the owner may cancel `t`, or null once it can no longer be (a final status, a cancellation already
   * asked for, money on its way back, the platform paid out, or past the window from its creation).
   */
  cancellableUntil(t: CancelFacts): Date | null {
    return this.cancelRefusal(t) === null ? new Date(t.createdAt.getTime() + this.opts.cancelWindowMs) : null;
  }

  /** Why the owner may not cancel `t` now (the reason an app shows, and the developer's detail); null when they may. */
  private cancelRefusal(t: CancelFacts): { reason: StateReason; detail: string } | null {
    // under way until the transfer ends; once it has, it is simply over
    if (t.cancelRequestedAt && !isTerminal(t.status))
      return { reason: 'CANCEL_ALREADY_REQUESTED', detail: 'This transfer is already being cancelled' };
    if (!CANCELLABLE.has(t.status) || paidOut(t) || payoutStopped(t))
      return {
        reason: 'CANCEL_NOT_POSSIBLE',
        detail: `This transfer can no longer be cancelled: it has been paid out or has ended (${t.status})`,
      };
    if (this.clock.nowMs() >= t.createdAt.getTime() + this.opts.cancelWindowMs)
      return { reason: 'CANCEL_WINDOW_PASSED', detail: 'This transfer can no longer be cancelled: the time to cancel it has passed' };
    return null;
  }

  /**
   * The owner (or back-office) takes the transfer back: before the capture the authorization is released (VOIDED);
   * after it, the platform is asked to stop the payout and the money goes back (REFUND_PENDING → REFUNDED). Recorded
   * as a request on the transfer (cancel_requested_at, with a wake-up); the saga carries it out — at once, inline.
   */
  cancel(caller: Caller, t0: TransferRow, input: { idempotencyKey: string }): Promise<TransferRow> {
    const key = input.idempotencyKey;
    const operation = 'cancelTransfer';
    const check = async (t: TransferRow) => {
      const refusal = this.cancelRefusal(t);
      if (refusal) throw invalidState(refusal.reason, refusal.detail, { cancellable: false });
    };
    return this.run({
      operation,
      asks: t0.capturedAmount === null ? 'VOIDED' : 'REFUND_PENDING',
      caller,
      key,
      transfer: t0,
      args: { transferId: t0.id },
      ctx: { cause: 'mutation', actor: caller.userId },
      precheck: async () => check((await this.repo.get(t0.id))!),
      doneMeanwhile: async (t) => t.cancelRequestedAt !== null && (await this.doneByKey(t.id, caller, operation, key)),
      check,
      record: async (t) => {
        const r = await this.repo.transition({
          transferId: t.id,
          cause: 'mutation',
          actor: caller.userId,
          detail: { action: operation, idempotencyKey: key },
          patch: { cancelRequestedAt: this.clock.now(), ...WAKE(this.clock.now()) },
          guard: (row) => (row.status === t.status && row.cancelRequestedAt === null ? null : 'the transfer changed meanwhile'),
        });
        if (!r.ok) throw new AppError('INVALID_STATE', 'The transfer changed meanwhile; read it again');
      },
    });
  }

  /**
   * Back-office gives money back (goodwill, a dispute): a refund of `amount` (null: all that is left), at most what
   * was captured less what was refunded or is being refunded. Recorded as a saga step (refund:<n>, the gateway's
   * externalRefundId) and run inline; a COMPLETED transfer stays COMPLETED, its refundedAmount grows.
   */
  refund(caller: Caller, t0: TransferRow, input: { idempotencyKey: string; reason: string }, amount: string | null): Promise<TransferRow> {
    const key = input.idempotencyKey;
    const operation = 'refundTransfer';
    // what the check found on the transfer read under the lease, for record() right after it
    let found: { steps: { step: string }[]; left: Prisma.Decimal } | null = null;
    const check = async (t: TransferRow) => {
      if (t.status !== 'COMPLETED' && t.status !== 'REFUND_PENDING')
        throw new AppError(
          'INVALID_STATE',
          `Only a COMPLETED transfer (or one whose money is on its way back) can be refunded (it is ${t.status})`,
        );
      const steps = await this.prisma.sagaStep.findMany({ where: { transferId: t.id } });
      const refunds = steps.filter((s) => isRefundStep(s.step));
      if (refunds.some((s) => s.state === 'PENDING' || s.state === 'UNKNOWN'))
        throw new AppError('INVALID_STATE', 'A refund of this transfer is in progress; retry once it settled');
      if (t.status === 'REFUND_PENDING' && !refunds.some((s) => s.state === 'FAILED'))
        throw new AppError('INVALID_STATE', 'The money of this transfer is already on its way back');
      const left = (t.capturedAmount ?? totalOf(t)).minus(t.refundedAmount);
      if (left.lte(0)) throw new AppError('INVALID_STATE', 'Everything captured has been refunded already');
      if (amount !== null && left.lt(amount))
        throw badField(
          'input.amount',
          'ABOVE_MAXIMUM',
          `amount is above what is left to refund (${formatAmount(left, t.sendCurrency)} ${t.sendCurrency})`,
          { maxAmount: formatAmount(left, t.sendCurrency) },
        );
      return (found = { steps, left });
    };
    return this.run({
      operation,
      asks: 'REFUNDED',
      caller,
      key,
      transfer: t0,
      args: { transferId: t0.id, amount, reason: input.reason },
      ctx: { cause: 'mutation', actor: caller.userId },
      doneMeanwhile: (t) => this.doneByKey(t.id, caller, operation, key),
      check: async (t) => void (await check(t)),
      record: async (t) => {
        const { steps, left } = found ?? (await check(t));
        const s = await this.saga.recordIntent(t, nextRefundStep(steps), {
          amount: amount ?? formatAmount(left, t.sendCurrency),
          kind: 'BACKOFFICE',
          reason: input.reason,
          requestedBy: caller.userId,
          idempotencyKey: key,
        });
        if (!s) throw new AppError('INVALID_STATE', 'The transfer changed meanwhile; read it again');
        this.saga.onRefund('requested');
      },
    });
  }

  /**
   * A transfer in ACTION_REQUIRED whose 3-D Secure challenge is done: back to PENDING, due at once, authorized next.
   * Whether it is done is asked first (the card check again: the one read of the challenge the gateway offers); a
   * challenge still pending is INVALID_STATE (extensions.reason CHALLENGE_NOT_COMPLETED) and changes nothing — no
   * version, no other upstream call — so an early resume does not churn the transfer.
   */
  resume(caller: Caller, t0: TransferRow, input: { transferId: string; idempotencyKey: string }): Promise<TransferRow> {
    const key = input.idempotencyKey;
    const operation = 'resumeTransfer';
    // what the check below found on the transfer read under the lease, for record() right after it
    let found: CheckOutcome | null = null;
    return this.run({
      operation,
      asks: 'PENDING',
      caller,
      key,
      transfer: t0,
      args: { transferId: input.transferId },
      ctx: { cause: 'worker', actor: 'worker' },
      // Only once it is no longer ACTION_REQUIRED can a resume of ours have happened (then a new challenge would be a new resume).
      doneMeanwhile: async (t) => t.status !== 'ACTION_REQUIRED' && (await this.doneByKey(t.id, caller, operation, key)),
      check: async (t) => {
        if (t.status !== 'ACTION_REQUIRED')
          throw new AppError('INVALID_STATE', `Only a transfer in ACTION_REQUIRED can be resumed (it is ${t.status})`);
        found = await this.saga.readChallenge(t);
        if (found?.outcome === 'CHALLENGE')
          throw invalidState(
            'CHALLENGE_NOT_COMPLETED',
            'The 3-D Secure challenge is not completed yet: complete it on the page of nextAction.redirectUrl, then resume',
          );
      },
      record: async (t) => {
        // The check just made is the check step's result (its key and body): the saga goes on from it (approved: to
        // the authorization; declined: it checks again and declines) instead of checking the card a second time.
        await this.prisma.sagaStep.updateMany({
          where: { transferId: t.id, step: 'check' },
          data: found
            ? { state: 'SUCCEEDED', response: found, attempts: { increment: 1 }, lastError: null, updatedAt: this.clock.now() }
            : { state: 'PENDING', updatedAt: this.clock.now() },
        });
        // Due at once (a wake-up): should this process stop before the saga runs, the worker re-runs the check.
        // The challenge is behind us: PENDING shows no next action (a new challenge sets one again).
        await this.repo.transition({
          transferId: t.id,
          to: 'PENDING',
          cause: 'mutation',
          actor: caller.userId,
          detail: { action: operation, idempotencyKey: key },
          patch: { ...WAKE(this.clock.now()), nextAction: NO_NEXT_ACTION },
        });
      },
    });
  }

  /** Captures an AUTHORIZED transfer's payment (`amount`: a partial capture, already formatted; null: all of it). */
  capture(caller: Caller, t0: TransferRow, input: { idempotencyKey: string }, amount: string | null): Promise<TransferRow> {
    return this.moneyAction(
      caller,
      t0,
      'captureTransfer',
      input.idempotencyKey,
      { transferId: t0.id, amount },
      { amount, requestedBy: caller.userId, idempotencyKey: input.idempotencyKey },
    );
  }

  /** Voids an AUTHORIZED transfer's payment (the authorization is released; the transfer ends VOIDED). */
  void(caller: Caller, t0: TransferRow, input: { idempotencyKey: string }): Promise<TransferRow> {
    const key = input.idempotencyKey;
    return this.moneyAction(
      caller,
      t0,
      'voidTransfer',
      key,
      { transferId: t0.id },
      { target: 'VOIDED', failureCode: 'VOIDED_BY_REQUEST', requestedBy: caller.userId, idempotencyKey: key },
    );
  }

  private moneyAction(
    caller: Caller,
    t0: TransferRow,
    operation: 'captureTransfer' | 'voidTransfer',
    key: string,
    args: Action['args'],
    intent: Record<string, unknown>,
  ): Promise<TransferRow> {
    const step = operation === 'captureTransfer' ? 'capture' : 'void';
    return this.run({
      operation,
      asks: operation === 'captureTransfer' ? 'CAPTURED' : 'VOIDED',
      caller,
      key,
      transfer: t0,
      args,
      ctx: { cause: 'mutation', actor: caller.userId },
      precheck: async () => this.assertMoneyActionAllowed((await this.repo.get(t0.id))!, step),
      doneMeanwhile: (t) => this.doneByKey(t.id, caller, operation, key),
      check: (t) => this.assertMoneyActionAllowed(t, step),
      // under the row lock, ordered with a platform void/cancel event: if that came first, nothing is captured
      record: async (t) => {
        if (!(await this.saga.recordIntent(t, step, intent, { whileStatusUnchanged: true })))
          throw new AppError('INVALID_STATE', 'The transfer changed meanwhile; read it again');
      },
    });
  }

  /** The course every action shares (see Action). Answers the transfer as it stands afterwards. */
  private async run(a: Action): Promise<TransferRow> {
    const id = a.transfer.id;
    await this.idempotency.run({ caller: a.caller.userId, operation: a.operation, key: a.key }, a.args, async () => {
      if (await this.doneByKey(id, a.caller, a.operation, a.key)) return this.carryOn(id, a.ctx);
      await this.recordingRefusal(a, a.transfer, async () => a.precheck?.());
      await this.underLease(a.transfer, async () => {
        const t = (await this.repo.get(id))!;
        if (await a.doneMeanwhile(t)) {
          await this.saga.advance(t.id, a.ctx); // a duplicate of ours did it first
          return;
        }
        await this.recordingRefusal(a, t, () => a.check(t));
        await a.record(t);
        await this.saga.advance(t.id, a.ctx);
      });
      return { transferId: id };
    });
    return (await this.repo.get(id))!;
  }

  /**
   * A request the transfer's status does not allow (INVALID_STATE from a check) is recorded among the transfer's
   * refusals — who asked, what, and why — before the caller gets the error; it changes nothing else.
   */
  private async recordingRefusal(a: Action, t: TransferRow, check: () => Promise<void>): Promise<void> {
    try {
      await check();
    } catch (e) {
      if (isAppError(e) && e.code === 'INVALID_STATE')
        await this.prisma.transferRefusal.create({
          data: {
            transferId: t.id,
            fromStatus: t.status,
            toStatus: a.asks,
            cause: 'mutation',
            actor: a.caller.userId,
            reason: e.message,
            detail: { action: a.operation },
            at: this.clock.now(),
          },
        });
      throw e;
    }
  }

  private async underLease(t: TransferRow, fn: () => Promise<void>): Promise<void> {
    const r = await this.saga.leases.withLease(t.id, this.owner, this.opts.leaseWaitMs, fn);
    if (!r) throw new AppError('INVALID_STATE', 'The transfer is being processed; retry shortly with the same idempotencyKey');
  }

  /**
   * Whether this very request (caller + operation + idempotencyKey) already took effect on the transfer: its
   * first attempt committed the action, then crashed or timed out before its idempotency record was completed.
   * A retry (same key, same arguments — the record's hash guarantees it) then answers as the first attempt
   * would have: the transfer as it stands, instead of INVALID_STATE. Each action records the key that caused
   * it: resumeTransfer in its audit event's detail, captureTransfer / voidTransfer in their saga step's request.
   */
  private async doneByKey(transferId: string, caller: Caller, action: ActionName, key: string): Promise<boolean> {
    if (action === 'refundTransfer') {
      const steps = await this.prisma.sagaStep.findMany({ where: { transferId, step: { startsWith: 'refund:' } } });
      return steps.some((s) => {
        const r = refundStepRequest(s.request);
        return r.requestedBy === caller.userId && r.idempotencyKey === key;
      });
    }
    if (action === 'resumeTransfer' || action === 'cancelTransfer') {
      const events = await this.prisma.transferEvent.findMany({
        where: { transferId, actor: caller.userId, cause: 'mutation' },
        select: { detail: true },
      });
      return events.some((e) => {
        const d = eventDetail(e.detail);
        return d.action === action && d.idempotencyKey === key;
      });
    }
    const step = await this.prisma.sagaStep.findUnique({
      where: { transferId_step: { transferId, step: action === 'captureTransfer' ? 'capture' : 'void' } },
    });
    const req = step ? moneyStepRequest(step.request) : null;
    return req?.requestedBy === caller.userId && req.idempotencyKey === key;
  }

  /**
   * The answer to a retry of an action that already took effect (doneByKey): what the first attempt would have
   * answered — it ran the saga on after its action — so run it on as far as it goes now (if the transfer is
   * free within leaseWaitMs; else whoever holds it does), then the transfer as it stands.
   */
  private async carryOn(transferId: string, ctx: SagaContext): Promise<{ transferId: string }> {
    await this.saga.leases.withLease(transferId, this.owner, this.opts.leaseWaitMs, () => this.saga.advance(transferId, ctx));
    return { transferId };
  }

  private async assertMoneyActionAllowed(t: TransferRow, action: 'capture' | 'void'): Promise<void> {
    if (t.status !== 'AUTHORIZED')
      throw new AppError(
        'INVALID_STATE',
        `Only an AUTHORIZED transfer can be ${action === 'capture' ? 'captured' : 'voided'} (it is ${t.status})`,
      );
    if (action === 'capture' && t.fundingType === 'account_token')
      throw new AppError(
        'INVALID_STATE',
        'A transfer funded by a linked bank account cannot pay its recipient: it is voided, not captured',
      );
    const existing = await this.prisma.sagaStep.findMany({ where: { transferId: t.id, step: { in: ['capture', 'void'] } } });
    const live = existing.filter((s) => s.state !== 'FAILED' || s.step === 'void');
    if (live.length)
      throw new AppError(
        'INVALID_STATE',
        `A ${live[0]!.step} of this transfer is already ${live[0]!.state === 'SUCCEEDED' ? 'done' : 'in progress'}; a payment is captured or voided once`,
      );
  }
}

/** What decides whether a transfer may be cancelled. */
type CancelFacts = Pick<TransferRow, 'status' | 'cancelRequestedAt' | 'createdAt' | 'upstreamTransactionStatus' | 'payoutStatus'>;

/** Statuses an owner may cancel from (within the window, before the payout completes). */
const CANCELLABLE: ReadonlySet<string> = new Set(['PENDING', 'ACTION_REQUIRED', 'AUTHORIZED', 'CAPTURED', 'PAYOUT_PENDING']);
