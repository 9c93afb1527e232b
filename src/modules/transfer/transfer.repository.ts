import { Prisma, type Person, type PrismaClient, type Quote, type Transfer } from '../../generated/prisma/client';
import { canonicalJson } from '../../shared/json';
import { prismaRawSql, type RawSql } from '../../db/raw-sql';
import { modelColumns, modelFromSql } from '../../db/sql-rows';
import type { PubSub } from '../../events/pubsub';
import type { Clock } from '../../shared/clock';
import type { Logger } from '../../shared/logger';
import { allTransfersTopic, ownerTransfersTopic, transferTopic, type DeliveryReceipt, type TransferChangedMessage } from './transfer.ports';
import { patchAssignments, transferColumns, transferFromSql, transferStateColumns } from './transfer.rows.repository';
import { CREATED_SHOWN, shownAfter, shownOf, type Shown } from './transfer.shown';
import { isTerminal, refusal, type Cause, type TransferStatus } from './transfer.states';

export type TransferRow = Transfer;

const personColumns = modelColumns(Prisma.PersonScalarFieldEnum);
const quoteColumns = modelColumns(Prisma.QuoteScalarFieldEnum);

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
    | 'refundedAmount'
    | 'cancelRequestedAt'
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
   * writers of such rows that take the same lock — TransferSaga.recordIntent — are then ordered with this change);
   * null when deciding on an unlocked snapshot (see transition): a decision that needs such a read answers `{ lock: true }`.
   */
  decide?: (row: TransferRow, tx: Prisma.TransactionClient | null) => Decision | Promise<Decision>;
  /**
   * Another write recorded with the change, in the same statement — once, whether the change is written or not
   * (refused, skipped): a data-modifying SQL statement (… RETURNING 1), e.g. the result of the saga step the change
   * follows from (TransferSaga: a step's result and the move it calls for are one write).
   */
  sideWrite?: Prisma.Sql;
}

export type Decision =
  | { to?: TransferStatus; patch?: TransferPatch; detail?: Record<string, unknown> }
  | { skip: string }
  /** Only without a transaction (a snapshot): this decision needs the row lock — decide again on the locked row. */
  | { lock: true };

/** What a change comes to on one row (transition: decided on a snapshot or on the locked row). */
type Plan =
  | { kind: 'apply'; from: TransferStatus; to: TransferStatus; patch: TransferPatch; detail?: Record<string, unknown>; shown: Shown | null }
  | { kind: 'skip'; reason: string }
  | { kind: 'refuse'; to: TransferStatus; reason: string; detail?: Record<string, unknown> }
  | { kind: 'lock' };

export type ChangeResult =
  /** `shown`: the change moved what an app shows (version + 1, published); else it is in the audit trail only. */
  | { ok: true; transfer: TransferRow; changed: true; shown: boolean }
  | { ok: false; transfer: TransferRow; reason: string; kind: 'refused' | 'conflict' | 'skipped' };

/** A transition patch that is also a "run now" request (next_run_at only ever earlier: not later than `now`; wake_seq + 1). See Scheduling. */
export const WAKE = (now: Date) => ({ nextRunAt: now, wakeSeq: { increment: 1 } }) as const;

/** What a change may still set on a terminal transfer: its scheduling, and what was refunded. */
const TERMINAL_PATCHABLE = new Set(['nextRunAt', 'wakeSeq', 'refundedAmount']);

/** Compared as canonical JSON (sorted keys): one side may be read back from jsonb, the other built here. */
const sameShown = (a: Shown, b: Shown) => canonicalJson(a) === canonicalJson(b);

/**
 * The only code that writes a transfer's status. Each change is checked against the transition table
 * (transfer.states.ts) on the row it applies to and written as ONE statement: UPDATE … WHERE id AND event_seq (the
 * row as it was decided on) RETURNING the row, with the audit event (seq = new eventSeq) in the same statement.
 * Decided on the caller's snapshot when it still holds (transition with a snapshot), else on the row read under its
 * lock (SELECT … FOR UPDATE, then the write: one transaction). A refused transition is recorded in
 * transfer_refusals and changes nothing. (PlatformFacts records a mere fact in one statement of its own with the
 * same effects: eventSeq + 1 and its audit event, nothing shown.)
 *
 * Two counters: `eventSeq` counts every recorded change (the audit trail, the saga's optimistic checks);
 * `version` counts the changes an app shows (transfer.shown.ts) and only those move `version` and `updatedAt`, carry their
 * version and what was shown in their audit event, and are published — on transferTopic(id),
 * ownerTransfersTopic(owner) and allTransfersTopic; the message only wakes subscribers, which read what changed
 * from the database. A platform fact that changes nothing shown is recorded, not published.
 */
