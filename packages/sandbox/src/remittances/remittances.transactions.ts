/**
 * Transaction lifecycle of the simulated remittances platform, driven by the simulated gateway through
 * ctx.bus. Each step runs options.lifecycleStepMs (real time) after the previous one; one step may emit
 * several events (e.g. a status change and the payout change it implies).
 *
 * payment.authorized (happy path):
 *   status    null → Created → PaymentProcessing → PaymentAuthorized → ProcessingPayout → PayoutAccepted
 *             → ReviewApproved   … waits for payment.captured …
 *             → PaymentCaptured → WaitingPayout → Paid → Completed
 *   compliance null → Pending (with Created) … Pending → Approved (with ReviewApproved)
 *   payout    null → AUTHORIZED (with PaymentAuthorized) → PENDING (with PayoutAccepted)
 *             → CAPTURED (with PaymentCaptured; amount = captured amount)
 * Sender lastName "Compliance-Reject": compliance Pending → Rejected with status ReviewRejected, then waits
 *   for the void (→ Voided, payout VOIDED).
 * Sender lastName "Compliance-Review": status → ManualReview and held until
 *   POST /__sandbox/transactions/{externalTransactionId}/compliance decides: Approved → ReviewApproved (+
 *   compliance Approved, then the capture path), Rejected → ReviewRejected (+ compliance Rejected).
 * A capture that arrives before approval is remembered and applied right after it. A capture after a
 *   rejection only reports PaymentCaptured / payout CAPTURED (no payout).
 * Recipient lastName "Payout-Reject": after WaitingPayout → PayoutRejected (payout DECLINED), no Paid: the money
 *   captured must go back to the sender (the gateway's refund).
 * Cancel (API) of a captured transaction before Paid: CancelRequested → Cancelled, payout VOIDED, no Paid.
 * payment.voided   → Voided, payout VOIDED, compliance Pending → Cancelled (if still Pending).
 * payment.cancelled (7-day auto-cancel) → Cancelled, compliance Pending → Cancelled; no payout event.
 * payment.declined → Created → PaymentProcessing → PaymentDeclined, payout DECLINED, compliance Pending →
 *   Cancelled.
 * Events are emitted only when a value changes; every status change is kept in the status history.
 */
import type { PaymentFacts, SandboxContext } from '../sandbox.context';
import type { WebhookDelivery } from './remittances.delivery';
import { conflict, notFound } from './remittances.errors';
import { TimerSet, uuid } from './remittances.util';

export type ComplianceStatus = 'Pending' | 'Approved' | 'Rejected' | 'Cancelled' | 'Refunded' | 'Failed';
type Phase = 'running' | 'review' | 'approved' | 'rejected' | 'done';

export interface StatusHistoryEntry {
  oldStatus: string | null;
  newStatus: string;
  newStatusMessages: string[];
  at: string;
}

export interface Money {
  total: number;
  currency: string;
}

export interface Transaction {
  transactionId: string;
  externalTransactionId: string | null;
  tenantId: string;
  status: string | null;
  complianceStatus: ComplianceStatus | null;
  payoutStatus: string | null;
  gatewayPaymentId: string | null;
  amount: Money | null;
  recipientAmount: Money | null;
  senderLastName: string | null;
  recipientLastName: string | null;
  createdAt: string;
  updatedAt: string;
  metadata: Record<string, unknown>;
  history: StatusHistoryEntry[];
  // lifecycle bookkeeping (not exposed)
  phase: Phase;
  captured: Money | null;
  steps: Array<() => void>;
  timer: NodeJS.Timeout | null;
}

export const TERMINAL_STATUSES = new Set(['Completed', 'Cancelled', 'Voided', 'PaymentDeclined', 'Refunded', 'Error', 'PayoutRejected']);

export function transactionView(t: Transaction) {
  return {
    transactionId: t.transactionId,
    externalTransactionId: t.externalTransactionId,
    tenantId: t.tenantId,
    status: t.status,
    complianceStatus: t.complianceStatus,
    payoutStatus: t.payoutStatus,
    gatewayPaymentId: t.gatewayPaymentId,
    amount: t.amount,
    recipientAmount: t.recipientAmount,
    metadata: t.metadata,
    createdAt: t.createdAt,
    updatedAt: t.updatedAt,
  };
}

