/**
 * The money checker (Jepsen style): an independent history of every effect the sandbox's gateway committed
 * (its own bus events: authorized, declined, captured with the amount, voided, auto-cancelled), the call log,
 * and the service's final view of each transfer. It never trusts the service's word for what happened upstream.
 *
 * Per transfer (externalPaymentId = transfer id): ≤ 1 authorization, ≤ 1 capture, ≤ 1 release, never both a
 * capture and a release; in the call log ≤ 1 capture or void that committed (2xx, or 0 = committed and the
 * answer dropped); no payment for a transfer we do not know; amounts authorized = the transfer's send amount;
 * authorized total = captured + released (voids, auto-cancels, uncaptured rest of partial captures) +
 * still authorized; and the service's status agrees with the gateway: captured ⇔ CAPTURED/PAYOUT_PENDING/
 * COMPLETED (same amount), still authorized ⇔ AUTHORIZED, no authorization left hanging behind any other state.
 * Money back: no refund without a capture; refunds never exceed the capture; each refund id refunds once; the
 * service's refundedAmount is what the gateway refunded; a REFUNDED transfer's refunds sum to what was captured;
 * money taken ends with the recipient (COMPLETED) or back with the sender (REFUNDED), never in FAILED.
 */
import Decimal from 'decimal.js';
import type { SandboxCall, SandboxContext, PaymentFacts } from '@remittance-bff/sandbox';

interface Entry {
  amount: Decimal;
  currency: string;
  authorized: number;
  declined: number;
  captured: Decimal[];
  voided: number;
  cancelled: number;
  /** Refunds committed, by externalRefundId (a second one under the same id would be a double refund). */
  refunds: Map<string, Decimal[]>;
}

export interface TransferView {
  id: string;
  status: string;
  sendAmount: { amount: string; currency: string };
  fee: { amount: string; currency: string };
  total: { amount: string; currency: string };
  capturedAmount: { amount: string; currency: string } | null;
  refundedAmount?: { amount: string; currency: string } | null;
  version?: number;
}

export interface MoneyFigures {
  payments: number;
  authorized: string;
  captured: string;
  released: string;
  stillAuthorized: string;
  refunded: string;
}

export class PaymentLedger {
  readonly byKey = new Map<string, Entry>();
  private readonly off: (() => void)[] = [];

  constructor(ctx: SandboxContext) {
    const entry = (f: PaymentFacts): Entry => {
      let e = this.byKey.get(f.externalPaymentId);
      if (!e) {
        e = {
          amount: new Decimal(f.amount.total),
          currency: f.amount.currency,
          authorized: 0,
          declined: 0,
          captured: [],
          voided: 0,
          cancelled: 0,
          refunds: new Map(),
        };
        this.byKey.set(f.externalPaymentId, e);
      }
      return e;
    };
    const on = <
      K extends
        'payment.authorized' | 'payment.declined' | 'payment.captured' | 'payment.voided' | 'payment.cancelled' | 'payment.refunded',
    >(
      name: K,
      fn: (f: PaymentFacts & { capturedAmount?: number; refundAmount?: number; externalRefundId?: string }) => void,
    ) => {
      ctx.bus.on(name, fn as never);
      this.off.push(() => ctx.bus.off(name, fn as never));
    };
    on('payment.authorized', (f) => entry(f).authorized++);
    on('payment.declined', (f) => entry(f).declined++);
    on('payment.captured', (f) => entry(f).captured.push(new Decimal(f.capturedAmount!)));
    on('payment.voided', (f) => entry(f).voided++);
    on('payment.cancelled', (f) => entry(f).cancelled++);
    on('payment.refunded', (f) => {
      const refunds = entry(f).refunds;
      refunds.set(f.externalRefundId!, [...(refunds.get(f.externalRefundId!) ?? []), new Decimal(f.refundAmount!)]);
    });
  }

  detach(): void {
    for (const f of this.off.splice(0)) f();
  }

  /** Counts of committed effects (for the scenario's figures). */
  counts() {
    let authorized = 0,
      captured = 0,
      released = 0,
      declined = 0,
      refunds = 0;
    for (const e of this.byKey.values()) {
      authorized += e.authorized;
      captured += e.captured.length;
      released += e.voided + e.cancelled;
      declined += e.declined;
      for (const r of e.refunds.values()) refunds += r.length;
    }
    return { authorized, captured, released, declined, refunds };
  }

