import type { SagaStep } from '../../generated/prisma/client';
import { formatAmount } from '../../shared/money';
import { withReturnUrl } from '../../shared/return-url';
import {
  authorizationOutcome,
  checkOutcome,
  moneyStepRequest,
  nextAction,
  NO_NEXT_ACTION,
  paymentStatus,
  transferDetails,
  type AuthorizationOutcome,
  type MoneyStepRequest,
  type RefundKind,
  type RefundStepRequest,
  type TransferDetails,
} from './transfer.columns';
import { paidOut, payoutStopped, platformTarget, type PlatformTarget } from './transfer.platform';
import type { TransferPatch, TransferRow } from './transfer.repository';
import { totalOf } from './transfer.requests';
import { isRefundStep, type RefundStep } from './transfer.steps';
import { isTerminal, type Cause, type TransferStatus } from './transfer.states';

/**
 * The saga's decisions, as pure functions of what is persisted (the transfer row and its steps) and the time: what
 * to do next for each status, and how an upstream answer moves the transfer. TransferSaga (transfer.saga.ts) carries
 * them out; test/unit/transfer-decisions.test.ts checks each of them.
 */

/** A change of the transfer: to another status (`to`), or of its fields only. */
export interface Move {
  to?: TransferStatus;
  /** The audit event's detail. */
  detail: Record<string, unknown>;
  patch?: TransferPatch;
  /** The cause recorded (and checked against the transition table); absent: the run's cause. */
  cause?: Cause;
}

/** A void's request (saga_steps.request): where the transfer ends once the authorization is released, and why. */
interface VoidRequest {
  target: TransferStatus;
  failureCode: string;
  requestedBy?: string;
  cause?: Cause;
}

/** What the saga does next for a transfer. */
export type SagaDecision =
  /** Change the transfer; with `thenVoid`, then write a void intent (an authorization found already released). */
  | { kind: 'move'; move: Move; thenVoid?: VoidRequest }
  /** Run a step whose intent is written (unsettled: re-run with the same key). */
  | { kind: 'run'; step: SagaStep }
  /** Run the funding check (`existing`: its intent, or a settled check whose move was lost). */
  | { kind: 'check'; existing?: SagaStep }
  /**
   * Write an intent under the transfer's row lock (only while the status is unchanged), then run it — with `cause`,
   * its moves are recorded with that cause.
   */
  | { kind: 'start'; step: 'authorize' | 'capture' | 'void' | 'cancel'; request: Record<string, unknown>; cause?: Cause }
  /** Write the next refund's intent, then run it. */
  | { kind: 'refund'; step: RefundStep; request: RefundStepRequest }
  /** Nothing to do until `until` (null: until an event); `attention`: a person must look (logged). */
  | { kind: 'wait'; until: Date | null; attention?: { level: 'warn' | 'error'; message: string } }
  /** Waiting on the platform: ask it once it has been quiet, else sleep until `until` (ms) at the latest. */
  | { kind: 'wait-on-platform'; until: number | null }
  /** A terminal status: nothing will happen again (an unfinished check is abandoned, the schedule cleared). */
  | { kind: 'rest' }
  /** A settled capture or void whose payment state moves nothing: stop this run, the schedule as it is. */
  | { kind: 'stop' };

/** What a decision reads besides the transfer and its steps. */
export interface DecisionInput {
  t: TransferRow;
  steps: ReadonlyMap<string, SagaStep>;
  now: number;
  cause: Cause;
  captureWindowMs: number;
}

/** Payment states a settled capture/void step can have found (saga_steps.response.status). */
const SETTLED_PAYMENT_STATES = new Set(['CAPTURED', 'VOIDED', 'CANCELLED']);

export const unsettled = (s: SagaStep | undefined): s is SagaStep => s !== undefined && (s.state === 'PENDING' || s.state === 'UNKNOWN');

