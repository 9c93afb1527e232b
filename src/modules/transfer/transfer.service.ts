import { createHash } from 'node:crypto';
import { Prisma, type PrismaClient, type SagaStep } from '../../generated/prisma/client';
import { isStaff, type Caller } from '../../auth/auth.types';
import type { Clock } from '../../shared/clock';
import { AppError, badField, badInput, forbidden, notFound } from '../../shared/errors';
import { requestHash, type Completion, type IdempotencyService } from '../../db/idempotency.service';
import type { Logger } from '../../shared/logger';
import { cardholderNameProblem, holderDigest, holderOf, type FundingCredentials } from '../checks/checks.ports';
import { dec, fitsMinorUnits, formatAmount, sendAmountProblem, type CorridorRule } from '../../shared/money';
import { TransferActions } from './transfer.actions';
import { refundStepRequest, type RecipientDetails, type TransferDetails } from './transfer.columns';
import { assertRecipient } from './transfer.recipient';
import { PlatformFacts } from './transfer.platform-facts';
import type {
  ApplyOutcome,
  DeliveryReceipt,
  PlatformTransactionLookup,
  PlatformTransactionEvent,
  ReceiptOutcome,
  ReceiptResult,
  TransferEventSink,
} from './transfer.ports';
import type { TransferRepository, TransferRow } from './transfer.repository';
import { newTransferDetails, receiveAmountOf, totalOf } from './transfer.requests';
import { parseSearch, searchTermsOf } from './transfer.search';
import type { TransferSaga } from './transfer.saga';
import type { TransferStatus } from './transfer.states';
import { requireSender } from '../kyc/kyc.ports';
import type { SavedRecipientLookup } from '../recipient/recipient.ports';
import { returnUrlProblem, type ReturnUrlPolicy } from '../../shared/return-url';

interface CreateTransferArgs {
  idempotencyKey: string;
  quoteId: string;
  personId: string;
  /** Exactly one of recipient (given inline) and recipientId (a saved recipient of the caller). */
  recipient?: RecipientDetails | null;
  recipientId?: string | null;
  funding: TransferDetails['funding'];
  /** Where the 3-D Secure page sends the browser back (THREE_DS_RETURN_URL_HOSTS), if the card asks for a challenge. */
  threeDSReturnUrl?: string | null;
}

interface ListArgs {
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
    /** Back-office: a reference, a name, an e-mail, a PIX key, four digits or a platform transaction id (transfer.search.ts). */
    search?: string | null;
  } | null;
}

interface TransferServiceOptions {
  /** How long a mutation waits for the transfer's lease (another step in flight) before INVALID_STATE. */
  leaseWaitMs: number;
  /** How long after its creation the owner may cancel a transfer. */
  cancelWindowMs: number;
  /** Corridor rules (TRANSFER_CORRIDORS), checked again at createTransfer: they may have been tightened since the quote. */
  corridors: readonly CorridorRule[];
  /** Confirms a webhook's platform transaction id before it is first linked to a transfer (absent: webhooks never link). */
  platform?: PlatformTransactionLookup;
  /** The caller's saved recipients, for createTransfer(recipientId) (absent: every recipientId is NOT_FOUND). */
  recipients?: SavedRecipientLookup;
  /** The 3-D Secure return URLs an app may give (THREE_DS_RETURN_URL_HOSTS). */
  threeDSReturnUrls: ReturnUrlPolicy;
}

/** One entry of refundsNeedingAttention. */
export interface RefundAttentionEntry {
  reason: 'REFUND_FAILED' | 'REFUND_UNSETTLED' | 'MONEY_BACK_STALLED';
  transfer: TransferRow;
  refund: RefundView | null;
  since: Date;
  lastError: string | null;
  attempts: number;
}

/** The quote's payment methods that price each funding type (createQuote.paymentMethod must be one of them). */
const QUOTE_METHODS_FOR_FUNDING: Record<TransferDetails['funding']['type'], readonly string[]> = {
  CARD: ['CARD', 'CREDIT_CARD', 'DEBIT_CARD', 'AFT'],
  BANK_ACCOUNT: ['BANK_ACCOUNT', 'ACH'],
  ACCOUNT_TOKEN: ['BANK_ACCOUNT', 'ACH'],
};

/** UUIDv5 namespace of transfer ids derived from a createTransfer request (fixed forever: changing it changes the ids). */
const TRANSFER_ID_NAMESPACE = '3c1f7a52-9d0e-4b6a-8f2e-5a7c1d9b0e44';

