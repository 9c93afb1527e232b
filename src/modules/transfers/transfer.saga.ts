import { randomUUID } from 'node:crypto';
import type { Prisma, PrismaClient, SagaStep } from '../../generated/prisma/client';
import type { Clock } from '../../shared/clock';
import type { Logger } from '../../shared/logger';
import { convert, dec, formatAmount, minorUnits } from '../../shared/money';
import type { GatewayClient } from '../../upstream/gateway/gateway.client';
import type { Payment, PaymentCustomer, PullPushPaymentRequest } from '../../upstream/gateway/gateway.types';
import { isUnknownOutcome, isUpstreamError, type MoneyMovingResult, type UpstreamError } from '../../upstream/http/upstream.errors';
import { accountCheckRequest, cardCheckRequest, evaluateCardCheck } from '../checks/checks.service';
import { alpha3 } from '../../shared/countries';
import type { CrashHook } from './transfer.faults';
import type { TransferRepository, TransferRow, TransferPatch } from './transfer.repository';
import { isTerminal, type Cause, type TransferStatus } from './transfer.states';
import { platformTarget } from './transfer.platform';
import { gatewayPaymentAddress, type PostalAddress } from '../../shared/address';
import type { Sender } from '../kyc/kyc.service';

/**
 * The transfer's details (transfers.details: PII, kept only here and in persons.details): the sender as built
 * from the KYC'd person, the recipient and funding as submitted, and the client's IP as the request came.
 */
export interface TransferDetails {
  /** The customer's address as the service saw the createTransfer request (request.ip, TRUST_PROXY applied). */
  ipAddress: string;
  sender: Sender;
  recipient: {
    customer: { firstName: string; lastName: string; email?: string; phoneNumber?: string; documentNumber?: string; documentType?: string };
    address: PostalAddress;
    destination: { type: 'WALLET' | 'PIX'; walletId?: string; pixKeyType?: string; pixKey?: string };
  };
  funding: { type: 'CARD' | 'BANK_ACCOUNT' | 'ACCOUNT_TOKEN'; cardToken?: string; bankAccount?: { accountType: string; accountNumber: string; routingNumber: string; countryCode: string }; accountToken?: string };
  fxId: string;
  quoteExpiresAt: string;
}

export interface SagaContext {
  cause: Cause;
  actor: string;
  upstreamRef?: string | null;
}

export interface SagaOptions {
  leaseMs: number;
  /** Waiting on the platform this long with no change → read its state from the platform (absent/0 = never). */
  reconcileAfterMs?: number;
  captureWindowMs: number;
  /** Retry delay after a transient failure: min(base × 2^attempts, max). */
  retryBaseMs: number;
  retryMaxMs: number;
}

type StepName = 'check' | 'authorize' | 'capture' | 'void';
/** Money intents are written under the transfer's row lock, ordered with platform events that end an authorization. */
const LOCKED = { whileStatusUnchanged: true } as const;

/** What a settled authorize step keeps (saga_steps.response): enough to re-derive the transfer's move. */
interface AuthorizationOutcome {
  paymentId: string;
  status: string;
  approved: boolean;
  message: string | null;
}

/** Payment states a settled capture/void step can have found (saga_steps.response.status). */
const SETTLED_PAYMENT_STATES = new Set(['CAPTURED', 'VOIDED', 'CANCELLED']);

/** A lease kept alive by TransferSaga.keepLease. */
export interface LeaseHandle {
  /** Set when a renewal found the lease held by someone else (or gone). */
  lost: boolean;
  /** How many renewals succeeded (tests). */
  renewals: number;
  /** Stops renewing (waits for a renewal in flight). */
  stop(): Promise<void>;
}

const stepKey = (t: TransferRow, step: StepName) => (step === 'authorize' ? t.externalPaymentId : `${t.externalPaymentId}:${step}`);
const unsettled = (s: SagaStep | undefined) => s !== undefined && (s.state === 'PENDING' || s.state === 'UNKNOWN');
const errorText = (e: UpstreamError) => `${e.kind}${e.status ? ` ${e.status}` : ''}${e.upstreamCode ? ` ${e.upstreamCode}` : ''}`;

/**
 * The transfer saga: decides the next step from the persisted state (transfer row + saga_steps) and runs it.
 * Exactly-once effects: the intent (step, key) is written before each upstream call; a step left PENDING or
 * UNKNOWN (crash, lost response) is always re-run first, with the same key — the gateway replays a payment
 * by externalPaymentId and answers capture/void repeats with 409 + the payment, which settles the step.
 * Callers must hold the transfer's lease (TransferSaga.withLease / the worker's claim), so one process
 * advances a transfer at a time.
 */
export class TransferSaga {
  constructor(
    private readonly prisma: PrismaClient,
    private readonly repo: TransferRepository,
    private readonly gateway: GatewayClient,
    private readonly clock: Clock,
    private readonly logger: Logger,
    private readonly opts: SagaOptions,
    private readonly crash: CrashHook,
  ) {}

  /** Reads a waiting transfer's state from the platform (set by the module; absent in unit set-ups). */
  reconciler: { reconcile(t: TransferRow): Promise<number> } | null = null;

