import type { Prisma, PrismaClient, Transfer } from '../../generated/prisma/client';
import type { PubSub } from '../../events/pubsub';
import type { Clock } from '../../shared/clock';
import type { Logger } from '../../shared/logger';
import { allTransfersTopic, ownerTransfersTopic, transferTopic, type TransferChangedMessage } from './transfer.ports';
import { isTerminal, refusal, type Cause, type TransferStatus } from './transfer.states';

export type TransferRow = Transfer;

/** Fields a change may set together with (or without) a status change. Never `status` / `version` / `eventSeq`. (`nextRunAt` only earlier: see Scheduling.) */
export type TransferPatch = Partial<
  Pick<
    Prisma.TransferUncheckedUpdateInput,
    | 'nextAction'
    | 'failureCode'
    | 'failureMessage'
    | 'upstreamTransactionStatus'
    | 'complianceStatus'
    | 'payoutStatus'
    | 'capturedAmount'
    | 'authorizedAt'
    | 'externalTransactionId'
    | 'nextRunAt'
    | 'wakeSeq'
  >
>;

export interface ChangeRequest {
  transferId: string;
  /** Target status; omitted = no status change (a recorded change of other fields: +1 eventSeq, +1 version only if an app shows it). */
  to?: TransferStatus;
  cause: Cause;
  /** Who: a user id, "worker", "webhook", "timer". */
  actor: string;
  upstreamRef?: string | null;
  /** Safe, non-PII detail for the audit trail (e.g. { action: 'capture', amount: '10.00' }). */
  detail?: Record<string, unknown>;
  patch?: TransferPatch;
  /** Optimistic check: refuse (conflict) unless the row is still at this eventSeq (no change recorded since it was read). */
  expectedSeq?: number;
  /** Extra precondition evaluated on the locked row; a string refuses the change (recorded, like the table's). */
  guard?: (row: TransferRow) => string | null;
  /**
   * Decides the change from the LOCKED row, for changes that depend on current state (a platform fact whose
   * meaning depends on where the saga is). Returns the target and patch (overriding `to` / `patch`), or a
   * reason to skip: then nothing is written and nothing is recorded (the caller's input was simply stale).
   * `tx` reads related rows inside the same transaction, under the row lock (e.g. whether a saga step exists:
   * writers of such rows that take the same lock — TransferSaga.recordIntent — are then ordered with this change).
   */
  decide?: (row: TransferRow, tx: Prisma.TransactionClient) => Decision | Promise<Decision>;
}

export type Decision = { to?: TransferStatus; patch?: TransferPatch; detail?: Record<string, unknown> } | { skip: string };

export type ChangeResult =
  /** `shown`: the change moved what an app shows (version + 1, published); else it is in the audit trail only. */
  | { ok: true; transfer: TransferRow; changed: true; shown: boolean }
  | { ok: false; transfer: TransferRow; reason: string; kind: 'refused' | 'conflict' | 'skipped' };

/**
 * What an app shows of a transfer and may change after its creation: a change of any of these is a new `version`
 * (the amounts and the rate are fixed at creation). Platform facts (compliance, transaction and payout statuses,
 * the platform transaction id) and scheduling are not: they are recorded in the audit trail only.
 */
export type Shown = {
  status: string;
  nextAction: Prisma.JsonValue | null;
  capturedAmount: string | null;
  failureCode: string | null;
  failureMessage: string | null;
};
export const shownOf = (t: Pick<TransferRow, 'status' | 'nextAction' | 'capturedAmount' | 'failureCode' | 'failureMessage'>): Shown => ({
  status: t.status,
  nextAction: t.nextAction ?? null,
  capturedAmount: t.capturedAmount === null ? null : t.capturedAmount.toFixed(),
  failureCode: t.failureCode,
  failureMessage: t.failureMessage,
});
/** A transition patch that is also a "run now" request (next_run_at only ever earlier: not later than `now`; wake_seq + 1). See Scheduling. */
export const WAKE = (now: Date) => ({ nextRunAt: now, wakeSeq: { increment: 1 } }) as const;

/** Both read back from the database (jsonb keeps one key order), so their JSON texts compare. */
const sameShown = (a: Shown, b: Shown) => JSON.stringify(a) === JSON.stringify(b);