export class TransactionEngine {
  private readonly txs = new Map<string, Transaction>();
  private readonly byExternal = new Map<string, string>();
  private readonly timers = new TimerSet();

  constructor(
    private readonly ctx: SandboxContext,
    private readonly delivery: WebhookDelivery,
  ) {
    ctx.bus.on('payment.authorized', (f) => this.onAuthorized(f));
    ctx.bus.on('payment.declined', (f) => this.onDeclined(f));
    ctx.bus.on('payment.captured', (f) => this.onCaptured(f));
    ctx.bus.on('payment.voided', (f) => this.onTerminal(f, 'Voided'));
    ctx.bus.on('payment.cancelled', (f) => this.onTerminal(f, 'Cancelled'));
  }

  reset(): void {
    this.timers.clear();
    this.txs.clear();
    this.byExternal.clear();
  }

  close(): void {
    this.timers.clear();
  }

  /** By transactionId or externalTransactionId, within the tenant. */
  find(tenantId: string, id: string): Transaction | undefined {
    const t = this.txs.get(id) ?? this.txs.get(this.byExternal.get(id) ?? '');
    return t && t.tenantId === tenantId ? t : undefined;
  }

  list(tenantId: string): Transaction[] {
    return [...this.txs.values()].filter((t) => t.tenantId === tenantId);
  }

  /** A transaction created through the API (POST /organizations/{tenant}/fx/transactions): just Created. */
  createFromApi(
    tenantId: string,
    input: { externalTransactionId: string | null; amount: Money | null; metadata: Record<string, unknown> },
  ): Transaction {
    if (input.externalTransactionId && this.byExternal.has(input.externalTransactionId))
      throw conflict('DUPLICATE_EXTERNAL_ID', 'a transaction with this externalTransactionId exists');
    const t = this.newTx(tenantId, input.externalTransactionId, null, input.amount, null, null);
    t.metadata = input.metadata;
    this.setStatus(t, 'Created', 'Transaction created');
    this.setCompliance(t, 'Pending');
    t.phase = 'approved';
    return t;
  }

  /**
   * Cancels a transaction that has not been paid out nor finished: CancelRequested → Cancelled (no Paid follows).
   * A captured one too, until the recipient is paid: its payout stops (payout VOIDED); the money taken goes back to
   * the sender by the gateway's refund, which the transaction's owner asks for. Paid, or finished → 409.
   */
  cancel(tenantId: string, id: string): Transaction {
    const t = this.find(tenantId, id);
    if (!t) throw notFound('transaction');
    const paidOut = t.status === 'Paid' || t.history.some((h) => h.newStatus === 'Paid');
    if ((t.status && TERMINAL_STATUSES.has(t.status)) || t.status === 'CancelRequested' || paidOut || (t.phase === 'done' && !t.captured))
      throw conflict('INVALID_STATE', `a transaction in status ${t.status} cannot be cancelled`);
    const captured = t.captured !== null;
    t.steps.length = 0;
    this.timers.cancel(t.timer);
    t.timer = null;
    t.phase = 'done';
    this.setStatus(t, 'CancelRequested', 'Cancellation requested');
    this.step(t, () => {
      this.setStatus(t, 'Cancelled', 'Transaction cancelled');
      if (captured) this.setPayout(t, 'VOIDED', t.captured);
      if (t.complianceStatus === 'Pending') this.setCompliance(t, 'Cancelled');
    });
    return t;
  }

  /** The manual-review decision from the control API. */
  decide(externalTransactionId: string, decision: 'Approved' | 'Rejected'): Transaction {
    const t = this.txs.get(this.byExternal.get(externalTransactionId) ?? externalTransactionId);
    if (!t) throw notFound('transaction');
    if (t.phase !== 'review' || t.status !== 'ManualReview')
      throw conflict('INVALID_STATE', `transaction is not held for manual review (status ${t.status})`);
    t.phase = 'running';
    this.step(t, () => (decision === 'Approved' ? this.approve(t) : this.reject(t)));
    return t;
  }

  // --- bus handlers -------------------------------------------------------------------------------