  /**
   * Waiting on the platform (compliance, payout): when it has been quiet for reconcileAfterMs, ask the platform
   * (a webhook may have been lost). Returns 'again' when that changed the transfer, else when to look next:
   * after as long as it has been quiet (at least reconcileAfterMs, at most an hour), or `cap` if sooner.
   */
  private async reconcileIfQuiet(t: TransferRow, cap: number | null): Promise<'again' | Date | null> {
    const after = this.opts.reconcileAfterMs ?? 0;
    if (!this.reconciler || after <= 0) return cap === null ? null : new Date(cap);
    const now = this.clock.nowMs();
    // Quiet since the last recorded change (the audit trail; updated_at also moves with mere rescheduling).
    const last = await this.prisma.transferEvent.findFirst({ where: { transferId: t.id }, orderBy: { seq: 'desc' }, select: { at: true } });
    const quietFor = now - (last?.at ?? t.createdAt).getTime();
    if (quietFor < after) {
      const due = now + (after - quietFor);
      return new Date(cap === null ? due : Math.min(cap, due));
    }
    try {
      if ((await this.reconciler.reconcile(t)) > 0) return 'again';
    } catch (err) {
      this.logger.warn({ transferId: t.id, err: { message: (err as Error).message } }, 'reconciling with the platform failed; will try again');
    }
    const next = now + Math.min(quietFor, 3600_000);
    return new Date(cap === null ? next : Math.min(cap, next));
  }

  // ── Leases ────────────────────────────────────────────────────────────────────────────────────────

  async acquire(transferId: string, owner: string): Promise<boolean> {
    const now = this.clock.now();
    const until = new Date(now.getTime() + this.opts.leaseMs);
    const n = await this.prisma.$executeRaw`
      UPDATE transfers SET lease_owner = ${owner}, lease_until = ${until}
      WHERE id = ${transferId} AND (lease_until IS NULL OR lease_until < ${now} OR lease_owner = ${owner})`;
    return n === 1;
  }

  async release(transferId: string, owner: string): Promise<void> {
    await this.prisma.$executeRaw`UPDATE transfers SET lease_owner = NULL, lease_until = NULL WHERE id = ${transferId} AND lease_owner = ${owner}`;
  }

  /** Claims up to `limit` due transfers whose lease is free or expired (FOR UPDATE SKIP LOCKED: N workers never collide). */
  async claimDue(owner: string, limit: number): Promise<string[]> {
    return (await this.claimDueWithWakes(owner, limit)).map((r) => r.id);
  }

  /** claimDue, with each transfer's wake_seq at the claim (for backOff). */
  async claimDueWithWakes(owner: string, limit: number): Promise<{ id: string; wakeSeq: number }[]> {
    const now = this.clock.now();
    const until = new Date(now.getTime() + this.opts.leaseMs);
    const rows = await this.prisma.$queryRaw<{ id: string; wake_seq: number }[]>`
      UPDATE transfers SET lease_owner = ${owner}, lease_until = ${until}
      WHERE id IN (
        SELECT id FROM transfers
        WHERE next_run_at IS NOT NULL AND next_run_at <= ${now} AND (lease_until IS NULL OR lease_until < ${now})
        ORDER BY next_run_at
        LIMIT ${limit}
        FOR UPDATE SKIP LOCKED)
      RETURNING id, wake_seq`;
    return rows.map((r) => ({ id: r.id, wakeSeq: Number(r.wake_seq) }));
  }

  /**
   * After an advance failed unexpectedly (e.g. the database): look again in leaseMs — unless a wake-up arrived
   * since the claim (`wakeSeq`), which keeps it due — then release the lease. (Keeping the lease instead would
   * hold every wake-up, e.g. a compliance decision whose kick found the lease taken, until the lease expired.)
   */
  async backOff(transferId: string, owner: string, wakeSeq: number): Promise<void> {
    await this.repo.deferIfNoWake(transferId, wakeSeq, new Date(this.clock.nowMs() + this.opts.leaseMs), owner);
    await this.release(transferId, owner);
  }

  /**
   * Keeps a held lease alive while the saga advances (heartbeat): every leaseMs/3 (real time) lease_until is
   * pushed to clock.now() + leaseMs, as long as `owner` still holds it. A single advance() may outlast the
   * lease (slow upstream calls with retries, a moved clock): without renewal another instance would claim
   * the transfer mid-step. Should a renewal find the lease gone (it expired — e.g. the event loop or the
   * database stalled longer than the lease — and another instance took it), `lost` is set and advance()
   * stops at the next step boundary; the intent rows and per-effect idempotency keys keep even that overlap
   * free of double effects.
   */
  keepLease(transferId: string, owner: string): LeaseHandle {
    const every = Math.max(20, Math.floor(this.opts.leaseMs / 3));
    let renewing: Promise<unknown> = Promise.resolve();
    const handle: LeaseHandle = {
      lost: false,
      renewals: 0,
      stop: async () => {
        clearInterval(timer);
        if (this.leases.get(transferId) === handle) this.leases.delete(transferId);
        await renewing.catch(() => undefined);
      },
    };
    const timer = setInterval(() => {
      renewing = this.renew(transferId, owner).then(
        (held) => {
          if (held) handle.renewals++;
          else if (!handle.lost) {
            handle.lost = true;
            this.logger.warn({ transferId }, 'transfer lease lost while advancing; stopping at the next step boundary');
          }
        },
        (err) => this.logger.warn({ err: { message: (err as Error).message }, transferId }, 'renewing a transfer lease failed; retrying'),
      );
    }, every);
    timer.unref?.();
    this.leases.set(transferId, handle);
    return handle;
  }