/** RFC 9562 UUIDv5 (SHA-1, name-based) of `name` in `namespace`. */
function uuidV5(namespace: string, name: string): string {
  const h = createHash('sha1')
    .update(Buffer.from(namespace.replace(/-/g, ''), 'hex'))
    .update(name, 'utf8')
    .digest();
  h[6] = (h[6]! & 0x0f) | 0x50;
  h[8] = (h[8]! & 0x3f) | 0x80;
  const x = h.subarray(0, 16).toString('hex');
  return `${x.slice(0, 8)}-${x.slice(8, 12)}-${x.slice(12, 16)}-${x.slice(16, 20)}-${x.slice(20)}`;
}

/**
 * The id (and externalPaymentId) of the transfer a createTransfer request makes: a function of the caller, the
 * idempotencyKey and the request's arguments (the same hash the idempotency record keeps). A re-run of the same
 * request — a duplicate that took over a claim it thought abandoned while the first was still writing, or a retry
 * once the idempotency record is gone (its TTL) — finds the transfer it already made instead of failing on the quote
 * it used. (The transfer and its record's answer are written by one statement: no crash leaves one without the other.)
 */
export const createTransferId = (ownerId: string, idempotencyKey: string, args: unknown): string =>
  uuidV5(TRANSFER_ID_NAMESPACE, JSON.stringify([ownerId, idempotencyKey, requestHash(args)]));

/**
 * What `transfers` reads for a caller and its filter (the list's WHERE; also what the search benchmark runs): a customer
 * only its own transfers — naming another owner is FORBIDDEN, not silently ignored —, staff any or one owner's.
 */
export function transferListWhere(caller: Caller, args: ListArgs): Prisma.TransferWhereInput {
  const where: Prisma.TransferWhereInput = {};
  const and: Prisma.TransferWhereInput[] = [];
  const f = args.filter;
  // owner: staff filter by any owner; a customer always gets its own — naming another owner is FORBIDDEN (not silently ignored).
  if (!isStaff(caller)) {
    if (f?.ownerId && f.ownerId !== caller.userId) throw forbidden('A customer can list only its own transfers');
    where.ownerId = caller.userId;
  } else if (f?.ownerId) where.ownerId = f.ownerId;
  if (f?.status?.length) where.status = { in: f.status as TransferStatus[] };
  if (f?.createdFrom || f?.createdTo)
    where.createdAt = { ...(f.createdFrom ? { gte: f.createdFrom } : {}), ...(f.createdTo ? { lt: f.createdTo } : {}) };
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
  if (f?.search != null) {
    const q = parseSearch(f.search);
    if (!q.terms.length && !q.idPrefix)
      throw badField('filter.search', 'INVALID', 'search must hold a word, an e-mail, a key, four digits or a reference');
    const by: Prisma.TransferWhereInput[] = [];
    if (q.terms.length) by.push({ searchTerms: { hasEvery: q.terms } });
    // the reference is the id's start: a range on the primary key (startsWith keeps it exact under any collation)
    if (q.idPrefix) by.push({ id: { gte: q.idPrefix, lt: `${q.idPrefix}\uffff`, startsWith: q.idPrefix } });
    by.push({ externalTransactionId: q.platformId });
    and.push({ OR: by });
  }
  if (args.after) {
    const c = args.after;
    and.push({ OR: [{ createdAt: { lt: c.createdAt } }, { createdAt: c.createdAt, id: { lt: c.id } }] });
  }
  if (and.length) where.AND = and;
  return where;
}

/**
 * The transfer use cases (API-facing) and the TransferEventSink the webhook inbox feeds. Money-moving work is
 * done by the saga under the transfer's lease: mutations record their intent and run the saga inline
 * (TransferActions); platform events are recorded by PlatformFacts; the worker runs whatever is due (new
 * transfers, retries, watchdogs, crash leftovers).
 */
export class TransferService implements TransferEventSink {
  /** Called after a transfer needs the worker now (set by the composition root). */
  nudge: () => void = () => undefined;
  private readonly actions: TransferActions;
  private readonly facts: PlatformFacts;

