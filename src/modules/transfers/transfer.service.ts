import { createHash, randomUUID } from 'node:crypto';
import type { Prisma, PrismaClient } from '../../generated/prisma/client';
import { isStaff, type Caller } from '../../auth/auth.types';
import type { Clock } from '../../shared/clock';
import { AppError, badInput, forbidden, notFound } from '../../shared/errors';
import { requestHash, type IdempotencyService } from '../../db/idempotency.service';
import type { Logger } from '../../shared/logger';
import type { FundingCredentials } from '../checks/checks.credentials';
import { cardholderNameProblem } from '../checks/checks.service';
import { convert, dec, fitsMinorUnits, formatAmount, sendAmountProblem, type CorridorRule } from '../../shared/money';
import type { ApplyOutcome, PlatformTransactionLookup, PlatformTransactionEvent, TransferEventSink } from './transfer.ports';
import type { Shown, TransferRepository, TransferRow } from './transfer.repository';
import type { SagaContext, TransferDetails, TransferSaga } from './transfer.saga';
import { isTerminal, type TransferStatus } from './transfer.states';
import { payoutRank, platformRank, platformTarget } from './transfer.platform';
import { senderOf } from '../kyc/kyc.service';

export interface CreateTransferArgs {
  idempotencyKey: string;
  quoteId: string;
  personId: string;
  recipient: TransferDetails['recipient'];
  funding: TransferDetails['funding'];
}

export interface ListArgs {
  /** The last row of the previous page (newest-first order), if any. */
  after?: { createdAt: Date; id: string } | null;
  filter?: {
    status?: string[] | null;
    createdFrom?: Date | null;
    createdTo?: Date | null;
    ownerId?: string | null;
    sourceCurrency?: string | null;
    destinationCurrency?: string | null;
    destinationCountry?: string | null;
    minSendAmount?: string | null;
    maxSendAmount?: string | null;
  } | null;
}

export interface TransferServiceOptions {
  /** How long a mutation waits for the transfer's lease (another step in flight) before INVALID_STATE. */
  leaseWaitMs: number;
  /** Corridor rules (TRANSFER_CORRIDORS), checked again at createTransfer: they may have been tightened since the quote. */
  corridors: readonly CorridorRule[];
  /** Confirms a webhook's platform transaction id before it is first linked to a transfer (absent: webhooks never link). */
  platform?: PlatformTransactionLookup;
}

/** What an app sees of a transfer just created (its version 1; see Shown). */
const CREATED_SHOWN: Shown = { status: 'PENDING', nextAction: null, capturedAmount: null, failureCode: null, failureMessage: null };

/** A transition patch that is also a "run now" request (next_run_at only ever earlier: not later than `now`; wake_seq + 1). */
const WAKE = (now: Date) => ({ nextRunAt: now, wakeSeq: { increment: 1 } }) as const;

/** A platform transaction id other than the event's was recorded for this transfer (seen again on the locked row). */
const boundElsewhere = (row: { externalTransactionId: string | null }, e: PlatformTransactionEvent) =>
  row.externalTransactionId !== null && row.externalTransactionId !== e.transactionId;
/** The quote's payment methods that price each funding type (createQuote.paymentMethod must be one of them). */
export const QUOTE_METHODS_FOR_FUNDING: Record<TransferDetails['funding']['type'], readonly string[]> = {
  CARD: ['CARD', 'CREDIT_CARD', 'DEBIT_CARD', 'AFT'],
  BANK_ACCOUNT: ['BANK_ACCOUNT', 'ACH'],
  ACCOUNT_TOKEN: ['BANK_ACCOUNT', 'ACH'],
};

const mismatchOf = (transferId: string): ApplyOutcome => ({ applied: false, transferId, reason: 'mismatch', mismatch: 'transaction_id' });

/** Documented order of the platform's transaction statuses (the happy path, then the side branches). */
const COMPLIANCE = new Set(['Pending', 'Approved', 'Rejected', 'Cancelled', 'Refunded', 'Failed']);
const COMPLIANCE_FINAL = new Set(['Approved', 'Rejected', 'Cancelled', 'Refunded', 'Failed']);

/** UUIDv5 namespace of transfer ids derived from a createTransfer request (fixed forever: changing it changes the ids). */
const TRANSFER_ID_NAMESPACE = '3c1f7a52-9d0e-4b6a-8f2e-5a7c1d9b0e44';