export class TransferRepository {
  constructor(
    private readonly prisma: PrismaClient,
    /** The transfer tables' raw statements outside transactions (db.sql); leases, steps and facts use it too. */
    readonly sql: RawSql,
    private readonly pubsub: PubSub,
    private readonly clock: Clock,
    private readonly logger: Logger,
  ) {}

  async get(id: string): Promise<TransferRow | null> {
    return this.prisma.transfer.findUnique({ where: { id } });
  }

  /** Several transfers by id, in one query (those that exist, in no particular order). */
  getMany(ids: readonly string[]): Promise<TransferRow[]> {
    return this.prisma.transfer.findMany({ where: { id: { in: [...ids] } } });
  }

  /**
   * A new transfer, in one statement: claim the quote (still unused), insert the transfer PENDING (version 1) and its
   * first event, and complete the request's idempotency record with its answer (`complete`, given the condition "the
   * transfer was written") — all or nothing. A card check reused from the customer's own must still be the card's
   * latest (`approvedCheckStillLatest`): otherwise the reuse is taken out of the details and the saga checks the card
   * again. Null: the quote was claimed meanwhile.
   */
  async insertCreated(n: {
    id: string;
    ownerId: string;
    quote: Quote & { sourceAmount: Prisma.Decimal };
    personId: string;
    receiveAmount: string;
    fundingType: string;
    destinationCountry: string;
    details: object;
    approvedCheckStillLatest: Prisma.Sql | null;
    searchTerms: string[];
    now: Date;
    complete: (written: Prisma.Sql) => Prisma.Sql;
  }): Promise<TransferRow | null> {
    const { id, quote, now } = n;
    const details = JSON.stringify(n.details);
    const detailsSql = n.approvedCheckStillLatest
      ? Prisma.sql`${details}::jsonb #- (CASE WHEN ${n.approvedCheckStillLatest} THEN '{}' ELSE '{funding,approvedCheckAt}' END)::text[]`
      : Prisma.sql`${details}::jsonb`;
    const [raw] = await this.sql.query`
      WITH q AS (
        UPDATE quotes SET used_by_transfer_id = ${id} WHERE id = ${quote.id} AND used_by_transfer_id IS NULL RETURNING id
      ), t AS (
        INSERT INTO transfers (id, owner_id, status, version, event_seq, quote_id, person_id, send_amount, send_currency,
                               receive_amount, receive_currency, rate, fee_amount, delivery_earliest, delivery_latest,
                               external_payment_id, funding_type, destination_country, details, search_terms,
                               next_run_at, created_at, updated_at)
        SELECT ${id}, ${n.ownerId}, 'PENDING'::transfer_status, 1, 1, q.id, ${n.personId}, ${quote.sourceAmount.toString()}::numeric,
               ${quote.sourceCurrency}, ${n.receiveAmount}::numeric, ${quote.destinationCurrency}, ${quote.rate.toString()}::numeric,
               ${(quote.feeAmount ?? 0).toString()}::numeric, ${quote.deliveryEarliest}::timestamptz, ${quote.deliveryLatest}::timestamptz,
               ${id}, ${n.fundingType}, ${n.destinationCountry}, ${detailsSql},
               ${n.searchTerms}::text[], ${now}::timestamptz, ${now}::timestamptz, ${now}::timestamptz
        FROM q
        RETURNING ${transferColumns()}
      ), e AS (
        INSERT INTO transfer_events (id, transfer_id, seq, version, shown, from_status, to_status, cause, actor, detail, at)
        SELECT gen_random_uuid()::text, t.id, 1, 1, ${JSON.stringify(CREATED_SHOWN)}::jsonb, NULL::transfer_status, 'PENDING'::transfer_status, 'mutation', ${n.ownerId},
               ${JSON.stringify({ action: 'createTransfer' })}::jsonb, ${now}::timestamptz
        FROM t
        RETURNING 1
      ), d AS (${n.complete(Prisma.sql`EXISTS (SELECT 1 FROM t)`)})
      SELECT * FROM t`;
    return raw ? transferFromSql(raw) : null;
  }