  constructor(
    private readonly prisma: PrismaClient,
    private readonly repo: TransferRepository,
    private readonly saga: TransferSaga,
    private readonly idempotency: IdempotencyService,
    private readonly credentials: FundingCredentials,
    private readonly clock: Clock,
    private readonly logger: Logger,
    private readonly opts: TransferServiceOptions,
  ) {
    this.actions = new TransferActions(prisma, repo, saga, idempotency, clock, {
      leaseWaitMs: opts.leaseWaitMs,
      cancelWindowMs: opts.cancelWindowMs,
    });
    this.facts = new PlatformFacts(repo, saga, clock, logger, { platform: opts.platform, nudge: () => this.nudge() });
  }

  // ── Reads ─────────────────────────────────────────────────────────────────────────────────────────

  /** A transfer the caller may see: owner, back-office or admin. Anything else is NOT_FOUND (never FORBIDDEN). */
  /** `read`: how the row is read (transfer.subscriptions.ts shares one read between concurrent subscribers). */
  async getVisible(
    caller: Caller,
    id: string,
    read: (id: string) => Promise<TransferRow | null> = (x) => this.repo.get(x),
  ): Promise<TransferRow> {
    const t = /^[0-9a-f-]{36}$/i.test(id) ? await read(id) : null;
    if (!t || (!isStaff(caller) && t.ownerId !== caller.userId)) throw notFound('Transfer');
    return t;
  }

  /** A page of the transfers the caller may see, newest first, after a keyset position (createdAt, id). */
  async list(caller: Caller, args: ListArgs, size: number): Promise<{ rows: TransferRow[]; hasNextPage: boolean }> {
    const rows = await this.prisma.transfer.findMany({
      where: transferListWhere(caller, args),
      orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
      take: size + 1,
    });
    return { rows: rows.slice(0, size), hasNextPage: rows.length > size };
  }

  // ── createTransfer ────────────────────────────────────────────────────────────────────────────────

  /** `clientIp`: the customer's address as this request came (not part of the request's identity: a retry may come from another). */
  async create(caller: Caller, args: CreateTransferArgs, clientIp: string): Promise<TransferRow> {
    this.validateParties(args);
    const { idempotencyKey, ...rest } = args;
    let inserted: TransferRow | null = null;
    const { transferId } = await this.idempotency.run<{ transferId: string }>(
      { caller: caller.userId, operation: 'createTransfer', key: idempotencyKey },
      rest,
      async (done) => {
        const made = await this.insert(caller, createTransferId(caller.userId, idempotencyKey, rest), args, clientIp, done);
        inserted = made.row;
        return { transferId: made.id };
      },
    );
    this.nudge();
    // the transfer as this request made it (a replay, or a re-run that found it made: as it stands)
    return inserted ?? (await this.repo.get(transferId))!;
  }

  private validateParties(a: CreateTransferArgs): void {
    const returnProblem = a.threeDSReturnUrl == null ? null : returnUrlProblem(a.threeDSReturnUrl, this.opts.threeDSReturnUrls);
    if (returnProblem) throw badField('input.threeDSReturnUrl', 'INVALID', returnProblem);
    const f = a.funding;
    if (f.type === 'CARD' && !f.cardToken)
      throw badField('input.funding.cardToken', 'REQUIRED', 'funding.cardToken is required for CARD funding');
    if (f.type === 'BANK_ACCOUNT' && !f.bankAccount)
      throw badField('input.funding.bankAccount', 'REQUIRED', 'funding.bankAccount is required for BANK_ACCOUNT funding');
    // A linked account's token can only be pulled from (a PULL names no recipient, and the gateway documents no push
    // from it): nothing would reach the recipient. Refused before anything else (docs/transfers.md, Decisions).
    if (f.type === 'ACCOUNT_TOKEN')
      throw badField(
        'input.funding.type',
        'INVALID_CHOICE',
        'funding.type ACCOUNT_TOKEN is not offered: a linked bank account cannot pay a recipient; fund with CARD or BANK_ACCOUNT',
        { reason: 'FUNDING_NOT_OFFERED' },
      );
    if ((a.recipient == null) === (a.recipientId == null))
      throw badField(
        a.recipient == null ? 'input.recipient' : 'input.recipientId',
        a.recipient == null ? 'REQUIRED' : 'INVALID',
        'Give exactly one of recipient (the recipient itself) and recipientId (a recipient saved with createRecipient)',
      );
    // a saved recipient passed these rules when it was saved (createRecipient applies the same function)
    if (a.recipient) assertRecipient(a.recipient, 'recipient.');
  }

