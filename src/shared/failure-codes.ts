/**
 * Why a transfer ended without paying out, or why its money is going back: every code the saga and the platform
 * facts record as a transfer's failure code (`Transfer.failure.code`, the GraphQL enum FailureCode), with what it
 * means for developers and the back-office. What a customer reads is the code's message in their language
 * (src/shared/messages); the text recorded with the code stays a detail for staff (`Failure.detail`).
 *
 * Kept beside ERROR_CODES (errors.ts), below the modules: the customer messages (messages/) are written for them.
 * A code set anywhere in src/modules/transfer must be listed here (test/unit/messages.test.ts reads the sources).
 */
export const FAILURE_CODES = {
  CANCELLED_BY_CUSTOMER:
    'The owner (or back-office for them) cancelled with cancelTransfer: before the capture the authorization was released (VOIDED), after it the money goes back (REFUND_PENDING → REFUNDED).',
  VOIDED_BY_REQUEST: 'Back-office voided the authorization with voidTransfer before the capture (VOIDED): nothing was taken.',
  QUOTE_EXPIRED: 'The quote expired before the payment was authorized (EXPIRED): nothing was taken.',
  CAPTURE_WINDOW_EXPIRED: 'The authorization was not captured within the capture window and was released (EXPIRED).',
  COMPLIANCE_REJECTED:
    "The platform's compliance review rejected the transfer: before any money moved (REJECTED), or after the authorization, which was released (VOIDED).",
  CAPTURE_FAILED: 'The capture failed; the authorization was released (VOIDED).',
  CARD_CHECK_FAILED: "The gateway's card check failed, e.g. the CVC or the address did not match (DECLINED).",
  ACCOUNT_CHECK_FAILED: "The gateway's bank account check did not find a valid account (DECLINED).",
  CHECK_REJECTED: 'The gateway refused the funding check request itself (FAILED): nothing was taken.',
  AUTHORIZATION_REJECTED: 'The gateway refused the payment request (FAILED): nothing was taken.',
  AUTHORIZATION_RELEASED: 'The authorization was found released (voided or cancelled) when its request was replayed: nothing was taken.',
  AUTHORIZATION_CANCELLED: 'The gateway or the platform cancelled the uncaptured authorization (EXPIRED): nothing was taken.',
  PAYMENT_DECLINED: 'The funding source declined the authorization, e.g. insufficient funds (DECLINED).',
  PAYOUT_PAYOUTREJECTED: 'The platform rejected the payout to the recipient (transaction PayoutRejected): the money goes back.',
  PAYOUT_DECLINED: 'The payout to the recipient was declined (payout DECLINED): the money goes back.',
  PAYOUT_ERROR: 'The payout to the recipient failed (transaction or payout Error): the money goes back.',
  PAYOUT_CANCELLED: 'The platform cancelled the transaction before paying out (transaction Cancelled): the money goes back.',
  PAYOUT_VOIDED: 'The platform voided the transaction or the payout (Voided / VOIDED): the money goes back.',
  PAYOUT_REFUNDED: 'The platform reports the payout refunded (Refunded / REFUNDED): the money goes back.',
  FUNDING_NOT_OFFERED:
    'Funded by a linked bank account (ACCOUNT_TOKEN), which can pay no recipient: the authorization is released or the money goes back.',
  OTHER:
    'A code this version of the API does not know (recorded by another version of the service): show the message; back-office sees the recorded code and text in detail.',
} as const satisfies Record<string, string>;

export type FailureCode = keyof typeof FAILURE_CODES;

/** The API's code for a recorded failure code: itself when known, else OTHER (an enum never answers a stray value). */
export const failureCodeOf = (recorded: string): FailureCode =>
  Object.hasOwn(FAILURE_CODES, recorded) ? (recorded as FailureCode) : 'OTHER';
