/**
 * The JSON columns of the transfer tables, typed: one parser per column (per step where saga_steps keeps a
 * different shape for each), used wherever the column is read, so no reader casts a JsonValue. Each parser
 * checks the shape its readers rely on and returns the value itself (not a copy: a payment rebuilt from the
 * details is the same on every attempt). A value that is not of that shape throws a ColumnError naming the
 * column and the path — never the value (transfers.details is PII).
 *
 * Writers: createTransfer writes transfers.details (TransferDetails); the saga writes next_action, the steps'
 * requests (recordIntent) and responses (settle); the repository writes transfer_events.detail (and .shown: read by
 * transfer.shown.ts).
 */
import { Prisma } from '../../generated/prisma/client';
import type { PostalAddress } from '../../shared/address';
import type { Sender } from '../kyc/kyc.ports';
import { TRANSFER_STATUSES, type TransferStatus } from './transfer.states';

/** A stored JSON value that does not have the shape its column holds. */
export class ColumnError extends Error {
  constructor(column: string, path: string, expected: string) {
    super(`${column}: ${path || 'the value'} is not ${expected}`);
    this.name = 'ColumnError';
  }
}

// ── transfers.details ──────────────────────────────────────────────────────────────────────────────

/**
 * The transfer's details (transfers.details: PII, kept only here and in persons.details): the sender as built
 * from the KYC'd person, the recipient and funding as submitted, and the client's IP as the request came.
 * Optional fields the client left out are absent or null (GraphQL gives null for an explicit null).
 */
export interface TransferDetails {
  /** The customer's address as the service saw the createTransfer request (request.ip, TRUST_PROXY applied). */
  ipAddress: string;
  sender: Sender;
  recipient: RecipientDetails;
  funding: {
    type: 'CARD' | 'BANK_ACCOUNT' | 'ACCOUNT_TOKEN';
    cardToken?: string | null;
    bankAccount?: { accountType: string; accountNumber: string; routingNumber: string; countryCode: string } | null;
    accountToken?: string | null;
    /** CARD: when the customer's checkCard of this card for this sender was APPROVED, if recent enough to be reused. */
    approvedCheckAt?: string | null;
    /** The last four digits of the card or account, when known at creation (receipts; back-office search). */
    lastFour?: string | null;
  };
  fxId: string;
  quoteExpiresAt: string;
  /** Where the 3-D Secure page sends the browser back (createTransfer's threeDSReturnUrl, checked then); absent: none. */
  threeDSReturnUrl?: string | null;
}

/**
 * Who receives the money (PII): as given inline to createTransfer, or as saved with createRecipient
 * (recipients.details) and copied into the transfer when it is created from it (`recipientId`: that saved
 * recipient; a later change or deletion of it never reaches the transfer).
 */
export interface RecipientDetails {
  customer: {
    firstName: string;
    lastName: string;
    email?: string | null;
    phoneNumber?: string | null;
    documentNumber?: string | null;
    documentType?: string | null;
  };
  address: PostalAddress;
  destination: { type: 'WALLET' | 'PIX'; walletId?: string | null; pixKeyType?: string | null; pixKey?: string | null };
  /** In a transfer's details: the saved recipient it was copied from (absent: given inline). */
  recipientId?: string | null;
}

const FUNDING_TYPES = ['CARD', 'BANK_ACCOUNT', 'ACCOUNT_TOKEN'] as const;
const DESTINATION_TYPES = ['WALLET', 'PIX'] as const;

/** transfers.details → TransferDetails. */
export function transferDetails(json: Prisma.JsonValue): TransferDetails {
  assertDetails(json);
  return json;
}

function assertDetails(v: unknown): asserts v is TransferDetails {
  const s = new Shape('transfers.details');
  const d = s.object(v, '');
  s.strings(d, '', ['ipAddress', 'fxId', 'quoteExpiresAt']);
  s.optionalStrings(d, '', ['threeDSReturnUrl']);
  const sender = s.object(d.sender, 'sender');
  s.strings(s.object(sender.customer, 'sender.customer'), 'sender.customer', [
    'firstName',
    'lastName',
    'email',
    'phoneNumber',
    'documentNumber',
    'documentType',
    'countryCode',
  ]);
  s.address(sender.address, 'sender.address');
  assertRecipient(s, d.recipient, 'recipient');
  s.optionalStrings(s.object(d.recipient, 'recipient'), 'recipient', ['recipientId']);
  const f = s.object(d.funding, 'funding');
  s.oneOf(f.type, 'funding.type', FUNDING_TYPES);
  s.optionalStrings(f, 'funding', ['cardToken', 'accountToken', 'approvedCheckAt', 'lastFour']);
  if (f.bankAccount != null)
    s.strings(s.object(f.bankAccount, 'funding.bankAccount'), 'funding.bankAccount', [
      'accountType',
      'accountNumber',
      'routingNumber',
      'countryCode',
    ]);
}