/** The next refund step's name: refund:1, refund:2, … */
export function nextRefundStep(steps: Iterable<{ step: string }>): RefundStep {
  let n = 0;
  for (const s of steps) if (isRefundStep(s.step)) n = Math.max(n, Number(s.step.slice('refund:'.length)));
  return `refund:${n + 1}`;
}

/**
 * The cause a run's moves are recorded with. Before authorization every move is the saga's own (check outcome,
 * authorization): the worker's decision, whoever runs the saga — a platform event's kick included (the table allows
 * none of them to `webhook`; a refused move would leave a settled check unapplied).
 */
export function causeFor(status: TransferStatus, cause: Cause): Cause {
  return (status === 'PENDING' || status === 'ACTION_REQUIRED') && cause !== 'worker' ? 'worker' : cause;
}

const move = (m: Move, thenVoid?: VoidRequest): SagaDecision =>
  thenVoid ? { kind: 'move', move: m, thenVoid } : { kind: 'move', move: m };
const ended = (code: string) => ({ failureCode: code, failureMessage: failureMessage(code), nextAction: NO_NEXT_ACTION });

/** What comes next for the transfer: unsettled steps first, then what its status calls for. */
export function decide(input: DecisionInput): SagaDecision {
  const { t, steps } = input;
  const status = t.status as TransferStatus;
  // A refund not settled is run first, whatever the status (back-office refunds a COMPLETED transfer too).
  const refund = [...steps.values()].find((s) => isRefundStep(s.step) && unsettled(s));
  if (refund) return { kind: 'run', step: refund };
  if (isTerminal(status)) return { kind: 'rest' };
  // A money step whose outcome is not settled is reconciled before anything else.
  for (const name of ['void', 'capture', 'authorize'] as const) {
    const s = steps.get(name);
    if (unsettled(s)) return { kind: 'run', step: s };
  }
  return BY_STATUS[status](input);
}

/** PENDING and ACTION_REQUIRED: check the funding, then authorize (a cancel or the quote's expiry ends it first). */
function beforeAuthorization({ t, steps, now }: DecisionInput): SagaDecision {
  const authorize = steps.get('authorize');
  if (authorize?.state === 'SUCCEEDED') return { kind: 'move', ...afterAuthorization(authorizationOutcome(authorize.response), now) };
  if (t.cancelRequestedAt && !authorize)
    // cancelled before any authorization was asked for: no money moved, nothing to release
    return move({
      to: 'VOIDED',
      detail: { action: 'cancel', reason: 'cancelled before the authorization' },
      patch: ended('CANCELLED_BY_CUSTOMER'),
    });
  const d = transferDetails(t.details);
  if (now > Date.parse(d.quoteExpiresAt))
    return move({
      to: 'EXPIRED',
      detail: { action: 'watchdog', reason: 'quote expired before authorization' },
      patch: ended('QUOTE_EXPIRED'),
      cause: 'timer',
    });
  if (t.status === 'ACTION_REQUIRED') return { kind: 'wait', until: new Date(Date.parse(d.quoteExpiresAt) + 1) };
  if (d.funding.type === 'ACCOUNT_TOKEN')
    // Stored before ACCOUNT_TOKEN funding stopped being offered: a token PULL pays no recipient (transfers.md,
    // Decisions), so it is not authorized now — nothing was taken.
    return move({
      to: 'FAILED',
      detail: { action: 'funding', reason: 'a linked bank account cannot pay a recipient' },
      patch: ended('FUNDING_NOT_OFFERED'),
    });
  const check = steps.get('check');
  // A settled check that did not approve, yet the transfer is still PENDING: its move (→ ACTION_REQUIRED / DECLINED)
  // was lost (a crash between the two writes, or refused). Run again (same key), it applies it.
  if (check?.state !== 'SUCCEEDED' || checkOutcome(check.response) !== 'APPROVED') return { kind: 'check', existing: check };
  return { kind: 'start', step: 'authorize', request: { externalPaymentId: t.externalPaymentId, fxId: d.fxId } };
}

