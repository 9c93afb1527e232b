import type { Prisma } from '../../generated/prisma/client';
import type { AuthorizationOutcome, CheckOutcome, PaymentState, RefundOutcome } from './transfer.columns';
import type { TransferRow } from './transfer.repository';

/** The saga's steps; refunds are numbered (refund:1, refund:2, …): a transfer may be refunded in several parts. */
export type StepName = 'check' | 'authorize' | 'capture' | 'void' | 'cancel' | RefundStep;
export type RefundStep = `refund:${number}`;
export const isRefundStep = (step: string): step is RefundStep => /^refund:\d+$/.test(step);
export type StepState = 'SUCCEEDED' | 'FAILED' | 'UNKNOWN' | 'PENDING';
/** What a settled step keeps (saga_steps.response). */
export type StepOutcome = CheckOutcome | AuthorizationOutcome | PaymentState | RefundOutcome;

/** A step's result as SQL, written with the move it calls for (SagaStepLog.settlement). */
export interface Settlement {
  sql: Prisma.Sql;
  written(): void;
}

/**
 * The Idempotency-Key a step sends upstream: the authorization's is the payment's own id, the others derive from it
 * (a refund's is its externalRefundId at the gateway).
 */
export const stepKey = (t: Pick<TransferRow, 'externalPaymentId'>, step: StepName) =>
  step === 'authorize' ? t.externalPaymentId : `${t.externalPaymentId}:${step}`;