  check(calls: SandboxCall[], transfers: TransferView[]): { violations: string[]; figures: MoneyFigures } {
    const v: string[] = [];
    const known = new Map(transfers.map((t) => [t.id, t]));
    let authorized = new Decimal(0),
      captured = new Decimal(0),
      released = new Decimal(0),
      still = new Decimal(0),
      refundedTotal = new Decimal(0);
    for (const [key, e] of this.byKey) {
      const t = known.get(key);
      if (!t) v.push(`payment ${key}: the gateway holds a payment for no transfer we created`);
      if (e.authorized > 1) v.push(`payment ${key}: ${e.authorized} authorizations`);
      if (e.captured.length > 1) v.push(`payment ${key}: ${e.captured.length} captures`);
      if (e.voided + e.cancelled > 1) v.push(`payment ${key}: ${e.voided + e.cancelled} releases`);
      if (e.captured.length > 0 && e.voided + e.cancelled > 0) v.push(`payment ${key}: both captured and released`);
      // money back
      let refunded = new Decimal(0);
      for (const [rid, amounts] of e.refunds) {
        if (amounts.length > 1) v.push(`payment ${key}: refund ${rid} made ${amounts.length} times`);
        for (const a of amounts) refunded = refunded.plus(a);
      }
      refundedTotal = refundedTotal.plus(refunded);
      if (e.refunds.size > 0 && e.captured.length === 0) v.push(`payment ${key}: refunded without a capture`);
      if (e.captured[0] && refunded.gt(e.captured[0])) v.push(`payment ${key}: refunded ${refunded} of a capture of ${e.captured[0]}`);
      if (t) {
        const said = new Decimal(t.refundedAmount?.amount ?? 0);
        if (!said.eq(refunded)) v.push(`transfer ${key}: the gateway refunded ${refunded}, the service says ${said}`);
        if (t.status === 'REFUNDED' && (!e.captured[0] || !refunded.eq(e.captured[0])))
          v.push(`transfer ${key}: REFUNDED but refunds ${refunded} ≠ captured ${e.captured[0] ?? 0}`);
      }
      if (e.authorized === 0) continue;
      authorized = authorized.plus(e.amount);
      const cap = e.captured[0];
      const isReleased = e.voided + e.cancelled > 0;
      if (cap) {
        captured = captured.plus(cap);
        released = released.plus(e.amount.minus(cap)); // a partial capture releases the rest
      } else if (isReleased) released = released.plus(e.amount);
      else still = still.plus(e.amount);
      if (!t) continue;
      // the gateway pulls the total (sendAmount + fee), exactly
      if (!e.amount.eq(t.total.amount) || e.currency !== t.total.currency)
        v.push(`transfer ${key}: authorized ${e.amount} ${e.currency}, total ${t.total.amount} ${t.total.currency}`);
      if (!new Decimal(t.sendAmount.amount).plus(t.fee.amount).eq(t.total.amount))
        v.push(`transfer ${key}: total ${t.total.amount} ≠ sendAmount ${t.sendAmount.amount} + fee ${t.fee.amount}`);
      const gw = cap ? 'captured' : isReleased ? 'released' : 'authorized';
      if (['CAPTURED', 'PAYOUT_PENDING', 'COMPLETED', 'REFUND_PENDING', 'REFUNDED'].includes(t.status)) {
        if (gw !== 'captured') v.push(`transfer ${key}: ${t.status} but the gateway payment is ${gw}`);
        else if (!t.capturedAmount || !cap!.eq(t.capturedAmount.amount))
          v.push(`transfer ${key}: captured ${cap} upstream, service says ${t.capturedAmount?.amount ?? 'nothing'}`);
      } else if (t.status === 'AUTHORIZED') {
        if (gw !== 'authorized') v.push(`transfer ${key}: AUTHORIZED but the gateway payment is ${gw}`);
      } else if (gw === 'authorized') {
        v.push(`transfer ${key}: ${t.status} with its authorization still held at the gateway`);
      } else if (gw === 'captured') {
        // money taken ends with the recipient or back with the sender: never FAILED, VOIDED, …
        v.push(`transfer ${key}: ${t.status} but the gateway captured the payment`);
      }
    }
    for (const t of transfers) {
      const e = this.byKey.get(t.id);
      if ((!e || e.authorized === 0) && ['AUTHORIZED', 'CAPTURED', 'PAYOUT_PENDING', 'COMPLETED'].includes(t.status))
        v.push(`transfer ${t.id}: ${t.status} but the gateway never authorized it`);
    }
    // The call log: committed captures and voids per payment (2xx, or 0 = committed, answer dropped).
    const committed = (c: SandboxCall) => c.status === 0 || (c.status >= 200 && c.status < 300);
    const per = new Map<string, { capture: number; void: number }>();
    for (const c of calls) {
      const m = /^\/gateway\/payments\/([^/]+)\/(capture|void)$/.exec(c.path);
      if (!m || !committed(c)) continue;
      const p = per.get(m[1]!) ?? { capture: 0, void: 0 };
      p[m[2] as 'capture' | 'void']++;
      per.set(m[1]!, p);
    }
    for (const [key, p] of per) {
      if (p.capture > 1) v.push(`call log ${key}: ${p.capture} committed captures`);
      if (p.void > 1) v.push(`call log ${key}: ${p.void} committed voids`);
      if (p.capture > 0 && p.void > 0) v.push(`call log ${key}: committed capture and void`);
    }
    if (!authorized.eq(captured.plus(released).plus(still)))
      v.push(`totals: authorized ${authorized} ≠ captured ${captured} + released ${released} + still authorized ${still}`);
    return {
      violations: v,
      figures: {
        payments: this.byKey.size,
        authorized: authorized.toFixed(2),
        captured: captured.toFixed(2),
        released: released.toFixed(2),
        stillAuthorized: still.toFixed(2),
        refunded: refundedTotal.toFixed(2),
      },
    };
  }
}