/** AUTHORIZED: capture once compliance approves; void when it rejects, on cancel, on a failed capture, or at the window's end. */
function authorized({ t, steps, now, cause, captureWindowMs }: DecisionInput): SagaDecision {
  const capture = steps.get('capture');
  const voidStep = steps.get('void');
  // A settled capture/void whose effect is not on the transfer yet (a crash between the two writes): apply it.
  for (const s of [capture, voidStep]) {
    const found = s ? paymentStatus(s.response) : null;
    if (s && found !== null && SETTLED_PAYMENT_STATES.has(found)) {
      const m = afterPayment(t, s.step as MoneyStep, moneyStepRequest(s.request), found, cause);
      if (m) return move(m);
    }
  }
  if (capture?.state === 'SUCCEEDED' || voidStep?.state === 'SUCCEEDED') return { kind: 'stop' };
  // The platform reported its own void / auto-cancel while nothing of ours was in flight.
  const released = platformTarget('AUTHORIZED', t);
  if (released) return followPlatform(released, { upstreamStatus: t.upstreamTransactionStatus });
  const windowEnds = (t.authorizedAt?.getTime() ?? now) + captureWindowMs;
  const voidFor = (request: VoidRequest): SagaDecision => ({
    kind: 'start',
    step: 'void',
    request: { ...request },
    ...(request.cause ? { cause: request.cause } : {}),
  });
  if (!capture && !voidStep) {
    if (t.cancelRequestedAt) return voidFor({ target: 'VOIDED', failureCode: 'CANCELLED_BY_CUSTOMER', requestedBy: 'cancel' });
    // a token PULL authorized before ACCOUNT_TOKEN funding stopped being offered: nothing can pay its recipient
    if (t.fundingType === 'account_token')
      return voidFor({ target: 'VOIDED', failureCode: 'FUNDING_NOT_OFFERED', requestedBy: 'no payout' });
    if (now >= windowEnds) return voidFor({ target: 'EXPIRED', failureCode: 'CAPTURE_WINDOW_EXPIRED', cause: 'timer' });
    if (t.complianceStatus === 'Approved')
      return { kind: 'start', step: 'capture', request: { amount: null, requestedBy: 'compliance Approved' } };
    if (t.complianceStatus === 'Rejected')
      return voidFor({ target: 'VOIDED', failureCode: 'COMPLIANCE_REJECTED', requestedBy: 'compliance Rejected' });
  }
  // Any failure after authorization releases it.
  if (capture?.state === 'FAILED' && !voidStep)
    return voidFor({ target: 'VOIDED', failureCode: 'CAPTURE_FAILED', requestedBy: 'compensation' });
  return { kind: 'wait-on-platform', until: windowEnds };
}

/** CAPTURED and PAYOUT_PENDING: follow the payout; a cancel (or a payout that cannot be) sends the money back. */
function captured({ t, cause }: DecisionInput): SagaDecision {
  // Platform facts recorded before our own step settled (events arrive in any order): apply them now.
  const target = platformTarget(t.status as TransferStatus, t);
  if (target) return followPlatform(target, { upstreamStatus: t.upstreamTransactionStatus, payoutStatus: t.payoutStatus });
  if (t.cancelRequestedAt)
    // the owner cancelled after the capture: the platform is asked to stop the payout, then the money goes back
    return move({
      to: 'REFUND_PENDING',
      detail: { action: 'cancel', reason: 'cancelled after the capture' },
      patch: { failureCode: 'CANCELLED_BY_CUSTOMER', failureMessage: failureMessage('CANCELLED_BY_CUSTOMER') },
      cause: cause === 'mutation' ? 'mutation' : 'worker',
    });
  if (t.fundingType === 'account_token')
    // a token PULL captured before ACCOUNT_TOKEN funding stopped being offered: no recipient will be paid
    return move({
      to: 'REFUND_PENDING',
      detail: { action: 'no payout', reason: 'a linked bank account cannot pay a recipient' },
      patch: { failureCode: 'FUNDING_NOT_OFFERED', failureMessage: failureMessage('FUNDING_NOT_OFFERED') },
      cause: 'worker',
    });
  return { kind: 'wait-on-platform', until: null };
}