  /** The recipient of a new transfer: the one given, or a copy of the caller's saved recipient (NOT_FOUND otherwise). */
  private async recipientOf(caller: Caller, a: CreateTransferArgs): Promise<RecipientDetails> {
    if (a.recipient) return a.recipient;
    if (!this.opts.recipients) throw notFound('Recipient');
    return this.opts.recipients(caller.userId, a.recipientId!);
  }

  /**
   * Inserts the transfer `id` (derived from the request: createTransferId) — or, if this request already made it
   * (a duplicate that took over a claim it thought abandoned, a retry once its idempotency record is gone), returns
   * it, before any other check.
   */
  private async insert(
    caller: Caller,
    id: string,
    a: CreateTransferArgs,
    clientIp: string,
    done: Completion<{ transferId: string }>,
  ): Promise<{ id: string; row: TransferRow | null }> {
    const now = this.clock.now();
    const made = async () => (await this.repo.ownerOf(id)) === caller.userId;
    const { quote, person } = await this.repo.creationInputs(caller.userId, a.quoteId, a.personId);
    // This very request made it already (the quote is claimed by the transfer in the same statement as its
    // insert; the id derives from the caller, the key and the arguments): the re-run answers it, before any check.
    if (quote?.usedByTransferId === id) return { id, row: null };
    const recipient = await this.recipientOf(caller, a);
    if (!quote || quote.ownerId !== caller.userId) throw notFound('Quote');
    if (quote.usedByTransferId)
      throw new AppError('QUOTE_ALREADY_USED', 'This quote was already used by another transfer; get a new quote');
    if (quote.expiresAt.getTime() <= now.getTime()) throw new AppError('QUOTE_EXPIRED', 'The quote has expired; get a new quote');
    if (quote.sourceAmount === null)
      throw badField('input.quoteId', 'INVALID', 'The quote has no sourceAmount; get a quote with the amount to send');
    // The corridor is where the money goes: the recipient's country (a quote priced for another country does not apply)
    const country = recipient.address.countryCode.toUpperCase();
    if (quote.destinationCountry && quote.destinationCountry.toUpperCase() !== country)
      throw badField(
        'input.quoteId',
        'MISMATCH',
        `quoteId: the quote was priced for another destination country than recipient.address.countryCode; get a quote with destinationCountry ${country}`,
      );
    const amountProblem = sendAmountProblem(
      "The quote's sourceAmount",
      quote.sourceAmount,
      { ...quote, destinationCountry: country },
      this.opts.corridors,
    );
    if (amountProblem) throw badField('input.quoteId', amountProblem.code, amountProblem.message, amountProblem.details);
    if (quote.destinationType && quote.destinationType !== recipient.destination.type)
      throw badField(
        'input.quoteId',
        'MISMATCH',
        `quoteId: the quote was priced for a ${quote.destinationType} destination, not ${recipient.destination.type}; get a quote with destinationType ${recipient.destination.type}`,
      );
    const methods = QUOTE_METHODS_FOR_FUNDING[a.funding.type];
    if (!methods.includes(quote.paymentMethod))
      throw badField(
        'input.quoteId',
        'MISMATCH',
        `quoteId: the quote was priced for paymentMethod ${quote.paymentMethod}, which does not fund a ${a.funding.type} transfer; get a quote with paymentMethod ${methods.join(' or ')} (or change funding.type)`,
      );
    if (!person || person.ownerId !== caller.userId) throw notFound('Person');
    const sender = requireSender(person);
    if (a.funding.type === 'CARD') {
      const nameProblem = cardholderNameProblem(sender);
      if (nameProblem) throw badField('input.personId', 'INVALID_CARDHOLDER_NAME', nameProblem);
    }
    // The funding credential must be the caller's own (staff included): bound by the caller's own check. A card
    // whose check was just APPROVED for this very sender is not checked again by the saga (the same request).
    let funding: TransferDetails['funding'] = a.funding;
    let reuse: Prisma.Sql | null = null;
    if (a.funding.type === 'CARD') {
      const holder = holderDigest(holderOf(sender));
      const { approvedAt, lastFour } = await this.credentials.assertUsable('card', a.funding.cardToken!, caller.userId, holder);
      funding = { ...funding, lastFour };
      if (approvedAt) {
        funding = { ...funding, approvedCheckAt: approvedAt.toISOString() };
        reuse = this.credentials.stillApproved(a.funding.cardToken!, holder, approvedAt);
      }
    }
    if (a.funding.type === 'BANK_ACCOUNT') funding = { ...funding, lastFour: a.funding.bankAccount!.accountNumber.slice(-4) };
    const receive = receiveAmountOf({ ...quote, sourceAmount: quote.sourceAmount });
    const detailsObject = newTransferDetails({ clientIp, sender, recipient, funding, quote, threeDSReturnUrl: a.threeDSReturnUrl });
    const row = await this.repo.insertCreated({
      id,
      ownerId: caller.userId,
      quote: { ...quote, sourceAmount: quote.sourceAmount },
      personId: person.id,
      receiveAmount: receive,
      fundingType: a.funding.type.toLowerCase(),
      destinationCountry: recipient.address.countryCode.toUpperCase(),
      details: detailsObject,
      approvedCheckStillLatest: reuse,
      searchTerms: searchTermsOf(detailsObject),
      now,
      complete: (written) => done.sql({ transferId: id }, written),
    });
    if (row) {
      done.written();
      await this.repo.publish(row);
      return { id, row };
    }
    // a duplicate of this very request (one that took over a claim it thought abandoned) may have just committed it
    if (await made()) return { id, row: null };
    throw new AppError('QUOTE_ALREADY_USED', 'This quote was already used by another transfer; get a new quote');
  }