/** RFC 9562 UUIDv5 (SHA-1, name-based) of `name` in `namespace`. */
export function uuidV5(namespace: string, name: string): string {
  const h = createHash('sha1').update(Buffer.from(namespace.replace(/-/g, ''), 'hex')).update(name, 'utf8').digest();
  h[6] = (h[6]! & 0x0f) | 0x50;
  h[8] = (h[8]! & 0x3f) | 0x80;
  const x = h.subarray(0, 16).toString('hex');
  return `${x.slice(0, 8)}-${x.slice(8, 12)}-${x.slice(12, 16)}-${x.slice(16, 20)}-${x.slice(20)}`;
}

/**
 * The id (and externalPaymentId) of the transfer a createTransfer request makes: a function of the caller, the
 * idempotencyKey and the request's arguments (the same hash the idempotency record keeps). A re-run of the same
 * request — e.g. after a crash between the transfer's commit and the idempotency record's completion — finds the
 * transfer it already made instead of failing on the quote it used.
 */
export const createTransferId = (ownerId: string, idempotencyKey: string, args: unknown): string =>
  uuidV5(TRANSFER_ID_NAMESPACE, JSON.stringify([ownerId, idempotencyKey, requestHash(args)]));


/**
 * The transfer use cases (API-facing) and the TransferEventSink the webhook inbox feeds. Money-moving work is
 * done by the saga under the transfer's lease: mutations record their intent and run the saga inline; the
 * worker runs whatever is due (new transfers, retries, watchdogs, crash leftovers).
 */
export class TransferService implements TransferEventSink {
  private readonly owner = `api:${randomUUID()}`;
  /** Called after a transfer needs the worker now (set by the composition root). */
  nudge: () => void = () => undefined;

  constructor(
    private readonly prisma: PrismaClient,
    private readonly repo: TransferRepository,
    private readonly saga: TransferSaga,
    private readonly idempotency: IdempotencyService,
    private readonly credentials: FundingCredentials,
    private readonly clock: Clock,
    private readonly logger: Logger,
    private readonly opts: TransferServiceOptions,
  ) {}

  // ── Reads ─────────────────────────────────────────────────────────────────────────────────────────

  /** A transfer the caller may see: owner, back-office or admin. Anything else is NOT_FOUND (never FORBIDDEN). */
  /** `read`: how the row is read (transfer.subscriptions.ts shares one read between concurrent subscribers). */
  async getVisible(caller: Caller, id: string, read: (id: string) => Promise<TransferRow | null> = (x) => this.repo.get(x)): Promise<TransferRow> {
    const t = /^[0-9a-f-]{36}$/i.test(id) ? await read(id) : null;
    if (!t || (!isStaff(caller) && t.ownerId !== caller.userId)) throw notFound('Transfer');
    return t;
  }

  /** A page of the transfers the caller may see, newest first, after a keyset position (createdAt, id). */
  async list(caller: Caller, args: ListArgs, size: number): Promise<{ rows: TransferRow[]; hasNextPage: boolean }> {
    const where: Prisma.TransferWhereInput = {};
    const and: Prisma.TransferWhereInput[] = [];
    const f = args.filter;
    // owner: staff filter by any owner; a customer always gets its own — naming another owner is FORBIDDEN (not silently ignored).
    if (!isStaff(caller)) {
      if (f?.ownerId && f.ownerId !== caller.userId) throw forbidden('A customer can list only its own transfers');
      where.ownerId = caller.userId;
    } else if (f?.ownerId) where.ownerId = f.ownerId;
    if (f?.status?.length) where.status = { in: f.status as TransferStatus[] };
    if (f?.createdFrom || f?.createdTo) where.createdAt = { ...(f.createdFrom ? { gte: f.createdFrom } : {}), ...(f.createdTo ? { lt: f.createdTo } : {}) };
    // corridor: source currency → destination currency and/or destination country (each optional)
    if (f?.sourceCurrency) where.sendCurrency = f.sourceCurrency.toUpperCase();
    if (f?.destinationCurrency) where.receiveCurrency = f.destinationCurrency.toUpperCase();
    if (f?.destinationCountry) where.destinationCountry = f.destinationCountry.toUpperCase();
    // amount range on sendAmount, inclusive, compared as decimals (in the send currency; combine with sourceCurrency)
    const min = f?.minSendAmount != null ? dec(f.minSendAmount) : null;
    const max = f?.maxSendAmount != null ? dec(f.maxSendAmount) : null;
    if ((min && min.isNegative()) || (max && max.isNegative())) throw badInput('minSendAmount and maxSendAmount must not be negative');
    if (min && max && min.gt(max)) throw badInput('minSendAmount must not be greater than maxSendAmount');
    if (min || max) where.sendAmount = { ...(min ? { gte: min.toFixed() } : {}), ...(max ? { lte: max.toFixed() } : {}) };
    if (args.after) {
      const c = args.after;
      and.push({ OR: [{ createdAt: { lt: c.createdAt } }, { createdAt: c.createdAt, id: { lt: c.id } }] });
    }
    if (and.length) where.AND = and;
    const rows = await this.prisma.transfer.findMany({ where, orderBy: [{ createdAt: 'desc' }, { id: 'desc' }], take: size + 1 });
    return { rows: rows.slice(0, size), hasNextPage: rows.length > size };
  }