/**
 * REFUND_PENDING: the money taken goes back once the platform says the recipient will not be paid.
 * - The owner cancelled and the payout is not known to have stopped: ask the platform to cancel (step `cancel`),
 *   then wait for its answer (`Cancelled`, or `Paid` if it was too late).
 * - The platform paid out anyway (before the cancellation reached it) and no refund was made: COMPLETED — the money
 *   is with the recipient; the cancellation came too late. Money never moves twice.
 * - The payout stopped: refund what is left of the capture (refund:<n>, one at a time); all of it refunded: REFUNDED.
 *   A refund the gateway refused stays FAILED and the transfer waits for a person (back-office `refundTransfer`).
 */
function refundPending({ t, steps }: DecisionInput): SagaDecision {
  const refunds = [...steps.values()].filter((s) => isRefundStep(s.step));
  const made = refunds.filter((s) => s.state !== 'FAILED');
  const cancel = steps.get('cancel');
  // the platform has no transaction to pay out (a token PULL opens none): nothing will reach a recipient
  const noPayout =
    (cancel?.state === 'SUCCEEDED' && paymentStatus(cancel.response) === 'NoTransaction') || t.fundingType === 'account_token';
  const stopped = payoutStopped(t) ?? (noPayout ? 'PAYOUT_NONE' : null);
  if (!stopped && paidOut(t)) {
    if (made.length)
      return {
        kind: 'wait',
        until: null,
        attention: { level: 'error', message: 'the platform reports a payout of a transfer already refunded: needs a person' },
      };
    return move({
      to: 'COMPLETED',
      detail: { action: 'cancel too late', reason: 'the platform paid the recipient out before the cancellation reached it' },
      patch: { failureCode: null, failureMessage: null },
      cause: 'webhook',
    });
  }
  if (!stopped) {
    if (t.cancelRequestedAt && (!cancel || unsettled(cancel)))
      return cancel ? { kind: 'run', step: cancel } : { kind: 'start', step: 'cancel', request: { requestedBy: 'cancel' } };
    return { kind: 'wait-on-platform', until: null }; // the platform's answer (Cancelled, PayoutRejected, Paid) comes by webhook
  }
  const left = (t.capturedAmount ?? totalOf(t)).minus(t.refundedAmount);
  if (left.lte(0))
    return move({
      to: 'REFUNDED',
      detail: { action: 'refunded', amount: formatAmount(t.refundedAmount, t.sendCurrency) },
      cause: 'worker',
    });
  if (refunds.some((s) => s.state === 'FAILED'))
    return {
      kind: 'wait',
      until: null,
      attention: { level: 'warn', message: 'a refund was refused by the gateway: the transfer waits for a person' },
    };
  const kind: RefundKind = t.cancelRequestedAt ? 'CANCELLED' : 'PAYOUT_FAILED';
  return {
    kind: 'refund',
    step: nextRefundStep(steps.values()),
    request: {
      amount: formatAmount(left, t.sendCurrency),
      kind,
      reason: kind === 'CANCELLED' ? 'cancelled at the sender’s request' : `the payout failed (${stopped})`,
      requestedBy: 'worker',
      idempotencyKey: null,
    },
  };
}

/** One decision per status; a terminal one rests (decide gets there first, after an unsettled refund). */
const rest = (): SagaDecision => ({ kind: 'rest' });
const BY_STATUS: Record<TransferStatus, (input: DecisionInput) => SagaDecision> = {
  PENDING: beforeAuthorization,
  ACTION_REQUIRED: beforeAuthorization,
  AUTHORIZED: authorized,
  CAPTURED: captured,
  PAYOUT_PENDING: captured,
  REFUND_PENDING: refundPending,
  COMPLETED: rest,
  REJECTED: rest,
  DECLINED: rest,
  VOIDED: rest,
  EXPIRED: rest,
  FAILED: rest,
  REFUNDED: rest,
};

