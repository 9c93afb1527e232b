/**
 * Platform events → normalised events. Pure functions, no I/O. Names match case-insensitively; legacy lowercase and
 * earlier-generation names map to the current normalised types. Payload generations are told apart by shape, not by
 * name (TransactionStatusChanged exists in both): the earlier one (complianceStatus / payoutStatus / timestamp)
 * maps to the same changes as the current one, compliance first when it carries both (docs/webhooks.md, Ordering).
 */
import { createHash } from 'node:crypto';
import Decimal from 'decimal.js';
import type { PlatformChange, PlatformTransactionEvent } from '../transfer/transfer.ports';
import { inStoredRange } from '../../shared/clock';
import { canonicalJson } from '../../shared/json';

type EventType = 'transaction.status' | 'transaction.compliance' | 'transaction.payout' | 'document' | 'agent';

const NAMES: Record<string, EventType> = {
  transactionstatuschanged: 'transaction.status',
  transactioncompliancestatuschangedevent: 'transaction.compliance',
  transactioncompliancestatuschanged: 'transaction.compliance', // earlier generation
  transactionpayoutstatuschanged: 'transaction.payout',
  documentupdatedevents: 'document', // current and legacy lowercase spelling
  documentupdatedevent: 'document',
  agentupdatedevents: 'agent',
  agentstatuschangedevent: 'agent', // earlier generation
};

/** Current event names the service subscribes to (registered spelling). */
export const SUBSCRIBED_EVENTS = [
  'TransactionStatusChanged',
  'TransactionComplianceStatusChangedEvent',
  'TransactionPayoutStatusChanged',
  'DocumentUpdatedEvents',
  'AgentUpdatedEvents',
] as const;

export const eventTypeOf = (name: string): EventType | null => NAMES[name.trim().toLowerCase()] ?? null;

const TRANSACTION_STATUSES = [
  'Created',
  'PaymentProcessing',
  'WaitingChallenge3ds',
  'PaymentAuthorized',
  'PaymentDeclined',
  'PaymentCaptured',
  'WaitingSettlement',
  'PaymentSettled',
  'ProcessingPayout',
  'PayoutAccepted',
  'PayoutHold',
  'PayoutReleased',
  'PayoutRejected',
  'ManualReview',
  'ReviewApproved',
  'ReviewRejected',
  'WaitingPayout',
  'Paid',
  'Completed',
  'Cancelled',
  'CancelRequested',
  'Refunded',
  'Voided',
  'Error',
  'PendingReversalApproval',
  'BlockedPendingReview',
] as const;
const STATUS_BY_LOWER = new Map<string, string>(TRANSACTION_STATUSES.map((s) => [s.toLowerCase(), s]));
STATUS_BY_LOWER.set('canceled', 'Cancelled');

const COMPLIANCE_STATUSES = ['Pending', 'Approved', 'Rejected', 'Cancelled', 'Refunded', 'Failed'] as const;
const COMPLIANCE_BY_LOWER = new Map<string, string>(COMPLIANCE_STATUSES.map((s) => [s.toLowerCase(), s]));
COMPLIANCE_BY_LOWER.set('hold', 'Pending'); // earlier generation: held for review = not decided yet
COMPLIANCE_BY_LOWER.set('canceled', 'Cancelled');

export const DOCUMENT_STATUSES = ['PENDING', 'VERIFIED', 'REJECTED', 'EXPIRED'] as const;
const DOCUMENT_TYPE_ALIASES: Record<string, string> = {
  DRIVER_LICENSE: 'DRIVERS_LICENSE',
  DRIVERSLICENSE: 'DRIVERS_LICENSE',
  DRIVING_LICENSE: 'DRIVERS_LICENSE',
  DRIVERS_LICENCE: 'DRIVERS_LICENSE',
};

const normalizeStatus = (v: string) => STATUS_BY_LOWER.get(v.trim().toLowerCase()) ?? v.trim();
const normalizeCompliance = (v: string) => COMPLIANCE_BY_LOWER.get(v.trim().toLowerCase()) ?? v.trim();