function assertRecipient(s: Shape, v: unknown, path: string): asserts v is RecipientDetails {
  const r = s.object(v, path);
  const rc = s.object(r.customer, join(path, 'customer'));
  s.strings(rc, join(path, 'customer'), ['firstName', 'lastName']);
  s.optionalStrings(rc, join(path, 'customer'), ['email', 'phoneNumber', 'documentNumber', 'documentType']);
  s.address(r.address, join(path, 'address'));
  const dest = s.object(r.destination, join(path, 'destination'));
  s.oneOf(dest.type, join(path, 'destination.type'), DESTINATION_TYPES);
  s.optionalStrings(dest, join(path, 'destination'), ['walletId', 'pixKeyType', 'pixKey']);
}

// ── recipients.details ─────────────────────────────────────────────────────────────────────────────

/** recipients.details (a saved recipient, createRecipient) → RecipientDetails. */
export function savedRecipientDetails(json: Prisma.JsonValue): RecipientDetails {
  assertRecipient(new Shape('recipients.details'), json, '');
  return json;
}

// ── transfers.next_action ──────────────────────────────────────────────────────────────────────────

/** What the customer must do before the saga can go on (e.g. { type: 'THREE_DS_CHALLENGE', redirectUrl }). */
export interface NextAction {
  type: string;
  redirectUrl: string | null;
}

/** transfers.next_action → NextAction, or null when there is none. */
export function nextAction(json: Prisma.JsonValue | null): NextAction | null {
  if (json === null) return null;
  const s = new Shape('transfers.next_action');
  const a = s.object(json, '');
  return { type: s.string(a, '', 'type'), redirectUrl: s.optionalString(a, '', 'redirectUrl') };
}

/** The value that clears next_action: JSON null (what clearing it has always written). */
export const NO_NEXT_ACTION = Prisma.JsonNull;

// ── saga_steps.request ─────────────────────────────────────────────────────────────────────────────

/**
 * What a capture or void intent asks for (saga_steps.request of those steps). Capture: the amount (null: the
 * authorized amount), who asked and with which idempotencyKey. Void: the status it ends in, the failure code
 * to show, who asked (and the key, for a voidTransfer). Fields a step does not have are null.
 */
export interface MoneyStepRequest {
  amount: string | null;
  target: TransferStatus | null;
  failureCode: string | null;
  requestedBy: string | null;
  idempotencyKey: string | null;
}

/** saga_steps.request of a capture or void step → MoneyStepRequest (null column: nothing asked). */
export function moneyStepRequest(json: Prisma.JsonValue | null): MoneyStepRequest {
  const s = new Shape('saga_steps.request');
  const r = json === null ? {} : s.object(json, '');
  return {
    amount: s.optionalString(r, '', 'amount'),
    target: r.target == null ? null : s.oneOf(r.target, 'target', TRANSFER_STATUSES),
    failureCode: s.optionalString(r, '', 'failureCode'),
    requestedBy: s.optionalString(r, '', 'requestedBy'),
    idempotencyKey: s.optionalString(r, '', 'idempotencyKey'),
  };
}

/** Why money goes back: the payout failed, the owner cancelled, or back-office refunded (goodwill, a dispute). */
export type RefundKind = 'PAYOUT_FAILED' | 'CANCELLED' | 'BACKOFFICE';
const REFUND_KINDS: readonly RefundKind[] = ['PAYOUT_FAILED', 'CANCELLED', 'BACKOFFICE'];

/** What a refund intent asks for (saga_steps.request of a refund:<n> step). */
export interface RefundStepRequest {
  /** In the transfer's source currency, formatted (always explicit: what is sent is what is recorded). */
  amount: string;
  kind: RefundKind;
  reason: string;
  /** A user id (back-office, or the owner who cancelled), or worker / webhook. */
  requestedBy: string;
  idempotencyKey: string | null;
}

/** saga_steps.request of a refund step → RefundStepRequest. */
export function refundStepRequest(json: Prisma.JsonValue | null): RefundStepRequest {
  const s = new Shape('saga_steps.request (refund)');
  const r = s.object(json, '');
  return {
    amount: s.string(r, '', 'amount'),
    kind: s.oneOf(r.kind, 'kind', REFUND_KINDS),
    reason: s.string(r, '', 'reason'),
    requestedBy: s.string(r, '', 'requestedBy'),
    idempotencyKey: s.optionalString(r, '', 'idempotencyKey'),
  };
}

// ── saga_steps.response ────────────────────────────────────────────────────────────────────────────