  // ── createTransfer ────────────────────────────────────────────────────────────────────────────────

  /** `clientIp`: the customer's address as this request came (not part of the request's identity: a retry may come from another). */
  async create(caller: Caller, args: CreateTransferArgs, clientIp: string): Promise<TransferRow> {
    this.validateParties(args);
    const { idempotencyKey, ...rest } = args;
    const { transferId } = await this.idempotency.run(
      { caller: caller.userId, operation: 'createTransfer', key: idempotencyKey },
      rest,
      async () => ({ transferId: await this.insert(caller, createTransferId(caller.userId, idempotencyKey, rest), args, clientIp) }),
    );
    this.nudge();
    return (await this.repo.get(transferId))!;
  }

  private validateParties(a: CreateTransferArgs): void {
    const f = a.funding;
    if (f.type === 'CARD' && !f.cardToken) throw badInput('funding.cardToken is required for CARD funding');
    if (f.type === 'BANK_ACCOUNT' && !f.bankAccount) throw badInput('funding.bankAccount is required for BANK_ACCOUNT funding');
    if (f.type === 'ACCOUNT_TOKEN' && !f.accountToken) throw badInput('funding.accountToken is required for ACCOUNT_TOKEN funding');
    const d = a.recipient.destination;
    if (d.type === 'WALLET' && !d.walletId) throw badInput('recipient.destination.walletId is required for a WALLET destination');
    if (d.type === 'PIX' && (!d.pixKeyType || !d.pixKey)) throw badInput('recipient.destination.pixKeyType and pixKey are required for a PIX destination');
  }