  private onAuthorized(f: PaymentFacts): void {
    if (this.byExternal.has(f.externalPaymentId)) return; // the same authorization reported twice
    const t = this.newTx(
      this.ctx.options.remittancesTenantId,
      f.externalPaymentId,
      f.paymentId,
      f.amount,
      f.recipientAmount,
      f.senderLastName,
    );
    t.recipientLastName = f.recipientLastName;
    this.step(t, () => {
      this.setStatus(t, 'Created', 'Transaction created');
      this.setCompliance(t, 'Pending');
    });
    this.step(t, () => this.setStatus(t, 'PaymentProcessing', 'Processing payment'));
    this.step(t, () => {
      this.setStatus(t, 'PaymentAuthorized', 'Payment authorized');
      this.setPayout(t, 'AUTHORIZED', t.amount);
    });
    this.step(t, () => this.setStatus(t, 'ProcessingPayout', 'Processing payout'));
    this.step(t, () => {
      this.setStatus(t, 'PayoutAccepted', 'Payout accepted');
      this.setPayout(t, 'PENDING', t.amount);
    });
    this.step(t, () => {
      if (t.senderLastName === 'Compliance-Reject') this.reject(t);
      else if (t.senderLastName === 'Compliance-Review') {
        t.phase = 'review';
        this.setStatus(t, 'ManualReview', 'Held for manual compliance review');
      } else this.approve(t);
    });
  }

  private onDeclined(f: PaymentFacts): void {
    let t = this.txByExternal(f.externalPaymentId);
    if (!t) {
      t = this.newTx(this.ctx.options.remittancesTenantId, f.externalPaymentId, f.paymentId, f.amount, f.recipientAmount, f.senderLastName);
      const tx = t;
      this.step(tx, () => {
        this.setStatus(tx, 'Created', 'Transaction created');
        this.setCompliance(tx, 'Pending');
      });
      this.step(tx, () => this.setStatus(tx, 'PaymentProcessing', 'Processing payment'));
    }
    const tx = t;
    tx.phase = 'done';
    this.step(tx, () => {
      this.setStatus(tx, 'PaymentDeclined', 'Payment declined');
      this.setPayout(tx, 'DECLINED', tx.amount);
      if (tx.complianceStatus === 'Pending') this.setCompliance(tx, 'Cancelled');
    });
  }

  private onCaptured(f: PaymentFacts & { capturedAmount: number }): void {
    const t = this.txByExternal(f.externalPaymentId);
    if (!t || t.captured) return;
    t.captured = { total: f.capturedAmount, currency: f.amount.currency };
    if (t.phase === 'approved') this.capturePath(t);
    else if (t.phase === 'rejected') {
      t.phase = 'done';
      this.step(t, () => {
        this.setStatus(t, 'PaymentCaptured', 'Payment captured after a compliance rejection');
        this.setPayout(t, 'CAPTURED', t.captured);
      });
    }
    // running / review: approve() picks the capture up
  }

  private onTerminal(f: PaymentFacts, status: 'Voided' | 'Cancelled'): void {
    const t = this.txByExternal(f.externalPaymentId);
    if (!t || (t.status && TERMINAL_STATUSES.has(t.status))) return;
    t.phase = 'done';
    this.step(t, () => {
      if (t.status && TERMINAL_STATUSES.has(t.status)) return;
      this.setStatus(t, status, status === 'Voided' ? 'Authorization voided' : 'Authorization expired and was cancelled');
      if (status === 'Voided') this.setPayout(t, 'VOIDED', t.amount);
      if (t.complianceStatus === 'Pending') this.setCompliance(t, 'Cancelled');
    });
  }

  // --- transitions --------------------------------------------------------------------------------

  private approve(t: Transaction): void {
    if (t.phase === 'done') return;
    this.setCompliance(t, 'Approved');
    this.setStatus(t, 'ReviewApproved', 'Compliance review approved');
    t.phase = 'approved';
    if (t.captured) this.capturePath(t);
  }

  private reject(t: Transaction): void {
    if (t.phase === 'done') return;
    this.setCompliance(t, 'Rejected');
    this.setStatus(t, 'ReviewRejected', 'Compliance review rejected');
    t.phase = 'rejected';
  }

