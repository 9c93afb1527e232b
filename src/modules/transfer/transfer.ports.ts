import type { Prisma } from '../../generated/prisma/client';

/**
 * What the transfer module offers other modules. First, the seam between the webhook module (verifies, stores,
 * deduplicates and normalises platform events) and the transfer saga (owns what an event means for a transfer —
 * always through the one transition table, cause `webhook`). Events come one at a time per transaction:
 * `TransferEventSink.applyPlatformEvent`, or `applyAtReceipt` with the delivery's inbox row, written in the same
 * statement as the event's effect.
 */

type PlatformEventSource = { kind: 'webhook'; inboxId: string; eventName: string } | { kind: 'reconcile' } | { kind: 'test' };

export type PlatformChange =
  /** TransactionStatusChanged (newStatus values of the remittances document). */
  | { type: 'status'; oldStatus: string | null; newStatus: string }
  /** TransactionComplianceStatusChangedEvent (Pending, Approved, Rejected, Cancelled, Refunded, Failed). */
  | { type: 'compliance'; oldStatus: string | null; newStatus: string }
  /** TransactionPayoutStatusChanged (raw gateway values: AUTHORIZED, PENDING, CAPTURED, DECLINED, VOIDED, REFUNDED, ERROR). */
  | {
      type: 'payout';
      oldStatus: string | null;
      newStatus: string;
      gatewayPaymentId: string | null;
      /** Decimal string (never a float), or null when the event carries none. */
      amount: { total: string; currency: string } | null;
    };

export interface PlatformTransactionEvent {
  source: PlatformEventSource;
  /** The platform's transactionId (uuid). */
  transactionId: string;
  /** = the transfer's externalPaymentId (null in some platform events: then match by transactionId). */
  externalTransactionId: string | null;
  tenantId: string | null;
  /** When the platform says it happened, if it says; else when we received it. */
  occurredAt: Date;
  change: PlatformChange;
  messages: string[];
}

/**
 * Why an event contradicts what we know about the transfer (it then has no effect):
 * - transaction_id: the event's externalTransactionId names a transfer that already recorded another platform
 *   transaction id;
 * - transaction_conflict: the event's transactionId is recorded for another transfer than the one its
 *   externalTransactionId names (or names none).
 */
type PlatformMismatch = 'transaction_id' | 'transaction_conflict';

export type ApplyOutcome =
  | { applied: true; transferId: string; version: number }
  /** Recorded but changed nothing (duplicate value, older than what we know, terminal transfer, unknown status). */
  | { applied: false; transferId: string | null; reason: 'unknown_transfer' | 'stale' | 'no_change' | 'terminal' | 'unknown_value' }
  /** Contradicts what we know (no effect at all; transferId: the transfer the event tried to move, if any). */
  | { applied: false; transferId: string | null; reason: 'mismatch'; mismatch: PlatformMismatch };

export interface TransferEventSink {
  /**
   * Applies one platform event, once it is bound to what we know (the platform transaction id recorded for the
   * transfer; the tenant is the caller's to check). Idempotent: the same event twice has no second effect. Throws only for
   * transient problems (database unavailable): the inbox then retries later.
   */
  applyPlatformEvent(event: PlatformTransactionEvent): Promise<ApplyOutcome>;
  /**
   * Applies an event as its delivery is received, writing the delivery's inbox row in the same statement as what the event
   * changes (`receipt`, for the outcome it records): one statement for a fact that changes nothing an app sees, two
   * (read, write) for the others. The event is applied only while nothing else of its stream waits in the inbox or is
   * being applied (the receipt's condition); when it cannot be applied at once (its stream is busy, the transfer moved
   * meanwhile, its decision needs the row lock, the transfer is not known yet) the row is stored unprocessed, for the
   * inbox processor. Throws only for transient problems (nothing stored: the delivery is refused and retried).
   */
  applyAtReceipt?(event: PlatformTransactionEvent, receipt: (outcome: ReceiptOutcome) => DeliveryReceipt): Promise<ReceiptResult>;
}

/**
 * The inbox row of one delivery, as part of the statement that applies its event (TransferEventSink.applyAtReceipt).
 * SQL fragments built by the inbox; values are bound parameters.
 */
export interface DeliveryReceipt {
  /** SQL boolean: the delivery is new and nothing else of its stream waits in the inbox or is being applied. */
  condition: Prisma.Sql;
  /**
   * The INSERT of the inbox row (… RETURNING id): processed with the receipt's outcome when `applied` (SQL boolean) holds,
   * else stored for the processor — or, with `onlyIfApplied`, not written at all unless `applied` holds.
   */
  insert(applied: Prisma.Sql, onlyIfApplied?: boolean): Prisma.Sql;
}

/** The outcome a delivery's inbox row records: its event applied, or why it changed nothing. */
export type ReceiptOutcome = { applied: true } | Extract<ApplyOutcome, { applied: false }>;

export type ReceiptResult =
  /** Stored with the outcome of applying its event. */
  | { stored: 'processed'; outcome: ApplyOutcome }
  /** Stored unprocessed: the inbox processor applies it (in its stream's order). */
  | { stored: 'queued' }
  /** A delivery of an event already stored: nothing written. */
  | { stored: 'duplicate' };

/**
 * The platform's own answer about a transfer's transaction (an authenticated read of our tenant's API): the
 * platform transaction id for our externalPaymentId, or null when the platform has none (yet). A webhook never
 * links a transfer to a platform transaction on its own word: the first link is made only when this agrees.
 */
export interface PlatformTransactionLookup {
  transactionIdOf(externalPaymentId: string): Promise<string | null>;
}

/** Topic on which the saga publishes `{ transferId, version, ownerId }` after every committed change. */
export const transferTopic = (transferId: string) => `transfer:${transferId}`;
/** Topic per owner, for list subscriptions. */
export const ownerTransfersTopic = (ownerId: string) => `transfers-of:${ownerId}`;
/** Topic of every transfer change (back-office list subscriptions without an owner filter). */
export const allTransfersTopic = 'transfers-of-all';

export interface TransferChangedMessage {
  transferId: string;
  ownerId: string;
  version: number;
}

// ── The recipient of a transfer, for the recipient module (saved recipients) and fx (quotes for a destination type) ──
export { savedRecipientDetails, type RecipientDetails } from './transfer.columns';
export { assertRecipient } from './transfer.recipient';
export { recipientShown } from './transfer.view';