  /**
   * Inserts the transfer `id` (derived from the request: createTransferId) — or, if this request already made it
   * (a re-run after a crash left its idempotency record unfinished), returns it, before any other check.
   */
  private async insert(caller: Caller, id: string, a: CreateTransferArgs, clientIp: string): Promise<string> {
    const now = this.clock.now();
    return this.prisma.$transaction(async (tx) => {
      const made = async () => {
        const t = await tx.transfer.findUnique({ where: { id }, select: { ownerId: true } });
        return t !== null && t.ownerId === caller.userId;
      };
      if (await made()) return id;
      const quote = await tx.quote.findUnique({ where: { id: a.quoteId } });
      if (!quote || quote.ownerId !== caller.userId) throw notFound('Quote');
      if (quote.usedByTransferId) throw new AppError('QUOTE_ALREADY_USED', 'This quote was already used by another transfer; get a new quote');
      if (quote.expiresAt.getTime() <= now.getTime()) throw new AppError('QUOTE_EXPIRED', 'The quote has expired; get a new quote');
      if (quote.sourceAmount === null) throw badInput('The quote has no sourceAmount; get a quote with the amount to send');
      // The corridor is where the money goes: the recipient's country (a quote priced for another country does not apply)
      const country = a.recipient.address.countryCode.toUpperCase();
      if (quote.destinationCountry && quote.destinationCountry.toUpperCase() !== country)
        throw badInput(`quoteId: the quote was priced for another destination country than recipient.address.countryCode; get a quote with destinationCountry ${country}`, { field: 'quoteId' });
      const amountProblem = sendAmountProblem("The quote's sourceAmount", quote.sourceAmount, { ...quote, destinationCountry: country }, this.opts.corridors);
      if (amountProblem) throw badInput(amountProblem.message, amountProblem.details);
      const methods = QUOTE_METHODS_FOR_FUNDING[a.funding.type];
      if (!methods.includes(quote.paymentMethod))
        throw badInput(`quoteId: the quote was priced for paymentMethod ${quote.paymentMethod}, which does not fund a ${a.funding.type} transfer; get a quote with paymentMethod ${methods.join(' or ')} (or change funding.type)`);
      const person = await tx.person.findUnique({ where: { id: a.personId } });
      if (!person || person.ownerId !== caller.userId) throw notFound('Person');
      if (person.status !== 'APPROVED') throw badInput('The sender person is not APPROVED by KYC');
      const sender = senderOf(person.details);
      if (typeof sender === 'string') throw badInput(`personId: ${sender}`);
      if (a.funding.type === 'CARD') {
        const nameProblem = cardholderNameProblem(sender);
        if (nameProblem) throw badInput(nameProblem, { field: 'personId' });
      }
      // The funding credential must be the caller's own (staff included): bound by the caller's own check.
      if (a.funding.type === 'CARD') await this.credentials.assertUsable(tx, 'card', a.funding.cardToken!, caller.userId);
      if (a.funding.type === 'ACCOUNT_TOKEN') await this.credentials.assertUsable(tx, 'account_token', a.funding.accountToken!, caller.userId);
      const receive = quote.destinationAmount !== null ? formatAmount(quote.destinationAmount, quote.destinationCurrency) : convert(quote.sourceAmount, quote.rate, quote.destinationCurrency);
      const claimed = await tx.quote.updateMany({ where: { id: quote.id, usedByTransferId: null }, data: { usedByTransferId: id } });
      // a duplicate of this very request (one that took over a claim it thought abandoned) may have just committed it
      if (claimed.count !== 1 && (await made())) return id;
      if (claimed.count !== 1) throw new AppError('QUOTE_ALREADY_USED', 'This quote was already used by another transfer; get a new quote');
      const details: TransferDetails = {
        ipAddress: clientIp,
        sender,
        recipient: a.recipient,
        funding: a.funding,
        fxId: quote.fxId,
        quoteExpiresAt: quote.expiresAt.toISOString(),
      };
      await tx.transfer.create({
        data: {
          id,
          ownerId: caller.userId,
          status: 'PENDING',
          version: 1,
          eventSeq: 1,
          quoteId: quote.id,
          personId: person.id,
          sendAmount: quote.sourceAmount,
          sendCurrency: quote.sourceCurrency,
          receiveAmount: receive,
          receiveCurrency: quote.destinationCurrency,
          rate: quote.rate,
          externalPaymentId: id,
          fundingType: a.funding.type.toLowerCase(),
          destinationCountry: a.recipient.address.countryCode.toUpperCase(),
          details: JSON.parse(JSON.stringify(details)) as Prisma.InputJsonValue,
          nextRunAt: now,
          createdAt: now,
          updatedAt: now,
          events: { create: { seq: 1, version: 1, shown: { ...CREATED_SHOWN }, fromStatus: null, toStatus: 'PENDING', cause: 'mutation', actor: caller.userId, detail: { action: 'createTransfer' }, at: now } },
        },
      });
      return id;
    }).then(async (transferId) => {
      const t = await this.repo.get(transferId);
      if (t) await this.repo.publish(t);
      return transferId;
    });
  }

  // ── resume / capture / void ───────────────────────────────────────────────────────────────────────

  private async underLease(t: TransferRow, fn: () => Promise<void>): Promise<void> {
    const r = await this.saga.withLease(t.id, this.owner, this.opts.leaseWaitMs, fn);
    if (!r) throw new AppError('INVALID_STATE', 'The transfer is being processed; retry shortly with the same idempotencyKey');
  }