  /**
   * What createTransfer is decided on: its quote and its sender, in one statement — each only if `ownerId` owns it
   * (null otherwise, as when there is no such row: another customer's person is never read).
   */
  async creationInputs(ownerId: string, quoteId: string, personId: string): Promise<{ quote: Quote | null; person: Person | null }> {
    const [raw] = await this.sql.query`
      SELECT ${quoteColumns('q', 'q__')}, ${personColumns('p', 'p__')}
      FROM (SELECT 1) AS one
      LEFT JOIN quotes q ON q.id = ${quoteId} AND q.owner_id = ${ownerId}
      LEFT JOIN persons p ON p.id = ${personId} AND p.owner_id = ${ownerId}`;
    return {
      quote: raw?.q__id == null ? null : modelFromSql<Quote>(raw, 'q__'),
      person: raw?.p__id == null ? null : modelFromSql<Person>(raw, 'p__'),
    };
  }

  /** The owner of transfer `id`, or null when there is none. */
  async ownerOf(id: string): Promise<string | null> {
    const [row] = await this.sql.query<{ owner_id: string }>`SELECT owner_id FROM transfers WHERE id = ${id}`;
    return row?.owner_id ?? null;
  }

  /** Transfers (of one owner, or all) whose shown state changed at or after `since` (updatedAt), oldest change first; at most `limit`. */
  async changedSince(owner: string | null, since: Date, limit: number): Promise<TransferRow[]> {
    return this.prisma.transfer.findMany({
      where: { updatedAt: { gte: since }, ...(owner ? { ownerId: owner } : {}) },
      orderBy: [{ updatedAt: 'asc' }, { id: 'asc' }],
      take: limit,
    });
  }

  /**
   * Records a change (see the class comment). With `snapshot` — the row as the caller read it, without a lock — the
   * change is decided on it and written in ONE statement, on condition that nothing was recorded since (event_seq
   * unchanged): then the decision was taken on exactly the row it applies to. Should anything have been recorded
   * meanwhile, the table or the guard refuse it, or `decide` need the lock (it answers `{ lock: true }` when called
   * without a transaction), the change takes the locked path: lock and read the row, decide, write (two statements
   * in one transaction). `snapshot` is only for changes whose decision may be taken on a stale row when nothing was
   * recorded since (a skip decided on it must stay right later: facts only move forward).
   */
  async transition(request: ChangeRequest, snapshot?: TransferRow): Promise<ChangeResult> {
    const at = this.clock.now();
    let sideWrite = request.sideWrite ?? null; // written once: cleared once it was
    if (snapshot && (request.expectedSeq === undefined || request.expectedSeq === snapshot.eventSeq)) {
      const plan = await this.plan(snapshot, request, null);
      if (plan.kind === 'skip') {
        if (sideWrite) await this.sql.query`WITH a AS (${sideWrite}) SELECT count(*)::int AS n FROM a`;
        return { ok: false, transfer: snapshot, reason: plan.reason, kind: 'skipped' };
      }
      if (plan.kind === 'apply') {
        const { transfer } = await this.writeWith(this.sql, snapshot, plan, request, at, null, sideWrite);
        sideWrite = null;
        if (transfer) return this.committed({ ok: true, transfer, changed: true, shown: plan.shown !== null }, request);
      }
      // refused, needs the lock, or recorded meanwhile: decide again on the locked row
    }
    const result = await this.prisma.$transaction(async (tx): Promise<ChangeResult> => {
      const txSql = prismaRawSql(tx);
      const [raw] = await txSql.query`SELECT ${transferColumns()} FROM transfers WHERE id = ${request.transferId} FOR UPDATE`;
      if (!raw) throw new Error(`transfer ${request.transferId} not found`);
      const row = transferFromSql(raw);
      const conflict = request.expectedSeq !== undefined && row.eventSeq !== request.expectedSeq;
      const plan: Plan = conflict ? { kind: 'skip', reason: 'conflict' } : await this.plan(row, request, tx);
      if (plan.kind !== 'apply' && sideWrite) await txSql.query`WITH a AS (${sideWrite}) SELECT count(*)::int AS n FROM a`;
      if (conflict)
        return { ok: false, transfer: row, reason: `eventSeq ${row.eventSeq} ≠ expected ${request.expectedSeq}`, kind: 'conflict' };
      if (plan.kind === 'skip') return { ok: false, transfer: row, reason: plan.reason, kind: 'skipped' };
      if (plan.kind === 'refuse') {
        await tx.transferRefusal.create({
          data: {
            transferId: row.id,
            fromStatus: row.status,
            toStatus: plan.to,
            cause: request.cause,
            actor: request.actor,
            reason: plan.reason,
            detail: (plan.detail ?? undefined) as Prisma.InputJsonValue | undefined,
            at,
          },
        });
        return { ok: false, transfer: row, reason: plan.reason, kind: 'refused' };
      }
      if (plan.kind === 'lock') throw new Error('decide asked for the lock while holding it');
      // the row is locked: the event_seq condition cannot fail, it is kept as a safeguard
      const { transfer } = await this.writeWith(txSql, row, plan, request, at, null, sideWrite);
      if (!transfer) return { ok: false, transfer: row, reason: 'concurrent update', kind: 'conflict' };
      return { ok: true, transfer, changed: true, shown: plan.shown !== null };
    });
    return this.committed(result, request);
  }

