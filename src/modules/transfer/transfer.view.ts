import { formatAmount, formatRate } from '../../shared/money';
import { totalOf } from './transfer.requests';
import type { RecipientDetails, TransferDetails } from './transfer.columns';
import type { TransferRow } from './transfer.repository';
import { shownView } from './transfer.shown';
import type { Transfer } from './transfer.types';

/** The API view of a transfer row (no PII: details stay in the database); the fields that change: shownView. */
export function toTransfer(t: TransferRow): Transfer {
  return {
    ...shownView(t),
    id: t.id,
    version: t.version,
    lastEventSeq: t.eventSeq,
    sendAmount: { amount: formatAmount(t.sendAmount, t.sendCurrency), currency: t.sendCurrency },
    receiveAmount: { amount: formatAmount(t.receiveAmount, t.receiveCurrency), currency: t.receiveCurrency },
    rate: formatRate(t.rate),
    fee: { amount: formatAmount(t.feeAmount, t.sendCurrency), currency: t.sendCurrency },
    total: { amount: formatAmount(totalOf(t), t.sendCurrency), currency: t.sendCurrency },
    deliveryEstimate: t.deliveryEarliest && t.deliveryLatest ? { earliest: t.deliveryEarliest, latest: t.deliveryLatest } : null,
    ownerId: t.ownerId,
    fundingType: t.fundingType.toUpperCase(),
    destinationCountry: t.destinationCountry,
    complianceStatus: t.complianceStatus,
    platformStatus: t.upstreamTransactionStatus,
    createdAt: t.createdAt,
    updatedAt: t.updatedAt,
    payoutStatus: t.payoutStatus,
  };
}

const nameOf = (c: { firstName: string; lastName: string }) => `${c.firstName} ${c.lastName}`.trim();

/** Who sends and who receives, as the transfer's details recorded them at creation. */
export function partiesOf(
  personId: string,
  details: Pick<TransferDetails, 'sender' | 'recipient' | 'funding'>,
): { sender: { personId: string; name: string }; recipient: RecipientShown; funding: { type: string; lastFour: string | null } } {
  return {
    sender: { personId, name: nameOf(details.sender.customer) },
    recipient: recipientShown(details.recipient),
    funding: { type: details.funding.type, lastFour: details.funding.lastFour ?? null },
  };
}

/** A recipient as an app may show it: the name, the kind of destination and the destination masked. */
interface RecipientShown {
  name: string;
  destinationType: string;
  destination: string;
  /** The saved recipient a transfer's recipient was copied from (null: given inline). */
  recipientId: string | null;
}

/** A recipient (a transfer's, or a saved one) as an app may show it: never the whole key, wallet id or document. */
export function recipientShown(r: RecipientDetails): RecipientShown {
  return {
    name: nameOf(r.customer),
    destinationType: r.destination.type,
    destination: maskDestination(r.destination),
    recipientId: r.recipientId ?? null,
  };
}

/**
 * A destination an app can show without repeating it whole: a PIX e-mail keeps its first letter and its domain
 * (m•••@example.com); any other key, and a wallet id, its last four characters (•••• 1234).
 */
export function maskDestination(d: RecipientDetails['destination']): string {
  const value = (d.type === 'PIX' ? d.pixKey : d.walletId) ?? '';
  if (d.type === 'PIX' && d.pixKeyType === 'EMAIL') {
    const at = value.lastIndexOf('@');
    if (at > 0) return `${value[0]}•••${value.slice(at)}`;
  }
  const tail = value.replace(/[^0-9A-Za-z]/g, '').slice(-4);
  return `•••• ${tail}`;
}