  // ── resume / capture / void (TransferActions) ──────────────────────────────────────────────────────

  async resume(caller: Caller, input: { transferId: string; idempotencyKey: string }): Promise<TransferRow> {
    const t0 = await this.getVisible(caller, input.transferId);
    if (t0.ownerId !== caller.userId && !isStaff(caller)) throw forbidden();
    return this.actions.resume(caller, t0, input);
  }

  async capture(caller: Caller, input: { transferId: string; idempotencyKey: string; amount?: string | null }): Promise<TransferRow> {
    if (!isStaff(caller)) throw forbidden('Only back-office or admin can capture');
    const t0 = await this.getVisible(caller, input.transferId);
    if (input.amount != null) {
      if (!dec(input.amount).gt(0)) throw badField('input.amount', 'OUT_OF_RANGE', 'amount must be greater than 0');
      if (!fitsMinorUnits(input.amount, t0.sendCurrency))
        throw badField('input.amount', 'TOO_MANY_DECIMALS', `amount has more decimals than ${t0.sendCurrency} allows`);
      if (dec(input.amount).gt(totalOf(t0)))
        throw badField('input.amount', 'ABOVE_MAXIMUM', 'amount must not exceed the authorized amount (the total)');
    }
    const amount = input.amount != null ? formatAmount(input.amount, t0.sendCurrency) : null;
    return this.actions.capture(caller, t0, input, amount);
  }

  async void(caller: Caller, input: { transferId: string; idempotencyKey: string }): Promise<TransferRow> {
    const t0 = await this.getVisible(caller, input.transferId);
    return this.actions.void(caller, t0, input);
  }

  /** The owner (or back-office) takes the transfer back (TransferActions.cancel). */
  async cancel(caller: Caller, input: { transferId: string; idempotencyKey: string }): Promise<TransferRow> {
    const t0 = await this.getVisible(caller, input.transferId);
    return this.actions.cancel(caller, t0, input);
  }

  /** Back-office refunds money taken by a transfer (TransferActions.refund). */
  async refund(
    caller: Caller,
    input: { transferId: string; idempotencyKey: string; amount?: string | null; reason: string },
  ): Promise<TransferRow> {
    if (!isStaff(caller)) throw forbidden('Only back-office or admin can refund');
    const reason = input.reason.trim();
    if (reason.length < 3) throw badField('input.reason', 'TOO_SHORT', 'reason must say why (3 to 500 characters)');
    const t0 = await this.getVisible(caller, input.transferId);
    if (input.amount != null) {
      if (!dec(input.amount).gt(0)) throw badField('input.amount', 'OUT_OF_RANGE', 'amount must be greater than 0');
      if (!fitsMinorUnits(input.amount, t0.sendCurrency))
        throw badField('input.amount', 'TOO_MANY_DECIMALS', `amount has more decimals than ${t0.sendCurrency} allows`);
    }
    const amount = input.amount != null ? formatAmount(input.amount, t0.sendCurrency) : null;
    return this.actions.refund(caller, t0, { idempotencyKey: input.idempotencyKey, reason }, amount);
  }

