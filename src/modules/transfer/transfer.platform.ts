/**
 * What the remittances platform's reported facts mean for a transfer — one pure mapping, used by the webhook
 * path (PlatformFacts.applyPlatformEvent) when an event arrives AND by the saga when its own step catches up
 * (e.g. `Completed` was reported while our capture was still settling: the facts are recorded at once, the
 * status follows as soon as the transfer is CAPTURED). Events can arrive in any order, so facts only move
 * forward (ranks below) and the status is always derived from the latest facts, never from the last event.
 */
import type { TransferStatus } from './transfer.states';

export const PLATFORM_ORDER = [
  'Created',
  'PaymentProcessing',
  'WaitingChallenge3ds',
  'PaymentAuthorized',
  'ProcessingPayout',
  'PayoutAccepted',
  'PayoutHold',
  'PayoutReleased',
  'ManualReview',
  'BlockedPendingReview',
  'PendingReversalApproval',
  'ReviewApproved',
  'ReviewRejected',
  'PaymentCaptured',
  'WaitingSettlement',
  'PaymentSettled',
  'WaitingPayout',
  'Paid',
];
export const PLATFORM_TERMINAL = new Set(['Completed', 'Cancelled', 'Voided', 'PaymentDeclined', 'Refunded', 'Error', 'PayoutRejected']);
/** Documented order of the transaction statuses; terminal ones rank highest; -2 = unknown value. */
export const platformRank = (s: string | null): number => {
  if (s === null) return -1;
  if (PLATFORM_TERMINAL.has(s)) return 1000;
  // a cancellation asked for, not done: the `Cancelled` or `Voided` that follows must still apply
  if (s === 'CancelRequested') return 999;
  const i = PLATFORM_ORDER.indexOf(s);
  return i === -1 ? -2 : i;
};
const PAYOUT_ORDER = ['AUTHORIZED', 'PENDING', 'CAPTURED'];
const PAYOUT_TERMINAL = new Set(['DECLINED', 'VOIDED', 'REFUNDED', 'ERROR']);

/** Order of the raw gateway payout statuses; terminal ones rank highest; -2 = unknown value (no action). */
export const payoutRank = (s: string | null): number => {
  if (s === null) return -1;
  if (PAYOUT_TERMINAL.has(s)) return 1000;
  const i = PAYOUT_ORDER.indexOf(s);
  return i === -1 ? -2 : i;
};

export interface PlatformTarget {
  to: TransferStatus;
  failureCode?: string;
  failureMessage?: string;
}

/**
 * The status the recorded platform facts call for, from `status`, or null when they call for nothing (yet).
 * Only the moves the platform decides: payout progress and failure after our capture, and the platform's own
 * void/auto-cancel of an authorization. (Compliance decisions are acted on by the saga: capture or void.)
 */
export function platformTarget(
  status: TransferStatus,
  facts: { upstreamTransactionStatus: string | null; payoutStatus: string | null },
): PlatformTarget | null {
  const tx = facts.upstreamTransactionStatus;
  if (status === 'CAPTURED' || status === 'PAYOUT_PENDING') {
    if (tx === 'Paid' || tx === 'Completed') return { to: 'COMPLETED' };
    // the money was taken and will not reach the recipient: it goes back to the sender (the saga refunds it)
    const stopped = payoutStopped(facts);
    if (stopped) return { to: 'REFUND_PENDING', failureCode: stopped, failureMessage: PAYOUT_STOPPED_MESSAGE };
    if (tx === 'WaitingPayout' && status === 'CAPTURED') return { to: 'PAYOUT_PENDING' };
    return null;
  }
  if (status === 'AUTHORIZED') {
    if (tx === 'Voided') return { to: 'VOIDED' };
    if (tx === 'Cancelled')
      return { to: 'EXPIRED', failureCode: 'AUTHORIZATION_CANCELLED', failureMessage: 'The authorization was cancelled before capture' };
  }
  return null;
}

const PAYOUT_STOPPED_MESSAGE = 'The recipient could not be paid; the money taken is being returned to the sender';
const STOPPED_STATUSES = new Set(['PayoutRejected', 'Error', 'Refunded', 'Cancelled', 'Voided']);
const STOPPED_PAYOUTS = new Set(['DECLINED', 'ERROR', 'REFUNDED', 'VOIDED']);

/**
 * Whether the platform's facts say the recipient will not be paid (its failure code, e.g. PAYOUT_PAYOUTREJECTED, or
 * null): a rejected or failed payout, or a transaction cancelled or voided. Facts only move forward, so once one of
 * these is recorded a `Paid` can no longer be — the money may safely go back.
 */
export function payoutStopped(facts: { upstreamTransactionStatus: string | null; payoutStatus: string | null }): string | null {
  const tx = facts.upstreamTransactionStatus;
  if (tx !== null && STOPPED_STATUSES.has(tx)) return `PAYOUT_${tx.toUpperCase()}`;
  const payout = facts.payoutStatus;
  if (payout !== null && STOPPED_PAYOUTS.has(payout)) return `PAYOUT_${payout}`;
  return null;
}

/** Whether the platform says the recipient was paid. */
export const paidOut = (facts: { upstreamTransactionStatus: string | null }): boolean =>
  facts.upstreamTransactionStatus === 'Paid' || facts.upstreamTransactionStatus === 'Completed';

/** Every transaction status the documented order knows (ranked), and every payout status. */
const KNOWN_STATUSES = [...PLATFORM_ORDER, 'CancelRequested', ...PLATFORM_TERMINAL];
const KNOWN_PAYOUTS = [...PAYOUT_ORDER, ...PAYOUT_TERMINAL];
const LIVE_STATUSES: TransferStatus[] = ['PENDING', 'ACTION_REQUIRED', 'AUTHORIZED', 'CAPTURED', 'PAYOUT_PENDING'];

/** The known values of a fact that rank below `value` (those a report of `value` moves forward from). */
export function valuesBelow(kind: 'status' | 'payout', value: string): string[] {
  const rank = kind === 'status' ? platformRank : payoutRank;
  return (kind === 'status' ? KNOWN_STATUSES : KNOWN_PAYOUTS).filter((v) => rank(v) < rank(value));
}

const quiet = new Map<string, string[] | null>();

/**
 * Where a reported transaction or payout status is a mere fact — one that calls for no move (platformTarget is
 * null): the (transfer status, other fact) pairs, as `<status>|<other fact or empty>` texts. Null for a value that
 * calls for a move even with the other fact unknown (e.g. `Paid` once captured): it is not worth trying as a mere fact.
 */
export function quietPairs(kind: 'status' | 'payout', value: string): string[] | null {
  const key = `${kind}:${value}`;
  let q = quiet.get(key);
  if (q === undefined) {
    const facts = (o: string | null) =>
      kind === 'status' ? { upstreamTransactionStatus: value, payoutStatus: o } : { upstreamTransactionStatus: o, payoutStatus: value };
    const pairs = LIVE_STATUSES.flatMap((s) =>
      [null, ...(kind === 'status' ? KNOWN_PAYOUTS : KNOWN_STATUSES)]
        .filter((o) => platformTarget(s, facts(o)) === null)
        .map((o) => `${s}|${o ?? ''}`),
    );
    q = LIVE_STATUSES.every((s) => pairs.includes(`${s}|`)) ? pairs : null;
    quiet.set(key, q);
  }
  return q;
}