/**
 * The only code that writes a transfer's status. Each change runs in ONE transaction: lock the row, check the
 * transition table (transfer.states.ts), bump eventSeq (optimistic `WHERE id AND event_seq`), append the audit
 * event (seq = new eventSeq). A refused transition is recorded in transfer_refusals and changes nothing.
 *
 * Two counters: `eventSeq` counts every recorded change (the audit trail, the saga's optimistic checks);
 * `version` counts the changes an app shows (Shown) and only those move `version` and `updatedAt`, carry their
 * version and what was shown in their audit event, and are published — on transferTopic(id),
 * ownerTransfersTopic(owner) and allTransfersTopic; the message only wakes subscribers, which read what changed
 * from the database. A platform fact that changes nothing shown is recorded, not published.
 */
export class TransferRepository {
  constructor(
    private readonly prisma: PrismaClient,
    private readonly pubsub: PubSub,
    private readonly clock: Clock,
    private readonly logger: Logger,
  ) {}

  async get(id: string): Promise<TransferRow | null> {
    return this.prisma.transfer.findUnique({ where: { id } });
  }

  /** Transfers (of one owner, or all) whose shown state changed at or after `since` (updatedAt), oldest change first; at most `limit`. */
  async changedSince(owner: string | null, since: Date, limit: number): Promise<TransferRow[]> {
    return this.prisma.transfer.findMany({
      where: { updatedAt: { gte: since }, ...(owner ? { ownerId: owner } : {}) },
      orderBy: [{ updatedAt: 'asc' }, { id: 'asc' }],
      take: limit,
    });
  }

  async transition(request: ChangeRequest): Promise<ChangeResult> {
    let req = request;
    const at = this.clock.now();
    const result = await this.prisma.$transaction(async (tx) => {
      await tx.$executeRaw`SELECT 1 FROM transfers WHERE id = ${req.transferId} FOR UPDATE`;
      const row = await tx.transfer.findUnique({ where: { id: req.transferId } });
      if (!row) throw new Error(`transfer ${req.transferId} not found`);
      const from = row.status as TransferStatus;
      if (req.expectedSeq !== undefined && row.eventSeq !== req.expectedSeq) {
        return {
          ok: false as const,
          transfer: row,
          reason: `eventSeq ${row.eventSeq} ≠ expected ${req.expectedSeq}`,
          kind: 'conflict' as const,
        };
      }
      const decision = await req.decide?.(row, tx);
      if (decision && 'skip' in decision) return { ok: false as const, transfer: row, reason: decision.skip, kind: 'skipped' as const };
      if (decision) req = { ...req, to: decision.to, patch: decision.patch, detail: { ...(req.detail ?? {}), ...(decision.detail ?? {}) } };
      const to = req.to ?? from;
      let reason = refusal(from, to, req.cause);
      if (
        !reason &&
        from === to &&
        isTerminal(from) &&
        req.patch &&
        Object.keys(req.patch).some((k) => k !== 'nextRunAt' && k !== 'wakeSeq')
      ) {
        // Terminal transfers never change (upstream facts are still recorded by the caller as no-ops).
        reason = `${from} is terminal`;
      }
      reason ??= req.guard?.(row) ?? null;
      if (reason) {
        await tx.transferRefusal.create({
          data: {
            transferId: row.id,
            fromStatus: from,
            toStatus: to,
            cause: req.cause,
            actor: req.actor,
            reason,
            detail: (req.detail ?? undefined) as Prisma.InputJsonValue | undefined,
            at,
          },
        });
        return { ok: false as const, transfer: row, reason, kind: 'refused' as const };
      }
      const seq = row.eventSeq + 1;
      // UPDATE … RETURNING (the row is locked: the eventSeq check cannot fail, it is kept as a safeguard);
      // updatedAt stays until we know an app sees the change.
      const [updated] = await tx.transfer.updateManyAndReturn({
        where: { id: row.id, eventSeq: row.eventSeq },
        data: { ...(req.patch ?? {}), status: to, eventSeq: seq, updatedAt: row.updatedAt, ...(isTerminal(to) ? { nextRunAt: null } : {}) },
      });
      if (!updated) return { ok: false as const, transfer: row, reason: 'concurrent update', kind: 'conflict' as const };
      const shown = shownOf(updated);
      const isShown = !sameShown(shownOf(row), shown);
      const transfer = isShown
        ? await tx.transfer.update({ where: { id: row.id }, data: { version: row.version + 1, updatedAt: at } })
        : updated;
      await tx.transferEvent.create({
        data: {
          transferId: row.id,
          seq,
          version: isShown ? transfer.version : null,
          shown: isShown ? (shown satisfies Prisma.InputJsonObject) : undefined,
          fromStatus: from,
          toStatus: to,
          cause: req.cause,
          actor: req.actor,
          upstreamRef: req.upstreamRef ?? null,
          detail: (req.detail ?? undefined) as Prisma.InputJsonValue | undefined,
          at,
        },
      });
      return { ok: true as const, transfer, changed: true as const, shown: isShown };
    });
    if (result.ok && result.shown) await this.publish(result.transfer);
    else if (result.kind === 'refused')
      this.logger.warn(
        { transferId: req.transferId, from: result.transfer.status, to: req.to, cause: req.cause, reason: result.reason },
        'transfer transition refused',
      );
    return result;
  }