  private capturePath(t: Transaction): void {
    t.phase = 'done';
    this.step(t, () => {
      this.setStatus(t, 'PaymentCaptured', 'Payment captured');
      this.setPayout(t, 'CAPTURED', t.captured);
    });
    this.step(t, () => this.setStatus(t, 'WaitingPayout', 'Waiting for payout'));
    if (t.recipientLastName === 'Payout-Reject') {
      this.step(t, () => {
        this.setStatus(t, 'PayoutRejected', 'The recipient could not be paid out');
        this.setPayout(t, 'DECLINED', t.captured);
      });
      return;
    }
    this.step(t, () => this.setStatus(t, 'Paid', 'Paid to the recipient'));
    this.step(t, () => this.setStatus(t, 'Completed', 'Transaction completed'));
  }

  // --- plumbing -----------------------------------------------------------------------------------

  private txByExternal(externalId: string): Transaction | undefined {
    const id = this.byExternal.get(externalId);
    return id ? this.txs.get(id) : undefined;
  }

  private newTx(
    tenantId: string,
    externalTransactionId: string | null,
    gatewayPaymentId: string | null,
    amount: Money | null,
    recipientAmount: Money | null,
    senderLastName: string | null,
  ): Transaction {
    const now = this.ctx.now().toISOString();
    const t: Transaction = {
      transactionId: uuid(),
      externalTransactionId,
      tenantId,
      status: null,
      complianceStatus: null,
      payoutStatus: null,
      gatewayPaymentId,
      amount: amount ? { ...amount } : null,
      recipientAmount: recipientAmount ? { ...recipientAmount } : null,
      senderLastName,
      recipientLastName: null,
      createdAt: now,
      updatedAt: now,
      metadata: {},
      history: [],
      phase: 'running',
      captured: null,
      steps: [],
      timer: null,
    };
    this.txs.set(t.transactionId, t);
    if (externalTransactionId) this.byExternal.set(externalTransactionId, t.transactionId);
    return t;
  }

  /** Appends a step; steps run one after another, lifecycleStepMs apart. */
  private step(t: Transaction, fn: () => void): void {
    t.steps.push(fn);
    if (!t.timer) this.next(t);
  }

  private next(t: Transaction): void {
    if (t.steps.length === 0) {
      t.timer = null;
      this.delivery.flush(t.transactionId); // the transaction pauses: release held (shuffled) events
      return;
    }
    t.timer = this.timers.after(this.ctx.options.lifecycleStepMs, () => {
      const fn = t.steps.shift();
      if (fn) fn();
      this.next(t);
    });
  }

  private base(t: Transaction) {
    return { transactionId: t.transactionId, externalTransactionId: t.externalTransactionId, tenantId: t.tenantId };
  }

  private setStatus(t: Transaction, newStatus: string, message: string): void {
    if (t.status === newStatus) return;
    const oldStatus = t.status;
    t.status = newStatus;
    t.updatedAt = this.ctx.now().toISOString();
    const newStatusMessages = [message];
    t.history.push({ oldStatus, newStatus, newStatusMessages, at: t.updatedAt });
    this.delivery.publish(
      t.tenantId,
      'TransactionStatusChanged',
      { ...this.base(t), oldStatus, newStatus, newStatusMessages },
      t.transactionId,
    );
  }

  private setCompliance(t: Transaction, value: ComplianceStatus): void {
    if (t.complianceStatus === value) return; // emitted only when the value changes
    const old = t.complianceStatus;
    t.complianceStatus = value;
    t.updatedAt = this.ctx.now().toISOString();
    this.delivery.publish(
      t.tenantId,
      'TransactionComplianceStatusChangedEvent',
      { ...this.base(t), oldComplianceStatus: old, newComplianceStatus: value, newStatusMessages: [`Compliance ${value}`] },
      t.transactionId,
    );
  }

  private setPayout(t: Transaction, value: string, amount: Money | null): void {
    if (t.payoutStatus === value) return;
    const old = t.payoutStatus;
    t.payoutStatus = value;
    t.updatedAt = this.ctx.now().toISOString();
    this.delivery.publish(
      t.tenantId,
      'TransactionPayoutStatusChanged',
      {
        ...this.base(t),
        oldPayoutStatus: old,
        newPayoutStatus: value,
        gatewayPaymentId: t.gatewayPaymentId,
        gmtReceipt: null,
        amount: amount ? { total: amount.total, currency: amount.currency } : null,
        newStatusMessages: [`Payout ${value}`],
      },
      t.transactionId,
    );
  }
}