  /**
   * Whether this very request (caller + operation + idempotencyKey) already took effect on the transfer: its
   * first attempt committed the action, then crashed or timed out before its idempotency record was completed.
   * A retry (same key, same arguments — the record's hash guarantees it) then answers as the first attempt
   * would have: the transfer as it stands, instead of INVALID_STATE. Each action records the key that caused
   * it: resumeTransfer in its audit event's detail, captureTransfer / voidTransfer in their saga step's request.
   */
  private async doneByKey(transferId: string, caller: Caller, action: 'resumeTransfer' | 'captureTransfer' | 'voidTransfer', key: string): Promise<boolean> {
    if (action === 'resumeTransfer') {
      const events = await this.prisma.transferEvent.findMany({ where: { transferId, actor: caller.userId, cause: 'mutation' }, select: { detail: true } });
      return events.some((e) => {
        const d = e.detail as { action?: string; idempotencyKey?: string } | null;
        return d?.action === action && d.idempotencyKey === key;
      });
    }
    const step = await this.prisma.sagaStep.findUnique({ where: { transferId_step: { transferId, step: action === 'captureTransfer' ? 'capture' : 'void' } } });
    const req = (step?.request ?? null) as { requestedBy?: string; idempotencyKey?: string } | null;
    return req?.requestedBy === caller.userId && req.idempotencyKey === key;
  }

  /**
   * The answer to a retry of an action that already took effect (doneByKey): what the first attempt would have
   * answered — it ran the saga on after its action — so run it on as far as it goes now (if the transfer is
   * free within leaseWaitMs; else whoever holds it does), then the transfer as it stands.
   */
  private async carryOn(transferId: string, ctx: SagaContext): Promise<{ transferId: string }> {
    await this.saga.withLease(transferId, this.owner, this.opts.leaseWaitMs, () => this.saga.advance(transferId, ctx));
    return { transferId };
  }

  async resume(caller: Caller, input: { transferId: string; idempotencyKey: string }): Promise<TransferRow> {
    const t0 = await this.getVisible(caller, input.transferId);
    if (t0.ownerId !== caller.userId && !isStaff(caller)) throw forbidden();
    const key = input.idempotencyKey;
    await this.idempotency.run({ caller: caller.userId, operation: 'resumeTransfer', key }, { transferId: input.transferId }, async () => {
      if (await this.doneByKey(t0.id, caller, 'resumeTransfer', key)) return this.carryOn(t0.id, { cause: 'worker', actor: 'worker' });
      await this.underLease(t0, async () => {
        const t = (await this.repo.get(t0.id))!;
        if (t.status !== 'ACTION_REQUIRED') {
          if (await this.doneByKey(t0.id, caller, 'resumeTransfer', key)) {
            await this.saga.advance(t.id, { cause: 'worker', actor: 'worker' }); // a duplicate of ours resumed it first
            return;
          }
          throw new AppError('INVALID_STATE', `Only a transfer in ACTION_REQUIRED can be resumed (it is ${t.status})`);
        }
        await this.prisma.sagaStep.updateMany({ where: { transferId: t.id, step: 'check' }, data: { state: 'PENDING', updatedAt: this.clock.now() } });
        // Due at once (a wake-up): should this process stop before the saga runs, the worker re-runs the check.
        // The challenge is behind us: PENDING shows no next action (a new challenge sets one again).
        await this.repo.transition({
          transferId: t.id,
          to: 'PENDING',
          cause: 'mutation',
          actor: caller.userId,
          detail: { action: 'resumeTransfer', idempotencyKey: key },
          patch: { ...WAKE(this.clock.now()), nextAction: null as never },
        });
        await this.saga.advance(t.id, { cause: 'worker', actor: 'worker' });
      });
      return { transferId: t0.id };
    });
    return (await this.repo.get(t0.id))!;
  }

  async capture(caller: Caller, input: { transferId: string; idempotencyKey: string; amount?: string | null }): Promise<TransferRow> {
    if (!isStaff(caller)) throw forbidden('Only back-office or admin can capture');
    const t0 = await this.getVisible(caller, input.transferId);
    if (input.amount != null) {
      if (!(dec(input.amount).gt(0))) throw badInput('amount must be greater than 0');
      if (!fitsMinorUnits(input.amount, t0.sendCurrency)) throw badInput(`amount has more decimals than ${t0.sendCurrency} allows`);
      if (dec(input.amount).gt(dec(t0.sendAmount))) throw badInput('amount must not exceed the authorized amount');
    }
    const amount = input.amount != null ? formatAmount(input.amount, t0.sendCurrency) : null;
    const key = input.idempotencyKey;
    await this.idempotency.run({ caller: caller.userId, operation: 'captureTransfer', key }, { transferId: t0.id, amount }, async () => {
      if (await this.doneByKey(t0.id, caller, 'captureTransfer', key)) return this.carryOn(t0.id, { cause: 'mutation', actor: caller.userId });
      await this.precheckMoneyAction(t0.id, 'capture');
      await this.underLease(t0, async () => {
        const t = (await this.repo.get(t0.id))!;
        if (await this.doneByKey(t0.id, caller, 'captureTransfer', key)) {
          await this.saga.advance(t.id, { cause: 'mutation', actor: caller.userId }); // a duplicate of ours did it first
          return;
        }
        await this.assertMoneyActionAllowed(t, 'capture');
        // under the row lock, ordered with a platform void/cancel event: if that came first, nothing is captured
        if (!(await this.saga.recordIntent(t, 'capture', { amount, requestedBy: caller.userId, idempotencyKey: key }, { whileStatusUnchanged: true })))
          throw new AppError('INVALID_STATE', 'The transfer changed meanwhile; read it again');
        await this.saga.advance(t.id, { cause: 'mutation', actor: caller.userId });
      });
      return { transferId: t0.id };
    });
    return (await this.repo.get(t0.id))!;
  }