  /**
   * A change decided on `snapshot` and written in ONE statement together with a delivery's inbox row (`receipt`),
   * never on the locked path: `written` says whether the receipt was stored (false: a duplicate delivery), `result`
   * what came of the change — `skipped` (nothing written: the caller stores the receipt with the skip's outcome), the
   * change (the receipt stored processed), or null: it could not be made at once (refused, needs the lock, or recorded
   * meanwhile), the receipt is stored unprocessed and the inbox processor applies it later on the locked path.
   */
  async changeAlong(
    snapshot: TransferRow,
    request: ChangeRequest,
    receipt: DeliveryReceipt,
    opts: { onlyIfApplied?: boolean } = {},
  ): Promise<{ result: ChangeResult | null; written: boolean }> {
    const plan = await this.plan(snapshot, request, null);
    if (plan.kind === 'skip') return { result: { ok: false, transfer: snapshot, reason: plan.reason, kind: 'skipped' }, written: false };
    if (plan.kind !== 'apply' && opts.onlyIfApplied) return { result: null, written: false };
    if (plan.kind !== 'apply') {
      const [r] = await this.sql.query<{ n: number }>`
        WITH r AS (${receipt.insert(Prisma.sql`false`)}) SELECT count(*)::int AS n FROM r`;
      return { result: null, written: (r?.n ?? 0) > 0 };
    }
    const at = this.clock.now();
    const { transfer, receiptStored } = await this.writeWith(this.sql, snapshot, plan, request, at, receipt, null, opts.onlyIfApplied);
    if (!transfer) return { result: null, written: receiptStored };
    return {
      result: await this.committed({ ok: true, transfer, changed: true, shown: plan.shown !== null }, request),
      written: receiptStored,
    };
  }

  /**
   * Told every transfer row a change wrote, as the write returned it (PlatformFacts keeps the latest it saw). Its
   * `details` are those of the row the change was decided on — null when that was PlatformFacts' own remembered row.
   */
  readonly written = new Set<(row: TransferRow) => void>();

  /** After the commit: publish what an app sees, log a refusal. */
  private async committed(result: ChangeResult, req: ChangeRequest): Promise<ChangeResult> {
    if (result.ok) for (const f of this.written) f(result.transfer);
    if (result.ok && result.shown) await this.publish(result.transfer);
    else if (!result.ok && result.kind === 'refused')
      this.logger.warn(
        { transferId: req.transferId, from: result.transfer.status, to: req.to, cause: req.cause, reason: result.reason },
        'transfer transition refused',
      );
    return result;
  }