export interface DocumentState {
  id: string;
  entityId: string;
  entityType: string | null;
  documentType: string;
  /** Upper-cased; not necessarily one of DOCUMENT_STATUSES (unknown values are recorded and ignored). */
  verificationStatus: string;
  occurredAt: Date;
  tenantId: string | null;
}

export interface AgentState {
  id: string;
  status: string;
  email: string | null;
  businessName: string | null;
  externalId: string | null;
  createdAt: Date | null;
  tenantId: string | null;
  /** true for the creation event (before: null). */
  created: boolean;
}

type TransactionEventBody = Omit<PlatformTransactionEvent, 'source'>;

export type Normalized =
  | { kind: 'transaction'; type: EventType; generation: 'current' | 'earlier'; streamKey: string; events: TransactionEventBody[] }
  | { kind: 'document'; type: 'document'; streamKey: string; document: DocumentState }
  | { kind: 'agent'; type: 'agent'; streamKey: string; agent: AgentState }
  | { kind: 'unknown'; type: null; streamKey: null }
  | { kind: 'invalid'; type: EventType; streamKey: null; problem: string };

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const str = (v: unknown): string | null => (typeof v === 'string' && v.trim() !== '' ? v : null);
const strOrNull = (v: unknown): string | null => (typeof v === 'string' ? v : null);
const date = (v: unknown): Date | null => {
  if (typeof v !== 'string') return null;
  const d = new Date(v);
  return inStoredRange(d) ? d : null;
};
const messagesOf = (p: Obj): string[] => {
  const out: string[] = [];
  for (const list of [p.newStatusMessages, p.messages])
    if (Array.isArray(list))
      for (const m of list) {
        if (typeof m === 'string') out.push(m);
        else if (isObj(m) && typeof m.message === 'string') out.push(m.message);
      }
  return out;
};

/** "total (unrounded number)" → a decimal string, never a float. */
function amountOf(v: unknown): { total: string; currency: string } | null {
  if (!isObj(v)) return null;
  const currency = str(v.currency);
  const total = v.total;
  if (!currency) return null;
  if (typeof total === 'number' && Number.isFinite(total)) return { total: new Decimal(total).toFixed(), currency };
  if (typeof total === 'string' && /^-?\d+(\.\d+)?$/.test(total.trim())) return { total: new Decimal(total.trim()).toFixed(), currency };
  return null;
}

/** The event's `event` field (string) or null when the body is not an event at all. */
export function eventNameOf(payload: unknown): string | null {
  return isObj(payload) && typeof payload.event === 'string' && payload.event.trim() !== '' && payload.event.length <= 200
    ? payload.event
    : null;
}

/**
 * The deduplication key: sha256 over the normalised event type and the canonical payload (keys sorted,
 * the `event` field left out because it echoes whichever spelling a subscription registered). The
 * platform sends no delivery id; a redelivery carries the same body, so the same key.
 */
export function dedupeKeyOf(eventName: string, payload: Obj): string {
  const type = eventTypeOf(eventName) ?? `unknown:${eventName.trim().toLowerCase()}`;
  const { event: _ignored, ...rest } = payload;
  return createHash('sha256')
    .update(`${type}\n${canonicalJson(rest)}`)
    .digest('hex');
}