  /** Pushes lease_until forward if `owner` still holds the lease. */
  async renew(transferId: string, owner: string): Promise<boolean> {
    const until = new Date(this.clock.nowMs() + this.opts.leaseMs);
    const n = await this.prisma.$executeRaw`UPDATE transfers SET lease_until = ${until} WHERE id = ${transferId} AND lease_owner = ${owner}`;
    return n === 1;
  }

  private readonly leases = new Map<string, LeaseHandle>();

  /** Runs fn holding the lease; waits (polling) up to waitMs for it. Returns null when it could not get it. */
  async withLease<T>(transferId: string, ownerPrefix: string, waitMs: number, fn: () => Promise<T>): Promise<{ value: T } | null> {
    // One token per call: concurrent calls of the same process must exclude each other too (no re-entry).
    const owner = `${ownerPrefix}:${randomUUID()}`;
    const deadline = Date.now() + waitMs;
    let delay = 5;
    while (!(await this.acquire(transferId, owner))) {
      if (Date.now() >= deadline) return null;
      await new Promise((r) => setTimeout(r, delay + Math.random() * delay));
      delay = Math.min(delay * 2, 100);
    }
    const lease = this.keepLease(transferId, owner);
    try {
      return { value: await fn() };
    } finally {
      await lease.stop();
      await this.release(transferId, owner).catch(() => undefined);
    }
  }

  // ── Steps ─────────────────────────────────────────────────────────────────────────────────────────

  private steps(transferId: string): Promise<SagaStep[]> {
    return this.prisma.sagaStep.findMany({ where: { transferId } });
  }

  /** Writes the intent row (idempotent: the (transfer, step) row is unique). */
  async recordIntent(t: TransferRow, step: StepName, request: Record<string, unknown>): Promise<SagaStep>;
  /**
   * …or, with `whileStatusUnchanged`, only if the transfer is still in the status `t` was read in, checked under the
   * transfer's row lock (null otherwise: look again). For the authorization: a compliance rejection counts authorize
   * steps under the same lock (TransferService.applyPlatformEvent), so the two are ordered — either the rejection
   * comes first (REJECTED, no intent is written, no money moves) or it sees the intent (the saga authorizes, then voids).
   */
  async recordIntent(t: TransferRow, step: StepName, request: Record<string, unknown>, opts: { whileStatusUnchanged: true }): Promise<SagaStep | null>;
  async recordIntent(t: TransferRow, step: StepName, request: Record<string, unknown>, opts?: { whileStatusUnchanged: true }): Promise<SagaStep | null> {
    const key = stepKey(t, step);
    const now = this.clock.now();
    const insert = (db: Pick<PrismaClient, '$executeRaw'>) => db.$executeRaw`
      INSERT INTO saga_steps (id, transfer_id, step, idempotency_key, state, attempts, request, created_at, updated_at)
      VALUES (gen_random_uuid()::text, ${t.id}, ${step}, ${key}, 'PENDING', 0, ${JSON.stringify(request)}::jsonb, ${now}, ${now})
      ON CONFLICT (transfer_id, step) DO NOTHING`;
    if (!opts?.whileStatusUnchanged) await insert(this.prisma);
    else {
      const written = await this.prisma.$transaction(async (tx) => {
        const [row] = await tx.$queryRaw<{ status: string }[]>`SELECT status FROM transfers WHERE id = ${t.id} FOR UPDATE`;
        if (row?.status !== t.status) return false;
        await insert(tx);
        return true;
      });
      if (!written) return null;
    }
    // Due at once: should this process die before settling the step, the worker re-runs it once the lease expires.
    // (Only ever earlier; a holder that read the state before cannot defer it: scheduleIfUnchanged checks for it.)
    await this.repo.dueBy(t.id, now);
    return this.prisma.sagaStep.findUniqueOrThrow({ where: { transferId_step: { transferId: t.id, step } } });
  }

  private async settle(s: SagaStep, state: 'SUCCEEDED' | 'FAILED' | 'UNKNOWN' | 'PENDING', response?: Record<string, unknown>, lastError?: string): Promise<void> {
    await this.prisma.sagaStep.update({
      where: { id: s.id },
      data: {
        state,
        attempts: { increment: 1 },
        ...(response ? { response: response as Prisma.InputJsonValue } : {}),
        lastError: lastError ?? null,
        updatedAt: this.clock.now(),
      },
    });
  }

  private async retryLater(t: TransferRow, s: SagaStep, state: 'UNKNOWN' | 'PENDING', why: string): Promise<'wait'> {
    await this.settle(s, state, undefined, why);
    const delay = Math.min(this.opts.retryBaseMs * 2 ** Math.min(s.attempts, 16), this.opts.retryMaxMs);
    // A wake-up that arrived since `t` was read wins: the row stays due and the step is retried at once.
    await this.repo.deferIfNoWake(t.id, t.wakeSeq, new Date(this.clock.nowMs() + delay));
    this.logger.warn({ transferId: t.id, step: s.step, attempts: s.attempts + 1, why }, 'saga step will be retried');
    return 'wait';
  }