  /** Until when the owner may cancel the transfer (null: no longer). */
  cancellableUntil(
    t: Pick<TransferRow, 'status' | 'cancelRequestedAt' | 'createdAt' | 'upstreamTransactionStatus' | 'payoutStatus'>,
  ): Date | null {
    return this.actions.cancellableUntil(t);
  }

  /**
   * Money on its way back that needs a person, oldest first, at most `limit`: refunds refused by the gateway
   * (FAILED) or not settled after `staleMs` (the gateway keeps failing), then transfers that have waited in
   * REFUND_PENDING for `staleMs` with nothing an app sees changing and no such refund listed — the platform never said
   * the payout stopped, or reported it paid after the money went back (the saga only logs those).
   */
  async refundsNeedingAttention(staleMs: number, limit: number): Promise<RefundAttentionEntry[]> {
    const before = new Date(this.clock.nowMs() - staleMs);
    const [steps, stalled] = await Promise.all([
      this.prisma.sagaStep.findMany({
        where: {
          step: { startsWith: 'refund:' },
          OR: [{ state: 'FAILED' }, { state: { in: ['PENDING', 'UNKNOWN'] }, updatedAt: { lt: before } }],
        },
        orderBy: { updatedAt: 'asc' },
        take: limit,
      }),
      // updated_at moves only with a version (what an app sees), so it is when the transfer last visibly changed
      this.prisma.transfer.findMany({
        where: { status: 'REFUND_PENDING', updatedAt: { lt: before } },
        select: { id: true },
        orderBy: { updatedAt: 'asc' },
        take: limit,
      }),
    ]);
    const listed = new Set(steps.map((s) => s.transferId));
    const ids = [...listed, ...stalled.map((t) => t.id).filter((id) => !listed.has(id))];
    const transfers = new Map((await this.repo.getMany(ids)).map((t) => [t.id, t]));
    const refunds = steps.flatMap((s): RefundAttentionEntry[] => {
      const t = transfers.get(s.transferId);
      if (!t) return [];
      const reason = s.state === 'FAILED' ? 'REFUND_FAILED' : 'REFUND_UNSETTLED';
      return [
        { reason, transfer: t, refund: refundView(s, t.sendCurrency), since: s.updatedAt, lastError: s.lastError, attempts: s.attempts },
      ];
    });
    const transfersStalled = stalled.flatMap((x): RefundAttentionEntry[] => {
      const t = listed.has(x.id) ? undefined : transfers.get(x.id);
      return t ? [{ reason: 'MONEY_BACK_STALLED', transfer: t, refund: null, since: t.updatedAt, lastError: null, attempts: 0 }] : [];
    });
    return [...refunds, ...transfersStalled].slice(0, limit);
  }

  // ── TransferEventSink ─────────────────────────────────────────────────────────────────────────────

  /** The TransferEventSink (PlatformFacts): one platform event applied to its transfer. */
  applyPlatformEvent(e: PlatformTransactionEvent): Promise<ApplyOutcome> {
    return this.facts.applyPlatformEvent(e);
  }

  /** The TransferEventSink's receipt path (PlatformFacts.applyAtReceipt): an event applied as its delivery is stored. */
  applyAtReceipt(e: PlatformTransactionEvent, receipt: (outcome: ReceiptOutcome) => DeliveryReceipt): Promise<ReceiptResult> {
    return this.facts.applyAtReceipt(e, receipt);
  }

  /** Waits for the saga runs that deliveries started and that outlasted their answer (before the database closes). */
  drain(): Promise<void> {
    return this.facts.drain();
  }
}

/** A refund as the API shows it (its saga step). */
interface RefundView {
  id: string;
  amount: { amount: string; currency: string };
  status: 'PENDING' | 'SUCCEEDED' | 'FAILED';
  kind: string;
  reason: string;
  requestedBy: string;
  createdAt: Date;
  updatedAt: Date;
}

/** A refund step as the API shows it, in the transfer's send currency. */
export function refundView(s: SagaStep, currency: string): RefundView {
  const r = refundStepRequest(s.request);
  return {
    id: s.idempotencyKey,
    amount: { amount: formatAmount(r.amount, currency), currency },
    status: s.state === 'SUCCEEDED' ? 'SUCCEEDED' : s.state === 'FAILED' ? 'FAILED' : 'PENDING',
    kind: r.kind,
    reason: r.reason,
    requestedBy: r.requestedBy,
    createdAt: s.createdAt,
    updatedAt: s.updatedAt,
  };
}