  async void(caller: Caller, input: { transferId: string; idempotencyKey: string }): Promise<TransferRow> {
    const t0 = await this.getVisible(caller, input.transferId);
    const key = input.idempotencyKey;
    await this.idempotency.run({ caller: caller.userId, operation: 'voidTransfer', key }, { transferId: t0.id }, async () => {
      if (await this.doneByKey(t0.id, caller, 'voidTransfer', key)) return this.carryOn(t0.id, { cause: 'mutation', actor: caller.userId });
      await this.precheckMoneyAction(t0.id, 'void');
      await this.underLease(t0, async () => {
        const t = (await this.repo.get(t0.id))!;
        if (await this.doneByKey(t0.id, caller, 'voidTransfer', key)) {
          await this.saga.advance(t.id, { cause: 'mutation', actor: caller.userId }); // a duplicate of ours did it first
          return;
        }
        await this.assertMoneyActionAllowed(t, 'void');
        if (!(await this.saga.recordIntent(t, 'void', { target: 'VOIDED', failureCode: 'VOIDED_BY_REQUEST', requestedBy: caller.userId, idempotencyKey: key }, { whileStatusUnchanged: true })))
          throw new AppError('INVALID_STATE', 'The transfer changed meanwhile; read it again');
        await this.saga.advance(t.id, { cause: 'mutation', actor: caller.userId });
      });
      return { transferId: t0.id };
    });
    return (await this.repo.get(t0.id))!;
  }

  /** Cheap refusal without waiting for the lease (e.g. 199 of 200 concurrent captures). */
  private async precheckMoneyAction(id: string, action: 'capture' | 'void'): Promise<void> {
    const t = (await this.repo.get(id))!;
    await this.assertMoneyActionAllowed(t, action);
  }

  private async assertMoneyActionAllowed(t: TransferRow, action: 'capture' | 'void'): Promise<void> {
    if (t.status !== 'AUTHORIZED')
      throw new AppError('INVALID_STATE', `Only an AUTHORIZED transfer can be ${action === 'capture' ? 'captured' : 'voided'} (it is ${t.status})`);
    const existing = await this.prisma.sagaStep.findMany({ where: { transferId: t.id, step: { in: ['capture', 'void'] } } });
    const live = existing.filter((s) => s.state !== 'FAILED' || s.step === 'void');
    if (live.length)
      throw new AppError('INVALID_STATE', `A ${live[0]!.step} of this transfer is already ${live[0]!.state === 'SUCCEEDED' ? 'done' : 'in progress'}; a payment is captured or voided once`);
  }

  // ── TransferEventSink ─────────────────────────────────────────────────────────────────────────────