  /**
   * Sleep until `at` (null: until an event) — unless the transfer changed or was woken since it was read: then
   * look again (no lost wake-up: see TransferRepository, Scheduling). Nothing to write if `at` is already set:
   * a wake-up since then has moved next_run_at earlier, and it stays so.
   */
  private async waitUntil(t: TransferRow, at: Date | null): Promise<'again' | 'wait'> {
    if ((t.nextRunAt?.getTime() ?? null) === (at?.getTime() ?? null)) return 'wait';
    return (await this.repo.scheduleIfUnchanged(t.id, t.eventSeq, t.wakeSeq, at)) ? 'wait' : 'again';
  }

  private async move(t: TransferRow, to: TransferStatus | undefined, ctx: SagaContext, detail: Record<string, unknown>, patch: TransferPatch = {}, cause?: Cause) {
    return this.repo.transition({ transferId: t.id, to, cause: cause ?? ctx.cause, actor: ctx.actor, upstreamRef: ctx.upstreamRef ?? null, detail, patch, guard: (row) => (row.status === t.status ? null : `status moved to ${row.status}`) });
  }

  /**
   * Advances the transfer as far as it can go now. Loops: each iteration re-reads the state and does one
   * thing; stops when waiting (on the customer, the platform, a retry delay, a timer).
   */
  async advance(transferId: string, ctx: SagaContext): Promise<TransferRow | null> {
    for (let i = 0; i < 12; i++) {
      if (this.leases.get(transferId)?.lost) break; // another instance holds it now: it carries on
      const t = await this.repo.get(transferId);
      if (!t) return null;
      const outcome = await this.step(t, ctx);
      if (outcome === 'wait') return this.repo.get(transferId);
    }
    // Stopped before reaching a wait (iteration cap, or the lease was lost): not done — keep it due.
    await this.repo.dueBy(transferId, this.clock.now());
    return this.repo.get(transferId);
  }