/** Moves the transfer where recorded platform facts call for (cause webhook: the platform decided it). */
function followPlatform(target: PlatformTarget, facts: Record<string, unknown>): SagaDecision {
  return move({
    to: target.to,
    detail: { action: 'platform catch-up', ...facts },
    patch: target.failureCode ? { failureCode: target.failureCode, failureMessage: target.failureMessage } : {},
    cause: 'webhook',
  });
}

// ── How an upstream answer moves the transfer ───────────────────────────────────────────────────────

/** What the funding check found. */
type CheckAnswer =
  | {
      via: 'card';
      status: 'APPROVED' | 'CHALLENGE' | 'FAILED' | string;
      reasons: string[];
      redirectUrl?: string | null;
      reusedCheckAt?: string;
    }
  | { via: 'account'; approved: boolean; message?: string | null };

/**
 * The move a funding check calls for, or null when it calls for none (approved: the result is written with the run's
 * next write). A challenge asks the customer to complete 3-D Secure; a failure declines the transfer.
 */
export function afterCheck(
  t: Pick<TransferRow, 'status' | 'nextAction'>,
  d: Pick<TransferDetails, 'threeDSReturnUrl'>,
  a: CheckAnswer,
): Move | null {
  if (a.via === 'account')
    return a.approved
      ? null
      : {
          to: 'DECLINED',
          detail: { action: 'account check', outcome: 'DECLINED' },
          patch: {
            failureCode: 'ACCOUNT_CHECK_FAILED',
            failureMessage: `The bank account check failed${a.message ? `: ${a.message}` : ''}`,
          },
        };
  if (a.status === 'CHALLENGE')
    return {
      to: 'ACTION_REQUIRED',
      detail: { action: 'card check', outcome: 'CHALLENGE' },
      // the page as the gateway gave it, with where to send the browser back (the sandbox's returnUrl)
      patch: { nextAction: { type: 'THREE_DS_CHALLENGE', redirectUrl: withReturnUrl(a.redirectUrl!, d.threeDSReturnUrl) } },
    };
  if (a.status === 'FAILED')
    return {
      to: 'DECLINED',
      detail: { action: 'card check', outcome: 'FAILED', reasons: a.reasons },
      patch: {
        failureCode: 'CARD_CHECK_FAILED',
        failureMessage: `The card check failed: ${a.reasons.join(', ')}`,
        nextAction: NO_NEXT_ACTION,
      },
    };
  // approved after a challenge: the challenge is no longer the next action
  if (t.status === 'PENDING' && nextAction(t.nextAction) !== null)
    return {
      detail: { action: 'card check', outcome: 'APPROVED', ...(a.reusedCheckAt ? { reusedCheckAt: a.reusedCheckAt } : {}) },
      patch: { nextAction: NO_NEXT_ACTION },
    };
  return null;
}

/** A check request the gateway refused for good. */
export const checkRefused = (error: string): Move => ({
  to: 'FAILED',
  detail: { action: 'check', error },
  patch: { failureCode: 'CHECK_REJECTED', failureMessage: 'The funding check request was refused upstream' },
});

/** A payment request the gateway refused for good (an expired quote ends the transfer as EXPIRED). */
export const authorizationRefused = (error: string, upstreamCode: string | null | undefined): Move => {
  const expired = upstreamCode === 'QUOTE_EXPIRED';
  return {
    to: expired ? 'EXPIRED' : 'FAILED',
    detail: { action: 'authorize', error },
    patch: expired ? ended('QUOTE_EXPIRED') : ended('AUTHORIZATION_REJECTED'),
  };
};

/**
 * The move a settled authorization calls for — right after it settles, or when the saga finds it settled while the
 * transfer is still PENDING (a crash between the two writes). A replayed payment released meanwhile (e.g. after a
 * long outage) is recorded as AUTHORIZED, then voided.
 */