  /**
   * The transfer an event is about, bound to what we know: its externalTransactionId (= our externalPaymentId) and
   * its platform transactionId must name the same transfer, and that transfer must not have recorded another
   * platform transaction id. Anything else is a mismatch: the event has no effect.
   */
  private async transferOfEvent(e: PlatformTransactionEvent): Promise<TransferRow | ApplyOutcome> {
    const byExternal = e.externalTransactionId ? await this.prisma.transfer.findUnique({ where: { externalPaymentId: e.externalTransactionId } }) : null;
    const byTransaction = await this.prisma.transfer.findUnique({ where: { externalTransactionId: e.transactionId } });
    if (byTransaction && e.externalTransactionId && byExternal?.id !== byTransaction.id)
      return { applied: false, transferId: byExternal?.id ?? byTransaction.id, reason: 'mismatch', mismatch: 'transaction_conflict' };
    const t = byExternal ?? byTransaction;
    if (!t) return { applied: false, transferId: null, reason: 'unknown_transfer' };
    if (t.externalTransactionId && t.externalTransactionId !== e.transactionId) return mismatchOf(t.id);
    if (!t.externalTransactionId && e.source.kind === 'webhook') {
      // Not linked yet: a signed event alone must not choose the platform transaction the transfer is bound to (it
      // would lock the genuine events out and apply its own decision). The platform's own answer must agree; until it
      // knows the transaction, the event waits like one for a transfer not committed yet (retried, then recorded).
      const known = this.opts.platform ? await this.opts.platform.transactionIdOf(t.externalPaymentId) : null;
      if (known === null) return { applied: false, transferId: t.id, reason: 'unknown_transfer' };
      if (known !== e.transactionId) return mismatchOf(t.id);
    }
    return t;
  }