  private async step(t: TransferRow, runCtx: SagaContext): Promise<'again' | 'wait'> {
    const status = t.status as TransferStatus;
    // Before authorization every move is the saga's own (check outcome, authorization): the worker's decision,
    // whoever runs the saga — a platform event's kick included (the table allows none of them to `webhook`; a
    // refused move would leave a settled check unapplied).
    const ctx: SagaContext = (status === 'PENDING' || status === 'ACTION_REQUIRED') && runCtx.cause !== 'worker' ? { ...runCtx, cause: 'worker' } : runCtx;
    if (isTerminal(status)) {
      // A funding check interrupted by the end (e.g. the quote expired while it was being retried) moved no money.
      await this.prisma.sagaStep.updateMany({
        where: { transferId: t.id, step: 'check', state: { in: ['PENDING', 'UNKNOWN'] } },
        data: { state: 'FAILED', lastError: `abandoned: transfer ${status}`, updatedAt: this.clock.now() },
      });
      if (t.nextRunAt) await this.repo.deferIfNoWake(t.id, t.wakeSeq, null);
      return 'wait';
    }
    const steps = new Map((await this.steps(t.id)).map((s) => [s.step, s]));
    const capture = steps.get('capture');
    const voidStep = steps.get('void');
    const authorize = steps.get('authorize');
    const d = t.details as unknown as TransferDetails;
    const now = this.clock.nowMs();

    // 1. Reconcile any money step whose outcome is not settled, before anything else.
    if (unsettled(voidStep)) return this.runVoid(t, voidStep!, ctx);
    if (unsettled(capture)) return this.runCapture(t, capture!, ctx);
    if (unsettled(authorize)) return this.runAuthorize(t, authorize!, ctx);

    switch (status) {
      case 'PENDING':
      case 'ACTION_REQUIRED': {
        if (authorize?.state === 'SUCCEEDED') return this.applyAuthorization(t, authorize.response as unknown as AuthorizationOutcome, ctx);
        if (now > Date.parse(d.quoteExpiresAt)) {
          await this.move(t, 'EXPIRED', ctx, { action: 'watchdog', reason: 'quote expired before authorization' }, {
            failureCode: 'QUOTE_EXPIRED',
            failureMessage: 'The quote expired before the payment was authorized; get a new quote',
            nextAction: null as never,
          }, 'timer');
          return 'again';
        }
        if (status === 'ACTION_REQUIRED') return this.waitUntil(t, new Date(Date.parse(d.quoteExpiresAt) + 1));
        const check = steps.get('check');
        if (d.funding.type !== 'ACCOUNT_TOKEN' && check?.state !== 'SUCCEEDED') return this.runCheck(t, check, ctx);
        // A settled check that did not approve, yet the transfer is still PENDING: its move (→ ACTION_REQUIRED /
        // DECLINED) was lost (crash between the two writes, or refused). Run it again (same key): it applies it.
        if (d.funding.type !== 'ACCOUNT_TOKEN' && (check?.response as { outcome?: string } | null)?.outcome !== 'APPROVED') return this.runCheck(t, check, ctx);
        const intent = await this.recordIntent(t, 'authorize', { externalPaymentId: t.externalPaymentId, fxId: d.fxId }, { whileStatusUnchanged: true });
        if (!intent) return 'again'; // the transfer moved meanwhile (e.g. compliance rejected it): decide anew
        return this.runAuthorize(t, intent, ctx);
      }
      case 'AUTHORIZED': {
        // A settled capture/void whose effect is not on the transfer yet (crash between the two writes): apply it.
        const settled = [capture, voidStep].find((x) => x && SETTLED_PAYMENT_STATES.has(String((x.response as { status?: string } | null)?.status)));
        if (settled) return this.applyPaymentState(t, settled, ctx, String((settled.response as { status: string }).status), settled.step as 'capture' | 'void');
        if (capture?.state === 'SUCCEEDED' || voidStep?.state === 'SUCCEEDED') return 'wait';
        // The platform reported its own void / auto-cancel while nothing of ours was in flight.
        const released = !unsettled(capture) && !unsettled(voidStep) ? platformTarget(status, t) : null;
        if (released) {
          await this.move(t, released.to, ctx, { action: 'platform catch-up', upstreamStatus: t.upstreamTransactionStatus }, {
            ...(released.failureCode ? { failureCode: released.failureCode, failureMessage: released.failureMessage } : {}),
          }, 'webhook');
          return 'again';
        }
        const windowEnds = (t.authorizedAt?.getTime() ?? now) + this.opts.captureWindowMs;
        if (!capture && !voidStep) {
          if (now >= windowEnds) {
            const v = await this.recordIntent(t, 'void', { target: 'EXPIRED', failureCode: 'CAPTURE_WINDOW_EXPIRED', cause: 'timer' }, LOCKED);
            return v ? this.runVoid(t, v, { ...ctx, cause: 'timer' }) : 'again';
          }
          if (t.complianceStatus === 'Approved') {
            const c = await this.recordIntent(t, 'capture', { amount: null, requestedBy: 'compliance Approved' }, LOCKED);
            return c ? this.runCapture(t, c, ctx) : 'again';
          }
          if (t.complianceStatus === 'Rejected') {
            const v = await this.recordIntent(t, 'void', { target: 'VOIDED', failureCode: 'COMPLIANCE_REJECTED', requestedBy: 'compliance Rejected' }, LOCKED);
            return v ? this.runVoid(t, v, ctx) : 'again';
          }
        }
        if (capture?.state === 'FAILED' && !voidStep) {
          // Any failure after authorization releases it.
          const v = await this.recordIntent(t, 'void', { target: 'VOIDED', failureCode: 'CAPTURE_FAILED', requestedBy: 'compensation' }, LOCKED);
          return v ? this.runVoid(t, v, ctx) : 'again';
        }
        const next = await this.reconcileIfQuiet(t, windowEnds);
        return next === 'again' ? 'again' : this.waitUntil(t, next);
      }
      case 'CAPTURED':
      case 'PAYOUT_PENDING': {
        // Platform facts recorded before our own step settled (events arrive in any order): apply them now.
        const target = platformTarget(status, t);
        if (target) {
          await this.move(t, target.to, ctx, { action: 'platform catch-up', upstreamStatus: t.upstreamTransactionStatus, payoutStatus: t.payoutStatus }, {
            ...(target.failureCode ? { failureCode: target.failureCode, failureMessage: target.failureMessage } : {}),
          }, 'webhook');
          return 'again';
        }
        const next = await this.reconcileIfQuiet(t, null);
        return next === 'again' ? 'again' : this.waitUntil(t, next);
      }
      default:
        return this.waitUntil(t, null);
    }
  }

  // ── check ─────────────────────────────────────────────────────────────────────────────────────────

