/**
 * THE transition table of a transfer. Nothing else decides whether a status may change:
 * TransferRepository.transition() checks every change against it, in the same database transaction that
 * applies it. Anything not listed is refused (and recorded in transfer_refusals), never applied.
 *
 * Causes: `mutation` (an API call: create, resume, capture, void, cancel), `worker` (the saga run by the worker:
 * checks, authorization, compensations), `webhook` (a platform event), `timer` (watchdogs: quote expiry,
 * capture window).
 */
export const TRANSFER_STATUSES = [
  'PENDING',
  'ACTION_REQUIRED',
  'AUTHORIZED',
  'CAPTURED',
  'PAYOUT_PENDING',
  'COMPLETED',
  'REJECTED',
  'DECLINED',
  'VOIDED',
  'EXPIRED',
  'FAILED',
  'REFUND_PENDING',
  'REFUNDED',
] as const;
export type TransferStatus = (typeof TRANSFER_STATUSES)[number];

export const CAUSES = ['mutation', 'worker', 'webhook', 'timer'] as const;
export type Cause = (typeof CAUSES)[number];

export const TERMINAL: ReadonlySet<TransferStatus> = new Set([
  'COMPLETED',
  'REJECTED',
  'DECLINED',
  'VOIDED',
  'EXPIRED',
  'FAILED',
  'REFUNDED',
]);
export const isTerminal = (s: TransferStatus): boolean => TERMINAL.has(s);

type Table = Partial<Record<TransferStatus, Partial<Record<TransferStatus, readonly Cause[]>>>>;

/** from → to → allowed causes. */
export const TRANSITIONS: Table = {
  PENDING: {
    ACTION_REQUIRED: ['worker'], // the card check needs a 3DS challenge
    AUTHORIZED: ['worker', 'mutation'], // authorization approved (the saga step, run by the worker or a resume)
    DECLINED: ['worker', 'mutation'], // a failed check or a declined authorization
    EXPIRED: ['worker', 'timer'], // the quote expired before the authorization
    REJECTED: ['worker', 'webhook'], // compliance said no before any money moved
    FAILED: ['worker'], // gave up (upstream refused the request)
    VOIDED: ['worker', 'mutation'], // cancelled by its owner before any authorization was asked for
  },
  ACTION_REQUIRED: {
    PENDING: ['mutation'], // resumeTransfer after the challenge
    AUTHORIZED: ['mutation', 'worker'],
    DECLINED: ['mutation', 'worker'],
    EXPIRED: ['timer', 'worker'],
    REJECTED: ['webhook', 'worker'],
    FAILED: ['worker'],
    VOIDED: ['worker', 'mutation'], // cancelled by its owner during the challenge
  },
  AUTHORIZED: {
    CAPTURED: ['mutation', 'worker', 'webhook'], // back-office capture, or compliance Approved
    VOIDED: ['mutation', 'worker', 'webhook'], // back-office void, compensation, or the platform reports the void
    EXPIRED: ['timer', 'webhook', 'worker'], // capture window ran out (void confirmed), or the 7-day auto-cancel
  },
  // Once money was taken it ends with the recipient (COMPLETED) or back with the sender (REFUNDED): never FAILED.
  CAPTURED: {
    PAYOUT_PENDING: ['webhook'],
    COMPLETED: ['webhook'],
    REFUND_PENDING: ['webhook', 'mutation', 'worker'], // the payout failed or was cancelled; or the owner cancels
  },
  PAYOUT_PENDING: {
    COMPLETED: ['webhook'],
    REFUND_PENDING: ['webhook', 'mutation', 'worker'],
  },
  REFUND_PENDING: {
    REFUNDED: ['worker'], // every cent taken went back (the refunds succeeded)
    COMPLETED: ['webhook'], // the platform paid out before the cancellation reached it: no refund is made
  },
};

function allowedCauses(from: TransferStatus, to: TransferStatus): readonly Cause[] {
  return TRANSITIONS[from]?.[to] ?? [];
}

/** Why a transition is refused, or null when the table allows it. A same-status "change" is not a transition. */
export function refusal(from: TransferStatus, to: TransferStatus, cause: Cause): string | null {
  if (from === to) return null;
  if (isTerminal(from)) return `${from} is terminal`;
  const causes = allowedCauses(from, to);
  if (causes.length === 0) return `${from} → ${to} is not a transition`;
  if (!causes.includes(cause)) return `${from} → ${to} is not allowed for cause ${cause}`;
  return null;
}

/** Every (from, to, cause) the table allows (for tests and documentation). */
export function allTransitions(): { from: TransferStatus; to: TransferStatus; causes: readonly Cause[] }[] {
  const out: { from: TransferStatus; to: TransferStatus; causes: readonly Cause[] }[] = [];
  for (const [from, tos] of Object.entries(TRANSITIONS)) {
    for (const [to, causes] of Object.entries(tos ?? {}))
      out.push({ from: from as TransferStatus, to: to as TransferStatus, causes: causes! });
  }
  return out;
}