  async applyPlatformEvent(e: PlatformTransactionEvent): Promise<ApplyOutcome> {
    const found = await this.transferOfEvent(e);
    if ('applied' in found) {
      if (found.applied === false && found.reason === 'mismatch')
        this.logger.warn({ transferId: found.transferId, mismatch: found.mismatch, source: e.source.kind }, 'platform event contradicts the transfer we know: no effect');
      return found;
    }
    const t = found;
    const ref = e.source.kind === 'webhook' ? e.source.inboxId : e.transactionId;
    const actor = e.source.kind === 'webhook' ? 'webhook' : e.source.kind;
    const base = { transferId: t.id, cause: 'webhook' as const, actor, upstreamRef: ref };
    const link = t.externalTransactionId ? {} : { externalTransactionId: e.transactionId };
    const c = e.change;
    const status = t.status as TransferStatus;

    if (c.type === 'compliance') {
      if (!COMPLIANCE.has(c.newStatus)) return { applied: false, transferId: t.id, reason: 'unknown_value' };
      if (isTerminal(status)) return { applied: false, transferId: t.id, reason: 'terminal' };
      const decided = c.newStatus === 'Approved' || c.newStatus === 'Rejected';
      // Decided on the locked row: a concurrent event (e.g. the platform's own `Pending`, read before our
      // `Approved` committed) must not overwrite a final decision — the decision, and its wake-up, would be lost.
      let skipped: ApplyOutcome | null = null;
      const r = await this.repo.transition({
        ...base,
        detail: { action: 'platform compliance', value: c.newStatus },
        decide: async (row, tx) => {
          if (boundElsewhere(row, e)) return (skipped = mismatchOf(t.id)), { skip: 'mismatch' };
          if (c.newStatus === row.complianceStatus) return (skipped = { applied: false, transferId: t.id, reason: 'no_change' }), { skip: 'no change' };
          if (row.complianceStatus && COMPLIANCE_FINAL.has(row.complianceStatus)) return (skipped = { applied: false, transferId: t.id, reason: 'stale' }), { skip: 'stale' };
          const rowStatus = row.status as TransferStatus;
          if (isTerminal(rowStatus)) return (skipped = { applied: false, transferId: t.id, reason: 'terminal' }), { skip: 'terminal' };
          // REJECTED only while no money can have moved: once an authorization was attempted (its outcome may not be
          // recorded yet), the saga finishes it and then voids (→ VOIDED). Counted under the row lock, which the
          // saga's authorize intent takes too (recordIntent): the two are ordered, never interleaved.
          const rejectedEarly =
            c.newStatus === 'Rejected' &&
            (rowStatus === 'PENDING' || rowStatus === 'ACTION_REQUIRED') &&
            (await tx.sagaStep.count({ where: { transferId: t.id, step: 'authorize' } })) === 0;
          return {
            to: rejectedEarly ? 'REJECTED' : undefined,
            patch: {
              ...link,
              complianceStatus: c.newStatus,
              // A decision is a wake-up, recorded with the fact (atomically: see TransferRepository, Scheduling).
              ...(decided ? WAKE(this.clock.now()) : {}),
              ...(rejectedEarly ? { failureCode: 'COMPLIANCE_REJECTED', failureMessage: 'Compliance review rejected the transfer before any money moved' } : {}),
            },
          };
        },
      });
      if (skipped) return skipped;
      if (!r.ok) return { applied: false, transferId: t.id, reason: r.kind === 'refused' ? 'terminal' : 'stale' };
      if (decided) await this.kick(t.id, ref);
      return { applied: true, transferId: t.id, version: r.transfer.version };
    }

    // Transaction status and payout status: facts only move forward (documented order); the transfer's status
    // is derived from the latest facts (transfer.platform.ts), so the order of arrival does not matter. Facts
    // that call for nothing yet (e.g. `Completed` while our capture is still settling) are recorded, and the
    // saga applies them when it catches up.
    const isStatus = c.type === 'status';
    const rankOf = isStatus ? platformRank : payoutRank;
    if (rankOf(c.newStatus) === -2) return { applied: false, transferId: t.id, reason: 'unknown_value' };
    if (isTerminal(status)) return { applied: false, transferId: t.id, reason: 'terminal' };
    // Decided on the locked row: the saga may have moved the transfer since `t` was read (e.g. its capture
    // committed just now), and the status must follow the facts as they stand at commit time.
    let skipped: ApplyOutcome | null = null;
    const r = await this.repo.transition({
      ...base,
      detail: { action: `platform ${c.type}`, value: c.newStatus, ...(c.type === 'payout' ? { amount: c.amount } : {}) },
      decide: async (row, tx) => {
        if (boundElsewhere(row, e)) return (skipped = mismatchOf(t.id)), { skip: 'mismatch' };
        const current = isStatus ? row.upstreamTransactionStatus : row.payoutStatus;
        if (c.newStatus === current) return (skipped = { applied: false, transferId: t.id, reason: 'no_change' }), { skip: 'no change' };
        if (rankOf(c.newStatus) <= rankOf(current)) return (skipped = { applied: false, transferId: t.id, reason: 'stale' }), { skip: 'stale' };
        const rowStatus = row.status as TransferStatus;
        if (isTerminal(rowStatus)) return (skipped = { applied: false, transferId: t.id, reason: 'terminal' }), { skip: 'terminal' };
        const facts = {
          upstreamTransactionStatus: isStatus ? c.newStatus : row.upstreamTransactionStatus,
          payoutStatus: isStatus ? row.payoutStatus : c.newStatus,
        };
        let target = platformTarget(rowStatus, facts);
        // Only for the platform's own void/auto-cancel of an authorization: our capture/void in flight wins. Counted
        // under the row lock, which the capture and void intents take too (recordIntent, whileStatusUnchanged): either
        // the intent comes first (this event waits for the saga) or this event does (no capture or void is started).
        if (target && rowStatus === 'AUTHORIZED') {
          const busy = (await tx.sagaStep.count({ where: { transferId: t.id, step: { in: ['capture', 'void'] }, state: { in: ['PENDING', 'UNKNOWN'] } } })) > 0;
          if (busy || status !== 'AUTHORIZED') target = null;
        }
        const failure = target?.failureCode ? { failureCode: target.failureCode, failureMessage: target.failureMessage } : {};
        return { to: target?.to, patch: { ...link, [isStatus ? 'upstreamTransactionStatus' : 'payoutStatus']: c.newStatus, ...failure } };
      },
    });
    if (skipped) return skipped;
    if (!r.ok) return { applied: false, transferId: t.id, reason: r.kind === 'refused' ? 'terminal' : 'stale' };
    return { applied: true, transferId: t.id, version: r.transfer.version };
  }

  /**
   * A decision arrived — already recorded as a wake-up, with the fact, in one transaction (`record`, WAKE): run the
   * saga now (cause webhook) if the transfer is free, else the worker does (the wake-up keeps it due, and no
   * holder of the lease that read the state before can defer it: TransferRepository, Scheduling).
   */
  private async kick(transferId: string, ref: string): Promise<void> {
    const got = await this.saga
      .withLease(transferId, this.owner, 0, () => this.saga.advance(transferId, { cause: 'webhook', actor: 'webhook', upstreamRef: ref }))
      .catch((err) => {
        this.logger.warn({ err: { message: (err as Error).message }, transferId }, 'saga after a platform event failed; the worker retries');
        return null;
      });
    if (!got) {
      await this.repo.wake(transferId, this.clock.now()); // e.g. the kick's own run failed after deferring
      this.nudge();
    }
  }
}