export function afterAuthorization(p: AuthorizationOutcome, now: number): { move: Move; thenVoid?: VoidRequest } {
  const detail = { action: 'authorize', paymentStatus: p.status };
  if (p.approved && (p.status === 'AUTHORIZED' || p.status === 'CAPTURED'))
    return {
      move: { to: 'AUTHORIZED', detail, patch: { authorizedAt: new Date(now), nextAction: NO_NEXT_ACTION, nextRunAt: new Date(now) } },
    };
  if (p.status === 'VOIDED' || p.status === 'CANCELLED')
    return {
      move: { to: 'AUTHORIZED', detail, patch: { authorizedAt: new Date(now) } },
      thenVoid: { target: p.status === 'VOIDED' ? 'VOIDED' : 'EXPIRED', failureCode: 'AUTHORIZATION_RELEASED' },
    };
  return {
    move: {
      to: 'DECLINED',
      detail,
      patch: {
        failureCode: 'PAYMENT_DECLINED',
        failureMessage: p.message ? `The payment was declined: ${p.message}` : 'The payment was declined',
        nextAction: NO_NEXT_ACTION,
      },
    },
  };
}

export type MoneyStep = 'capture' | 'void';

/**
 * The move a capture/void calls for once it found the payment `paymentStatus` (null for a state that moves nothing).
 * Right after the call settles, or when the saga finds it settled while the transfer is still AUTHORIZED.
 */
export function afterPayment(
  t: Pick<TransferRow, 'sendAmount' | 'feeAmount' | 'sendCurrency'>,
  step: MoneyStep,
  req: MoneyStepRequest,
  paymentStatus: string,
  cause: Cause,
): Move | null {
  const detail = { action: step, paymentStatus, requestedBy: req.requestedBy };
  if (paymentStatus === 'CAPTURED') {
    const amount = req.amount ?? formatAmount(totalOf(t), t.sendCurrency);
    // next_run_at is left as it is: the next decision says when to look again, from the state after the move
    return { to: 'CAPTURED', detail: { ...detail, amount }, patch: { capturedAmount: amount } };
  }
  if (paymentStatus !== 'VOIDED' && paymentStatus !== 'CANCELLED') return null;
  const to: TransferStatus = paymentStatus === 'CANCELLED' ? 'EXPIRED' : step === 'void' ? (req.target ?? 'VOIDED') : 'VOIDED';
  const code = paymentStatus === 'CANCELLED' ? 'AUTHORIZATION_CANCELLED' : req.failureCode;
  return {
    to,
    detail,
    patch: code ? { failureCode: code, failureMessage: failureMessage(code) } : {},
    ...(to === 'EXPIRED' && cause === 'mutation' ? { cause: 'worker' as const } : {}),
  };
}

/** A capture the gateway refused for good: recorded; the decision after it releases the authorization. */
export const captureRefused = (error: string): Move => ({ detail: { action: 'capture', outcome: 'refused', error } });

/** A refund the gateway made. */
export function afterRefund(t: Pick<TransferRow, 'refundedAmount' | 'sendCurrency'>, step: string, req: RefundStepRequest): Move {
  return {
    detail: { action: 'refund', step, amount: req.amount, kind: req.kind, requestedBy: req.requestedBy, reason: req.reason },
    patch: { refundedAmount: formatAmount(t.refundedAmount.plus(req.amount), t.sendCurrency) },
  };
}

/** A refund the gateway refused for good: recorded; a person looks at it. */
export const refundRefused = (step: string, error: string): Move => ({ detail: { action: 'refund', step, outcome: 'refused', error } });

/** The platform was asked to stop the payout. */
export const cancelRequested: Move = { detail: { action: 'platform cancel', outcome: 'requested' } };

/** The message recorded with a failure code the saga sets (back-office reads it; apps get the localized one). */
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
    case 'QUOTE_EXPIRED':
      return 'The quote expired before the payment was authorized; get a new quote';
    case 'AUTHORIZATION_REJECTED':
      return 'The payment request was refused by the gateway';
    default:
      return 'The authorization was released';
  }
}