  /** The change `req` calls for on `row` (tx null: an unlocked snapshot). */
  private async plan(row: TransferRow, req: ChangeRequest, tx: Prisma.TransactionClient | null): Promise<Plan> {
    const from = row.status as TransferStatus;
    let to = req.to;
    let patch = req.patch ?? {};
    let detail = req.detail;
    if (req.decide) {
      const decision = await req.decide(row, tx);
      if ('lock' in decision) return { kind: 'lock' };
      if ('skip' in decision) return { kind: 'skip', reason: decision.skip };
      to = decision.to;
      patch = decision.patch ?? {};
      detail = { ...(req.detail ?? {}), ...(decision.detail ?? {}) };
    }
    const target = to ?? from;
    let reason = refusal(from, target, req.cause);
    // Terminal transfers never change (upstream facts are still recorded by the caller as no-ops) — but for money
    // going back: a refund back-office makes after the end adds to refundedAmount.
    if (!reason && from === target && isTerminal(from) && Object.keys(patch).some((k) => !TERMINAL_PATCHABLE.has(k)))
      reason = `${from} is terminal`;
    reason ??= req.guard?.(row) ?? null;
    if (reason) return tx ? { kind: 'refuse', to: target, reason, detail } : { kind: 'lock' };
    if (isTerminal(target)) patch = { ...patch, nextRunAt: null };
    const before = shownOf(row);
    const after = shownAfter(row, target, patch);
    return { kind: 'apply', from, to: target, patch, detail, shown: sameShown(before, after) ? null : after };
  }

  /**
   * One statement: the row updated (on condition that event_seq is still the one `row` was read at) and returned,
   * with its audit event. Null when the row had moved on.
   */
  /**
   * One statement: the row updated (on condition that event_seq is still the one `row` was read at) and returned,
   * with its audit event (transfer null when the row had moved on) — and, in the same statement, a delivery's inbox
   * row (the change then also conditioned on the receipt's condition; `receiptStored`: whether it was stored) or
   * another write made whatever comes of the change (`sideWrite`).
   */
  private async writeWith(
    sql: RawSql,
    row: TransferRow,
    plan: Extract<Plan, { kind: 'apply' }>,
    req: ChangeRequest,
    at: Date,
    receipt: DeliveryReceipt | null,
    sideWrite: Prisma.Sql | null,
    receiptOnlyIfApplied = false,
  ): Promise<{ transfer: TransferRow | null; receiptStored: boolean }> {
    const sets = [Prisma.sql`status = ${plan.to}::transfer_status`, Prisma.sql`event_seq = event_seq + 1`, ...patchAssignments(plan.patch)];
    // version and updated_at move only with what an app sees
    if (plan.shown) sets.push(Prisma.sql`version = version + 1`, Prisma.sql`updated_at = ${at}::timestamptz`);
    const shownJson = plan.shown ? JSON.stringify(plan.shown) : null;
    const detail = plan.detail === undefined ? null : JSON.stringify(plan.detail);
    const condition = receipt ? Prisma.sql`AND ${receipt.condition}` : Prisma.empty;
    const receiptCte = receipt
      ? Prisma.sql`, r AS (${receipt.insert(Prisma.sql`EXISTS (SELECT 1 FROM u)`, receiptOnlyIfApplied)})`
      : Prisma.empty;
    const sideWriteCte = sideWrite ? Prisma.sql`, a AS (${sideWrite})` : Prisma.empty;
    const [raw] = await sql.query<Record<string, unknown>>`
      WITH u AS (
        UPDATE transfers SET ${Prisma.join(sets)} WHERE id = ${row.id} AND event_seq = ${row.eventSeq} ${condition} RETURNING ${transferStateColumns()}
      ), e AS (
        INSERT INTO transfer_events (id, transfer_id, seq, version, shown, from_status, to_status, cause, actor, upstream_ref, detail, at)
        SELECT gen_random_uuid()::text, u.id, u.event_seq, ${plan.shown ? Prisma.sql`u.version` : Prisma.sql`NULL::int`}, ${shownJson}::jsonb,
               ${plan.from}::transfer_status, ${plan.to}::transfer_status, ${req.cause}::text, ${req.actor}::text,
               ${req.upstreamRef ?? null}::text, ${detail}::jsonb, ${at}::timestamptz
        FROM u
        RETURNING 1
      )${receiptCte}${sideWriteCte}
      SELECT u.*, ${receipt ? Prisma.sql`(SELECT count(*) FROM r)::int` : Prisma.sql`0`} AS _receipts FROM (SELECT 1) AS one LEFT JOIN u ON true`;
    if (!raw || raw.id == null) return { transfer: null, receiptStored: Number(raw?._receipts ?? 0) > 0 };
    const transfer = transferFromSql(raw);
    transfer.details = row.details; // the row's it was decided on: no write changes them
    return { transfer, receiptStored: Number(raw._receipts ?? 0) > 0 };
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
    await this.sql.execute`
      UPDATE transfers SET next_run_at = LEAST(COALESCE(next_run_at, ${now}), ${now}), wake_seq = wake_seq + 1
      WHERE id = ${transferId}`;
  }

