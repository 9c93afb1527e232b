import type { PrismaClient } from '../../generated/prisma/client';
import type { Clock } from '../../shared/clock';
import type { Logger } from '../../shared/logger';
import type { RemittancesClient } from '../../upstream/remittances/remittances.client';
import { isUpstreamError } from '../../upstream/http/upstream.errors';
import { decimalFromNumber } from '../../shared/decimal';
import type { PlatformChange, PlatformTransactionEvent, TransferEventSink } from './transfer.ports';
import type { TransferRow } from './transfer.repository';

/**
 * Webhooks can be lost (the platform gives up after its retries; an outage outlasts them). A transfer that has
 * waited on the platform with no news reads the transaction's current state from the platform
 * (GET …/fx/transactions/{externalTransactionId}) and feeds it through the same sink as webhooks, with source
 * `reconcile`: facts only move forward, so a reconciliation racing a late webhook is harmless. The answer goes
 * through the same binding checks as a webhook (its transactionId must be the one recorded for the transfer).
 */
export class PlatformReconciler {
  constructor(
    private readonly remittances: RemittancesClient,
    private readonly sink: TransferEventSink,
    private readonly clock: Clock,
    private readonly logger: Logger,
  ) {}

  /** Applies what the platform says now; returns how many facts changed the transfer. */
  async reconcile(t: TransferRow): Promise<number> {
    let tx: Record<string, unknown>;
    try {
      tx = (await this.remittances.getFxTransaction(t.externalPaymentId)) as Record<string, unknown>;
    } catch (e) {
      if (isUpstreamError(e) && e.status === 404) return 0; // the platform has no transaction (yet): nothing to learn
      throw e;
    }
    const str = (v: unknown) => (typeof v === 'string' && v.length > 0 ? v : null);
    // The platform's own transaction id, never one of ours in its place: the sink binds the transfer to it.
    const transactionId = str(tx.transactionId) ?? t.externalTransactionId;
    if (!transactionId) return 0;
    const changes: PlatformChange[] = [];
    const compliance = str(tx.complianceStatus);
    if (compliance) changes.push({ type: 'compliance', oldStatus: null, newStatus: compliance });
    const payout = str(tx.payoutStatus);
    if (payout)
      changes.push({
        type: 'payout',
        oldStatus: null,
        newStatus: payout,
        gatewayPaymentId: str(tx.gatewayPaymentId),
        amount: money(tx.amount),
      });
    const status = str(tx.status);
    if (status) changes.push({ type: 'status', oldStatus: null, newStatus: status });
    let applied = 0;
    for (const change of changes) {
      const event: PlatformTransactionEvent = {
        source: { kind: 'reconcile' },
        transactionId,
        externalTransactionId: str(tx.externalTransactionId) ?? t.externalPaymentId,
        tenantId: str(tx.tenantId),
        occurredAt: this.clock.now(),
        change,
        messages: [],
      };
      const out = await this.sink.applyPlatformEvent(event);
      if (out.applied) applied++;
    }
    if (applied) this.logger.info({ transferId: t.id, applied }, 'reconciled with the platform (a webhook was late or lost)');
    return applied;
  }
}

function money(v: unknown): { total: string; currency: string } | null {
  if (!v || typeof v !== 'object') return null;
  const m = v as { total?: unknown; currency?: unknown };
  if (typeof m.total !== 'number' || typeof m.currency !== 'string') return null;
  return { total: decimalFromNumber(m.total), currency: m.currency };
}

/**
 * Waiting on the platform (compliance, payout): when it has been quiet for `afterMs`, ask the platform (a
 * webhook may have been lost). Returns 'again' when that changed the transfer, else when to look next: after as
 * long as it has been quiet (at least afterMs, at most an hour), or `cap` if sooner. No reconciler, or afterMs
 * absent/0: never asks (next look at `cap`).
 */
export async function reconcileIfQuiet(
  deps: {
    prisma: PrismaClient;
    clock: Clock;
    logger: Logger;
    reconciler: { reconcile(t: TransferRow): Promise<number> } | null;
    afterMs: number;
  },
  t: TransferRow,
  cap: number | null,
  changedAt?: number,
): Promise<'again' | Date | null> {
  const { reconciler, afterMs: after } = deps;
  if (!reconciler || after <= 0) return cap === null ? null : new Date(cap);
  const now = deps.clock.nowMs();
  // The last change is no earlier than what the row (and the caller) know of: while that is recent, the transfer
  // cannot have been quiet long enough — look again when it could have been, without reading the audit trail.
  const since = Math.max(t.createdAt.getTime(), t.updatedAt.getTime(), t.authorizedAt?.getTime() ?? 0, changedAt ?? 0);
  if (now - since < after) return new Date(cap === null ? since + after : Math.min(cap, since + after));
  // Quiet since the last recorded change (the audit trail; updated_at also moves with mere rescheduling).
  const last = await deps.prisma.transferEvent.findFirst({ where: { transferId: t.id }, orderBy: { seq: 'desc' }, select: { at: true } });
  const quietFor = now - (last?.at ?? t.createdAt).getTime();
  if (quietFor < after) {
    const due = now + (after - quietFor);
    return new Date(cap === null ? due : Math.min(cap, due));
  }
  try {
    if ((await reconciler.reconcile(t)) > 0) return 'again';
  } catch (err) {
    deps.logger.warn(
      { transferId: t.id, err: { message: (err as Error).message } },
      'reconciling with the platform failed; will try again',
    );
  }
  const next = now + Math.min(quietFor, 3600_000);
  return new Date(cap === null ? next : Math.min(cap, next));
}