  private async runCheck(t: TransferRow, existing: SagaStep | undefined, ctx: SagaContext): Promise<'again' | 'wait'> {
    const s = existing ?? (await this.recordIntent(t, 'check', { funding: (t.details as unknown as TransferDetails).funding.type }));
    const d = t.details as unknown as TransferDetails;
    this.crash.at('check', 'before');
    try {
      if (d.funding.type === 'CARD') {
        const res = evaluateCardCheck(await this.gateway.checkCard(cardCheckRequest(this.cardHolder(d), d.ipAddress, stepKey(t, 'check'))));
        this.crash.at('check', 'after');
        await this.settle(s, 'SUCCEEDED', { outcome: res.status, reasons: res.reasons, lastFour: res.lastFour });
        if (res.status === 'CHALLENGE') {
          await this.move(t, 'ACTION_REQUIRED', ctx, { action: 'card check', outcome: 'CHALLENGE' }, {
            nextAction: { type: 'THREE_DS_CHALLENGE', redirectUrl: res.redirectUrl },
          });
          return 'again';
        }
        if (res.status === 'FAILED') {
          await this.move(t, 'DECLINED', ctx, { action: 'card check', outcome: 'FAILED', reasons: res.reasons }, {
            failureCode: 'CARD_CHECK_FAILED',
            failureMessage: `The card check failed: ${res.reasons.join(', ')}`,
            nextAction: null as never,
          });
          return 'again';
        }
        if (t.status === 'PENDING' && t.nextAction) await this.move(t, undefined, ctx, { action: 'card check', outcome: 'APPROVED' }, { nextAction: null as never });
        return 'again';
      }
      const res = await this.gateway.checkBankAccount(accountCheckRequest(this.bankHolder(d), d.ipAddress, stepKey(t, 'check')));
      this.crash.at('check', 'after');
      const ok = res.status === 'APPROVED' && res.accountVerification.accountStatus === 'VALID';
      await this.settle(s, 'SUCCEEDED', { outcome: ok ? 'APPROVED' : 'FAILED' });
      if (!ok) {
        await this.move(t, 'DECLINED', ctx, { action: 'account check', outcome: 'DECLINED' }, {
          failureCode: 'ACCOUNT_CHECK_FAILED',
          failureMessage: `The bank account check failed${res.accountVerification.message ? `: ${res.accountVerification.message}` : ''}`,
        });
      }
      return 'again';
    } catch (e) {
      if (isUpstreamError(e) && !e.retryable && e.kind === 'rejected') {
        await this.settle(s, 'FAILED', undefined, errorText(e));
        await this.move(t, 'FAILED', ctx, { action: 'check', error: errorText(e) }, { failureCode: 'CHECK_REJECTED', failureMessage: 'The funding check request was refused upstream' });
        return 'again';
      }
      return this.retryLater(t, s, 'PENDING', isUpstreamError(e) ? errorText(e) : String((e as Error).message));
    }
  }

  private cardHolder(d: TransferDetails) {
    const c = d.sender.customer;
    return {
      cardToken: d.funding.cardToken!,
      sender: {
        firstName: c.firstName,
        lastName: c.lastName,
        email: c.email,
        phoneNumber: c.phoneNumber,
        documents: [{ number: c.documentNumber, type: c.documentType, countryCode: c.countryCode }],
        address: d.sender.address,
      },
    };
  }

  private bankHolder(d: TransferDetails) {
    const c = d.sender.customer;
    const b = d.funding.bankAccount!;
    return {
      holder: {
        firstName: c.firstName,
        lastName: c.lastName,
        email: c.email,
        phoneNumber: c.phoneNumber,
        documents: [{ number: c.documentNumber, type: c.documentType, countryCode: c.countryCode }],
        address: d.sender.address,
      },
      account: { type: 'BANK_ACCOUNT', accountType: b.accountType, accountNumber: b.accountNumber, routingNumber: b.routingNumber, countryCode: b.countryCode },
    };
  }

  // ── authorize ─────────────────────────────────────────────────────────────────────────────────────

  /** The payment body, rebuilt identically on every attempt from the stored details (the gateway checks replays). */
  private paymentRequest(t: TransferRow): PullPushPaymentRequest & { capture: false } {
    const d = t.details as unknown as TransferDetails;
    const customer = (c: TransferDetails['recipient']['customer'], countryCode: string): PaymentCustomer => ({
      firstName: c.firstName,
      lastName: c.lastName,
      phoneNumber: c.phoneNumber ?? '',
      documentNumber: c.documentNumber ?? '',
      documentType: c.documentType ?? '',
      email: c.email ?? '',
      countryCodeAlpha3: alpha3(countryCode),
    });
    const strip = <T extends object>(o: T): T => Object.fromEntries(Object.entries(o).filter(([, v]) => v !== '' && v !== undefined)) as T;
    const address = gatewayPaymentAddress;
    const s = d.sender.customer;
    const f = d.funding;
    const dest = d.recipient.destination;
    return {
      externalPaymentId: t.externalPaymentId,
      ipAddress: d.ipAddress,
      capture: false,
      amount: { total: formatAmount(t.sendAmount, t.sendCurrency), currency: t.sendCurrency },
      recipientAmount: { total: formatAmount(t.receiveAmount, t.receiveCurrency), currency: t.receiveCurrency },
      exchangeRate: dec(t.rate).toFixed(),
      fxId: d.fxId,
      sender: {
        customer: customer(s, s.countryCode),
        customerAddress: address(d.sender.address),
        source:
          f.type === 'CARD'
            ? { type: 'CARD', card: { token: f.cardToken! } }
            : {
                type: 'BANK_ACCOUNT',
                accountType: f.bankAccount!.accountType.toLowerCase(),
                accountNumber: f.bankAccount!.accountNumber,
                routingNumber: f.bankAccount!.routingNumber,
                accountHolder: { type: 'personal', firstName: s.firstName, lastName: s.lastName },
              },
      },
      recipient: {
        customer: strip(customer(d.recipient.customer, d.recipient.address.countryCode)),
        customerAddress: address(d.recipient.address),
        destination: dest.type === 'WALLET' ? { type: 'WALLET', wallet: { walletId: dest.walletId! } } : { type: 'PIX', pix: { keyType: dest.pixKeyType!, key: dest.pixKey! } },
      },
    };
  }