  // ── Scheduling ────────────────────────────────────────────────────────────────────────────────────
  //
  // Invariant (no lost wake-up): a "run now" request — a platform decision, a resume, a written intent — is
  // never undone by a decision to wait that was taken before it. Requests only ever pull next_run_at EARLIER
  // (LEAST); a request from outside the lease holder (`wake`) also bumps wake_seq. Every write that pushes
  // next_run_at LATER (or clears it) is conditional on wake_seq being what the writer read together with the
  // state it decided on (`deferIfNoWake`, `scheduleIfUnchanged`): if a wake-up came in between, the write is not
  // made and the row stays due — the saga looks again. There is no unconditional "schedule later" write.
  // Scheduling writes carry no history: no eventSeq / version bump, no event, no publish.

  /**
   * "Run now" from outside the lease holder: next_run_at = LEAST(next_run_at, now) and wake_seq + 1, so that a
   * lease holder that read the row before cannot defer it past this request (see the invariant above).
   */
  async wake(transferId: string, now: Date): Promise<void> {
    await this.prisma.$executeRaw`
      UPDATE transfers SET next_run_at = LEAST(COALESCE(next_run_at, ${now}), ${now}), wake_seq = wake_seq + 1
      WHERE id = ${transferId}`;
  }

  /** "Due by `at` at the latest" from the lease holder itself (an intent it wrote): only ever moves next_run_at earlier. */
  async dueBy(transferId: string, at: Date): Promise<void> {
    await this.prisma.$executeRaw`UPDATE transfers SET next_run_at = LEAST(COALESCE(next_run_at, ${at}), ${at}) WHERE id = ${transferId}`;
  }

  /**
   * Sets next_run_at (typically later, or null) only if no wake-up arrived since the caller read `wakeSeq`
   * (and, with `owner`, only while that owner still holds the lease). False: a wake-up won, the row stays due.
   */
  async deferIfNoWake(transferId: string, wakeSeq: number, nextRunAt: Date | null, owner?: string): Promise<boolean> {
    const n = owner
      ? await this.prisma
          .$executeRaw`UPDATE transfers SET next_run_at = ${nextRunAt} WHERE id = ${transferId} AND wake_seq = ${wakeSeq} AND lease_owner = ${owner}`
      : await this.prisma.$executeRaw`UPDATE transfers SET next_run_at = ${nextRunAt} WHERE id = ${transferId} AND wake_seq = ${wakeSeq}`;
    return n === 1;
  }

  /** Schedules only if nothing was recorded since `eventSeq` / `wakeSeq` were read (else the caller re-evaluates: no lost wake-up). */
  async scheduleIfUnchanged(transferId: string, eventSeq: number, wakeSeq: number, nextRunAt: Date | null): Promise<boolean> {
    // …and never while a saga step is unsettled (an intent written after the caller read the state must be run).
    const n = await this.prisma.$executeRaw`
      UPDATE transfers SET next_run_at = ${nextRunAt}
      WHERE id = ${transferId} AND event_seq = ${eventSeq} AND wake_seq = ${wakeSeq}
        AND NOT EXISTS (SELECT 1 FROM saga_steps s WHERE s.transfer_id = ${transferId} AND s.state IN ('PENDING', 'UNKNOWN'))`;
    return n === 1;
  }

  async publish(t: Pick<TransferRow, 'id' | 'ownerId' | 'version'>): Promise<void> {
    const msg: TransferChangedMessage = { transferId: t.id, ownerId: t.ownerId, version: t.version };
    try {
      await Promise.all([
        this.pubsub.publish(transferTopic(t.id), msg),
        this.pubsub.publish(ownerTransfersTopic(t.ownerId), msg),
        this.pubsub.publish(allTransfersTopic, msg),
      ]);
    } catch (err) {
      // At-most-once by design: subscribers resume from the database.
      this.logger.warn({ err: { message: (err as Error).message }, transferId: t.id }, 'publishing a transfer change failed');
    }
  }
}