/** What a settled refund keeps: the gateway's refund id, and its status there. */
export type RefundOutcome = { refundId: string; status: string };

/**
 * What a settled check keeps: its outcome (APPROVED, CHALLENGE, FAILED), and for a card the reasons and last four —
 * or, a card check reused, when the customer's APPROVED checkCard was.
 */
export type CheckOutcome = { outcome: string; reasons?: string[]; lastFour?: string | null; reusedCheckAt?: string };

/** saga_steps.response of the check step → its outcome, or null when it has none (unsettled, or failed). */
export function checkOutcome(json: Prisma.JsonValue | null): string | null {
  if (json === null) return null;
  const r = new Shape('saga_steps.response (check)').object(json, '');
  return typeof r.outcome === 'string' ? r.outcome : null;
}

/** What a settled authorize step keeps (saga_steps.response): enough to re-derive the transfer's move. */
export type AuthorizationOutcome = {
  paymentId: string;
  status: string;
  approved: boolean;
  message: string | null;
};

/** saga_steps.response of a SUCCEEDED authorize step → AuthorizationOutcome. */
export function authorizationOutcome(json: Prisma.JsonValue | null): AuthorizationOutcome {
  const s = new Shape('saga_steps.response (authorize)');
  const r = s.object(json, '');
  if (typeof r.approved !== 'boolean') throw new ColumnError(s.column, 'approved', 'a boolean');
  return {
    paymentId: s.string(r, '', 'paymentId'),
    status: s.string(r, '', 'status'),
    approved: r.approved,
    message: s.optionalString(r, '', 'message'),
  };
}

/** Where a settled capture/void step found the payment (saga_steps.response), e.g. { status: 'CAPTURED' }. */
export type PaymentState = { status: string };

/** saga_steps.response of a capture or void step → the payment status it found, or null (none recorded). */
export function paymentStatus(json: Prisma.JsonValue | null): string | null {
  if (json === null) return null;
  const r = new Shape('saga_steps.response (payment)').object(json, '');
  return typeof r.status === 'string' ? r.status : null;
}

// ── transfer_events ────────────────────────────────────────────────────────────────────────────────

/**
 * The audit detail's fields read back: the action (e.g. authorize, resumeTransfer), a mutation's idempotencyKey, and
 * the value a platform fact reported (e.g. PaymentCaptured, DECLINED, Approved).
 */
interface EventDetail {
  action: string | null;
  idempotencyKey: string | null;
  value: string | null;
}

/** transfer_events.detail → EventDetail (fields other than strings count as absent: the detail is free-form). */
export function eventDetail(json: Prisma.JsonValue | null): EventDetail {
  const d = isObject(json) ? json : {};
  return {
    action: typeof d.action === 'string' ? d.action : null,
    idempotencyKey: typeof d.idempotencyKey === 'string' ? d.idempotencyKey : null,
    value: typeof d.value === 'string' ? d.value : null,
  };
}

// ── shape checks ───────────────────────────────────────────────────────────────────────────────────

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const join = (path: string, key: string) => (path ? `${path}.${key}` : key);

/** Shape checks of one JSON column, each failing with a ColumnError naming the column and the path. */
export class Shape {
  constructor(readonly column: string) {}

  object(v: unknown, path: string): Record<string, unknown> {
    if (!isObject(v)) throw new ColumnError(this.column, path, 'an object');
    return v;
  }

  string(o: Record<string, unknown>, path: string, key: string): string {
    const v = o[key];
    if (typeof v !== 'string') throw new ColumnError(this.column, join(path, key), 'a string');
    return v;
  }

  optionalString(o: Record<string, unknown>, path: string, key: string): string | null {
    const v = o[key];
    if (v == null) return null;
    if (typeof v !== 'string') throw new ColumnError(this.column, join(path, key), 'a string or absent');
    return v;
  }

  strings(o: Record<string, unknown>, path: string, keys: readonly string[]): void {
    for (const k of keys) if (typeof o[k] !== 'string') throw new ColumnError(this.column, join(path, k), 'a string');
  }

  optionalStrings(o: Record<string, unknown>, path: string, keys: readonly string[]): void {
    for (const k of keys)
      if (o[k] != null && typeof o[k] !== 'string') throw new ColumnError(this.column, join(path, k), 'a string or absent');
  }

  oneOf<T extends string>(v: unknown, path: string, values: readonly T[]): T {
    const found = values.find((x) => x === v);
    if (found === undefined) throw new ColumnError(this.column, path, `one of ${values.join(', ')}`);
    return found;
  }

  address(v: unknown, path: string): void {
    const a = this.object(v, path);
    this.strings(a, path, ['line1', 'city', 'region', 'postalCode', 'countryCode']);
    this.optionalStrings(a, path, ['line2', 'regionCode']);
  }
}