  private async runAuthorize(t: TransferRow, s: SagaStep, ctx: SagaContext): Promise<'again' | 'wait'> {
    const d = t.details as unknown as TransferDetails;
    this.crash.at('authorize', 'before');
    let result: MoneyMovingResult<Payment>;
    try {
      result =
        d.funding.type === 'ACCOUNT_TOKEN'
          ? await this.gateway.createTokenPullPayment({
              externalPaymentId: t.externalPaymentId,
              ipAddress: d.ipAddress,
              capture: false,
              amount: { total: formatAmount(t.sendAmount, t.sendCurrency), currency: t.sendCurrency },
              sender: { firstName: d.sender.customer.firstName, lastName: d.sender.customer.lastName, paymentMethod: { type: 'BANK_DEPOSIT', accountTokenId: d.funding.accountToken! } },
            })
          : await this.gateway.createPayment(this.paymentRequest(t));
    } catch (e) {
      if (isUpstreamError(e) && (e.kind === 'rejected' || e.kind === 'not_found') && !e.retryable) {
        await this.settle(s, 'FAILED', undefined, errorText(e));
        const expired = e.upstreamCode === 'QUOTE_EXPIRED';
        await this.move(t, expired ? 'EXPIRED' : 'FAILED', ctx, { action: 'authorize', error: errorText(e) }, {
          failureCode: expired ? 'QUOTE_EXPIRED' : 'AUTHORIZATION_REJECTED',
          failureMessage: expired ? 'The quote expired before the payment was authorized; get a new quote' : 'The payment request was refused by the gateway',
          nextAction: null as never,
        });
        return 'again';
      }
      return this.retryLater(t, s, 'PENDING', isUpstreamError(e) ? errorText(e) : String((e as Error).message));
    }
    this.crash.at('authorize', 'after');
    if (isUnknownOutcome(result)) return this.retryLater(t, s, 'UNKNOWN', `unknown outcome: ${result.reason}`);
    const p = result.value;
    const outcome: AuthorizationOutcome = { paymentId: p.paymentId, status: p.status, approved: p.approved, message: p.message ?? null };
    await this.settle(s, 'SUCCEEDED', outcome as unknown as Record<string, unknown>);
    return this.applyAuthorization(t, outcome, ctx);
  }

  /**
   * Moves the transfer as a settled authorization says. Called right after settling AND by step() when it finds
   * the authorize step SUCCEEDED while the transfer is still PENDING (a crash between the two writes).
   */
  private async applyAuthorization(t: TransferRow, p: AuthorizationOutcome, ctx: SagaContext): Promise<'again'> {
    if (p.approved && (p.status === 'AUTHORIZED' || p.status === 'CAPTURED')) {
      await this.move(t, 'AUTHORIZED', ctx, { action: 'authorize', paymentStatus: p.status }, {
        authorizedAt: this.clock.now(),
        nextAction: null as never,
        nextRunAt: this.clock.now(),
      });
    } else if (p.status === 'VOIDED' || p.status === 'CANCELLED') {
      // Replay of a payment that was released meanwhile (e.g. after a long outage).
      await this.move(t, 'AUTHORIZED', ctx, { action: 'authorize', paymentStatus: p.status }, { authorizedAt: this.clock.now() });
      await this.recordIntent(t, 'void', { target: p.status === 'VOIDED' ? 'VOIDED' : 'EXPIRED', failureCode: 'AUTHORIZATION_RELEASED' });
    } else {
      await this.move(t, 'DECLINED', ctx, { action: 'authorize', paymentStatus: p.status }, {
        failureCode: 'PAYMENT_DECLINED',
        failureMessage: p.message ? `The payment was declined: ${p.message}` : 'The payment was declined',
        nextAction: null as never,
      });
    }
    return 'again';
  }

  // ── capture ───────────────────────────────────────────────────────────────────────────────────────

  private async runCapture(t: TransferRow, s: SagaStep, ctx: SagaContext): Promise<'again' | 'wait'> {
    if (t.status !== 'AUTHORIZED') {
      // The payment left AUTHORIZED by another route (platform reported void/cancel): nothing to capture.
      await this.settle(s, 'FAILED', undefined, `transfer is ${t.status}`);
      return 'again';
    }
    const req = (s.request ?? {}) as { amount?: string | null; requestedBy?: string; cause?: Cause; actor?: string };
    const amount = req.amount ?? undefined;
    this.crash.at('capture', 'before');
    let result: MoneyMovingResult<Payment>;
    try {
      result = await this.gateway.capturePayment(t.externalPaymentId, amount ? { amount } : {});
    } catch (e) {
      if (isUpstreamError(e)) {
        const payment = (e.details?.payment ?? null) as Payment | null;
        if (e.status === 409 && payment) return this.reconcile(t, s, ctx, payment, 'capture');
        if (!e.retryable && (e.kind === 'rejected' || e.kind === 'not_found')) {
          await this.settle(s, 'FAILED', undefined, errorText(e));
          await this.move(t, undefined, ctx, { action: 'capture', outcome: 'refused', error: errorText(e) });
          return 'again'; // AUTHORIZED + failed capture → compensation (void)
        }
        return this.retryLater(t, s, 'PENDING', errorText(e));
      }
      return this.retryLater(t, s, 'PENDING', String((e as Error).message));
    }
    this.crash.at('capture', 'after');
    if (isUnknownOutcome(result)) return this.retryLater(t, s, 'UNKNOWN', `unknown outcome: ${result.reason}`);
    return this.reconcile(t, s, ctx, result.value, 'capture');
  }

