import { formatAmount, formatRate } from '../../shared/money';
import { nextAction } from './transfer.columns';
import type { TransferRow } from './transfer.repository';
import type { Transfer } from './transfer.types';

/** The API view of a transfer row (no PII: details stay in the database). */
export function toTransfer(t: TransferRow): Transfer {
  const next = nextAction(t.nextAction);
  return {
    id: t.id,
    status: t.status,
    version: t.version,
    lastEventSeq: t.eventSeq,
    sendAmount: { amount: formatAmount(t.sendAmount, t.sendCurrency), currency: t.sendCurrency },
    receiveAmount: { amount: formatAmount(t.receiveAmount, t.receiveCurrency), currency: t.receiveCurrency },
    rate: formatRate(t.rate),
    capturedAmount: t.capturedAmount !== null ? { amount: formatAmount(t.capturedAmount, t.sendCurrency), currency: t.sendCurrency } : null,
    refundedAmount: { amount: formatAmount(t.refundedAmount, t.sendCurrency), currency: t.sendCurrency },
    nextAction: next?.type ? ({ type: next.type, redirectUrl: next.redirectUrl } as Transfer['nextAction']) : null,
    failure: t.failureCode ? { code: t.failureCode, message: t.failureMessage ?? t.failureCode } : null,
    ownerId: t.ownerId,
    fundingType: t.fundingType.toUpperCase(),
    destinationCountry: t.destinationCountry,
    complianceStatus: t.complianceStatus,
    platformStatus: t.upstreamTransactionStatus,
    createdAt: t.createdAt,
    updatedAt: t.updatedAt,
    cancelRequestedAt: t.cancelRequestedAt,
    payoutStatus: t.payoutStatus,
  };
}