  /** "Due by `at` at the latest" from the lease holder itself (an intent it wrote): only ever moves next_run_at earlier. */
  async dueBy(transferId: string, at: Date): Promise<void> {
    await this.sql.execute`UPDATE transfers SET next_run_at = LEAST(COALESCE(next_run_at, ${at}), ${at}) WHERE id = ${transferId}`;
  }

  /**
   * Sets next_run_at (typically later, or null) only if no wake-up arrived since the caller read `wakeSeq`
   * (and, with `owner`, only while that owner still holds the lease). False: a wake-up won, the row stays due.
   */
  async deferIfNoWake(transferId: string, wakeSeq: number, nextRunAt: Date | null, owner?: string): Promise<boolean> {
    const n = owner
      ? await this.sql
          .execute`UPDATE transfers SET next_run_at = ${nextRunAt} WHERE id = ${transferId} AND wake_seq = ${wakeSeq} AND lease_owner = ${owner}`
      : await this.sql.execute`UPDATE transfers SET next_run_at = ${nextRunAt} WHERE id = ${transferId} AND wake_seq = ${wakeSeq}`;
    return n === 1;
  }

  /**
   * Schedules only if nothing was recorded since `eventSeq` / `wakeSeq` were read (else the caller re-evaluates: no
   * lost wake-up). With `releaseOwner`: only while that owner holds the lease, which the same write releases.
   */
  async scheduleIfUnchanged(
    transferId: string,
    eventSeq: number,
    wakeSeq: number,
    nextRunAt: Date | null,
    releaseOwner?: string,
  ): Promise<boolean> {
    const release = releaseOwner ? Prisma.sql`, lease_owner = NULL, lease_until = NULL` : Prisma.empty;
    const held = releaseOwner ? Prisma.sql`AND lease_owner = ${releaseOwner}` : Prisma.empty;
    // …and never while a saga step is unsettled (an intent written after the caller read the state must be run).
    const n = await this.sql.execute`
      UPDATE transfers SET next_run_at = ${nextRunAt}::timestamptz ${release}
      WHERE id = ${transferId} AND event_seq = ${eventSeq} AND wake_seq = ${wakeSeq} ${held}
        AND NOT EXISTS (SELECT 1 FROM saga_steps s WHERE s.transfer_id = ${transferId} AND s.state IN ('PENDING', 'UNKNOWN'))`;
    return n === 1;
  }

  /**
   * The lease holder's last write: releases its lease and sets next_run_at — `nextRunAt` if no wake-up arrived since
   * `wakeSeq` was read (deferIfNoWake), else as it is. False when `owner` no longer held the lease (nothing written).
   */
  async deferAndRelease(transferId: string, wakeSeq: number, nextRunAt: Date | null, owner: string): Promise<boolean> {
    const n = await this.sql.execute`
      UPDATE transfers SET next_run_at = CASE WHEN wake_seq = ${wakeSeq} THEN ${nextRunAt}::timestamptz ELSE next_run_at END,
                           lease_owner = NULL, lease_until = NULL
      WHERE id = ${transferId} AND lease_owner = ${owner}`;
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