/** Normalises one stored event; `receivedAt` stands in for occurredAt when the payload has no time. */
export function normalizeEvent(payload: unknown, receivedAt: Date): Normalized {
  const name = eventNameOf(payload);
  if (!name || !isObj(payload)) return { kind: 'unknown', type: null, streamKey: null };
  const type = eventTypeOf(name);
  if (!type) return { kind: 'unknown', type: null, streamKey: null };
  const invalid = (problem: string): Normalized => ({ kind: 'invalid', type, streamKey: null, problem });

  if (type === 'document') {
    const id = str(payload.id);
    const entityId = str(payload.entityId);
    const documentType = str(payload.documentType);
    const status = str(payload.verificationStatus);
    if (!id || !entityId || !documentType || !status)
      return invalid('document event without id, entityId, documentType or verificationStatus');
    const occurredAt = date(payload.occurredAt) ?? date(payload.timestamp) ?? date(payload.updatedAt) ?? receivedAt;
    const upperType = documentType.trim().toUpperCase();
    return {
      kind: 'document',
      type,
      streamKey: `doc:${id}`,
      document: {
        id,
        entityId,
        entityType: strOrNull(payload.entityType),
        documentType: DOCUMENT_TYPE_ALIASES[upperType] ?? upperType,
        verificationStatus: status.trim().toUpperCase(),
        occurredAt,
        tenantId: strOrNull(payload.tenantId),
      },
    };
  }

  if (type === 'agent') {
    const after = isObj(payload.after) ? payload.after : payload; // earlier generation: flat
    const id = str(payload.id) ?? str(after.id) ?? str(payload.agentId);
    const status = str(after.status) ?? str(payload.newStatus) ?? str(payload.status);
    if (!id || !status) return invalid('agent event without id or status');
    return {
      kind: 'agent',
      type,
      streamKey: `agent:${id}`,
      agent: {
        id,
        status: status.trim().toUpperCase(),
        email: strOrNull(after.email),
        businessName: strOrNull(after.businessName),
        externalId: strOrNull(after.externalId),
        createdAt: date(after.createdAt),
        tenantId: strOrNull(payload.tenantId),
        created: 'before' in payload ? payload.before === null : false,
      },
    };
  }

  // transactions
  const transactionId = str(payload.transactionId);
  if (!transactionId) return invalid('transaction event without transactionId');
  const base = {
    transactionId,
    externalTransactionId: strOrNull(payload.externalTransactionId) ?? strOrNull(payload.externalId),
    tenantId: strOrNull(payload.tenantId),
    occurredAt: date(payload.occurredAt) ?? date(payload.timestamp) ?? receivedAt,
    messages: messagesOf(payload),
  };
  const streamKey = `tx:${transactionId}`;
  const one = (change: PlatformChange): Normalized => ({
    kind: 'transaction',
    type,
    generation: 'current',
    streamKey,
    events: [{ ...base, change }],
  });
  const oldOf = (v: unknown, f: (s: string) => string) => (str(v) ? f(v as string) : null);

  if (type === 'transaction.status' && str(payload.newStatus))
    return one({
      type: 'status',
      oldStatus: oldOf(payload.oldStatus, normalizeStatus),
      newStatus: normalizeStatus(payload.newStatus as string),
    });
  if (type === 'transaction.compliance' && str(payload.newComplianceStatus))
    return one({
      type: 'compliance',
      oldStatus: oldOf(payload.oldComplianceStatus, normalizeCompliance),
      newStatus: normalizeCompliance(payload.newComplianceStatus as string),
    });
  if (type === 'transaction.payout' && str(payload.newPayoutStatus))
    return one({
      type: 'payout',
      oldStatus: oldOf(payload.oldPayoutStatus, (s) => s.trim().toUpperCase()),
      newStatus: (payload.newPayoutStatus as string).trim().toUpperCase(),
      gatewayPaymentId: strOrNull(payload.gatewayPaymentId),
      amount: amountOf(payload.amount),
    });

  // earlier generation
  const changes: PlatformChange[] = [];
  if (str(payload.complianceStatus))
    changes.push({ type: 'compliance', oldStatus: null, newStatus: normalizeCompliance(payload.complianceStatus as string) });
  if (str(payload.payoutStatus)) changes.push(earlierPayoutChange(payload.payoutStatus as string));
  if (changes.length === 0) return invalid('transaction event with no status of either payload generation');
  return { kind: 'transaction', type, generation: 'earlier', streamKey, events: changes.map((change) => ({ ...base, change })) };
}

function earlierPayoutChange(raw: string): PlatformChange {
  const v = raw.trim();
  if (v.toLowerCase() === 'pending') return { type: 'payout', oldStatus: null, newStatus: 'PENDING', gatewayPaymentId: null, amount: null };
  return { type: 'status', oldStatus: null, newStatus: normalizeStatus(v) };
}