  // ── void ──────────────────────────────────────────────────────────────────────────────────────────

  private async runVoid(t: TransferRow, s: SagaStep, ctx: SagaContext): Promise<'again' | 'wait'> {
    if (t.status !== 'AUTHORIZED') {
      if (isTerminal(t.status as TransferStatus) || t.status === 'CAPTURED' || t.status === 'PAYOUT_PENDING') {
        await this.settle(s, 'FAILED', undefined, `transfer is ${t.status}`);
        return 'again';
      }
      // PENDING with an authorization just replayed as released: record AUTHORIZED first (runAuthorize does).
    }
    this.crash.at('void', 'before');
    let result: MoneyMovingResult<Payment>;
    try {
      result = await this.gateway.voidPayment(t.externalPaymentId);
    } catch (e) {
      if (isUpstreamError(e)) {
        const payment = (e.details?.payment ?? null) as Payment | null;
        if (e.status === 409 && payment) return this.reconcile(t, s, ctx, payment, 'void');
        if (e.status === 404) {
          // The gateway has no such payment: there is nothing to release.
          return this.reconcile(t, s, ctx, { status: 'VOIDED' } as Payment, 'void');
        }
        // Retried until confirmed (the gateway's 7-day auto-cancel is the backstop).
        return this.retryLater(t, s, 'PENDING', errorText(e));
      }
      return this.retryLater(t, s, 'PENDING', String((e as Error).message));
    }
    this.crash.at('void', 'after');
    if (isUnknownOutcome(result)) return this.retryLater(t, s, 'UNKNOWN', `unknown outcome: ${result.reason}`);
    return this.reconcile(t, s, ctx, result.value, 'void');
  }

  /** Applies where the payment stands (a 2xx answer, or the payment a 409 carries) to the step and the transfer. */
  private async reconcile(t: TransferRow, s: SagaStep, ctx: SagaContext, p: Payment, step: 'capture' | 'void'): Promise<'again'> {
    switch (p.status) {
      case 'CAPTURED':
        await this.settle(s, step === 'capture' ? 'SUCCEEDED' : 'FAILED', { status: p.status }, step === 'void' ? 'payment already captured' : undefined);
        break;
      case 'VOIDED':
      case 'CANCELLED':
        await this.settle(s, step === 'void' ? 'SUCCEEDED' : 'FAILED', { status: p.status });
        break;
      default:
        await this.settle(s, 'FAILED', { status: p.status }, `unexpected payment status ${p.status}`);
        this.logger.error({ transferId: t.id, step, paymentStatus: p.status }, 'unexpected payment status while reconciling');
        return 'again';
    }
    return this.applyPaymentState(t, s, ctx, p.status, step);
  }

  /**
   * Moves the transfer to where a settled capture/void step found the payment. Called right after settling AND
   * by step() when it finds such a step while the transfer is still AUTHORIZED (a crash between the two writes).
   */
  private async applyPaymentState(t: TransferRow, s: SagaStep, ctx: SagaContext, paymentStatus: string, step: 'capture' | 'void'): Promise<'again'> {
    const req = (s.request ?? {}) as { amount?: string | null; target?: TransferStatus; failureCode?: string; requestedBy?: string };
    const detail = { action: step, paymentStatus, requestedBy: req.requestedBy ?? null };
    if (paymentStatus === 'CAPTURED') {
      const captured = req.amount ?? formatAmount(t.sendAmount, t.sendCurrency);
      // next_run_at is left as it is: the next iteration decides when to look again, from the state after the move.
      await this.move(t, 'CAPTURED', ctx, { ...detail, amount: captured }, { capturedAmount: captured });
    } else if (paymentStatus === 'VOIDED' || paymentStatus === 'CANCELLED') {
      const target: TransferStatus = paymentStatus === 'CANCELLED' ? 'EXPIRED' : step === 'void' ? (req.target ?? 'VOIDED') : 'VOIDED';
      const code = paymentStatus === 'CANCELLED' ? 'AUTHORIZATION_CANCELLED' : req.failureCode;
      await this.move(t, target, ctx, detail, {
        ...(code ? { failureCode: code, failureMessage: failureMessage(code) } : {}),
      }, target === 'EXPIRED' && ctx.cause === 'mutation' ? 'worker' : undefined);
    }
    return 'again';
  }
}

export function failureMessage(code: string): string {
  switch (code) {
    case 'COMPLIANCE_REJECTED':
      return 'Compliance review rejected the transfer; the authorization was released';
    case 'CAPTURE_WINDOW_EXPIRED':
      return 'The authorization was not captured in time and was released';
    case 'AUTHORIZATION_CANCELLED':
      return 'The gateway cancelled the uncaptured authorization';
    case 'CAPTURE_FAILED':
      return 'The capture failed; the authorization was released';
    case 'VOIDED_BY_REQUEST':
      return 'The transfer was cancelled before capture';
    default:
      return 'The authorization was released';
  }
}

export const _internals = { stepKey, minorUnits, convert };
