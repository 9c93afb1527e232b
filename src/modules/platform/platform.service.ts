import type { Caller } from '../../auth/auth.types';
import { platformAddress, type PostalAddress } from '../../shared/address';
import type { RemittancesClient } from '../../upstream/remittances/remittances.client';
import type { PayoutSchemaKind, RemittancesObject } from '../../upstream/remittances/remittances.types';
import { isUpstreamError, toAppError } from '../../upstream/http/upstream.errors';
import { badInput } from '../../shared/errors';
import { connectionFrom, pageRequest } from '../../graphql/relay';
import { positiveAmountProblem } from '../../shared/money';

interface Money { amount: string; currency: string }
import type { AdminService } from '../admin/admin.service';

const CURRENCY = /^[A-Z]{3}$/;
const COUNTRY = /^[A-Za-z]{2}$/;

/**
 * Back-office access to the remittances platform's "other endpoints" (people, compliance levels,
 * documents, address check, payout quotes, funding/recipient accounts, reference data, FX transactions,
 * platform wallets) and the legacy agent alias. Thin: the platform's answers pass through (their shapes
 * are "not shown" upstream), upstream failures become AppErrors, and a request the platform refuses as
 * invalid (400/422) is BAD_USER_INPUT with the platform's (scrubbed) reason.
 *
 * Writes are sent once (RemittancesClient): none carries an idempotency key the platform would replay,
 * except FX transactions, whose externalTransactionId is unique at the platform — a repeated create answers
 * the existing transaction, read back by that reference.
 */
export class PlatformService {
  constructor(
    private readonly remittances: RemittancesClient,
    private readonly admin: AdminService,
  ) {}

  // ── people, compliance, documents ──
  getPerson(id: string) {
    return call(() => this.remittances.getPerson(id));
  }

  createPerson(person: RemittancesObject) {
    return call(() => this.remittances.createPerson(person));
  }

  updatePerson(id: string, patch: RemittancesObject) {
    return call(() => this.remittances.updatePerson(id, patch));
  }

  complianceLevels(participantId: string) {
    return call(() => this.remittances.getComplianceLevels(participantId));
  }

  uploadDocument(personId: string, document: RemittancesObject, documentType?: string | null) {
    if (documentType != null && !/^[A-Z][A-Z0-9_]{1,63}$/.test(documentType))
      throw badInput('documentType must be an upper-case document type such as PASSPORT or DRIVERS_LICENSE');
    return call(() => this.remittances.uploadDocument(personId, document, documentType ?? undefined));
  }

  checkAddress(address: PostalAddress) {
    return call(() => this.remittances.checkAddress(platformAddress(address)));
  }

  // ── payout ──
  createPayoutQuote(request: RemittancesObject) {
    return call(() => this.remittances.createPayoutQuote(request));
  }

  createFundingAccount(participantId: string, account: RemittancesObject) {
    return call(() => this.remittances.createFundingAccount(participantId, account));
  }

  createRecipientAccount(participantId: string, account: RemittancesObject) {
    return call(() => this.remittances.createGatewayRecipientAccount(participantId, account));
  }

  destinations() {
    return call(() => this.remittances.listDestinations());
  }

  destinationBanks(countryCode: string) {
    if (!COUNTRY.test(countryCode)) throw badInput('countryCode must be an ISO 3166-1 alpha-2 code such as "BR"');
    return call(() => this.remittances.listDestinationBanks(countryCode.toUpperCase()));
  }

  payoutSchema(kind: PayoutSchemaKind, countryCode?: string | null) {
    if (countryCode != null && !COUNTRY.test(countryCode)) throw badInput('countryCode must be an ISO 3166-1 alpha-2 code such as "BR"');
    return call(() => this.remittances.getPayoutSchema(kind, countryCode?.toUpperCase()));
  }

  // ── FX transactions ──
  async createFxTransaction(input: { externalTransactionId: string; amount?: Money | null; metadata?: Record<string, unknown> | null }) {
    const problem = input.amount ? positiveAmountProblem('amount.amount', input.amount.amount, input.amount.currency) : null;
    if (problem) throw badInput(problem);
    try {
      return await this.remittances.createFxTransaction({
        externalTransactionId: input.externalTransactionId,
        ...(input.amount ? { amount: { total: input.amount.amount, currency: input.amount.currency } } : {}),
        ...(input.metadata ? { metadata: input.metadata } : {}),
      });
    } catch (e) {
      // the reference is already taken: the transaction exists (an earlier attempt, or a lost answer) → answer it
      if (isUpstreamError(e) && e.status === 409) return call(() => this.remittances.getFxTransaction(input.externalTransactionId));
      throw mapError(e);
    }
  }

  fxTransaction(id: string) {
    return call(() => this.remittances.getFxTransaction(id));
  }

  async fxTransactions(args: { status?: string; externalTransactionId?: string; first?: number; after?: string }) {
    const { offset, limit } = pageRequest(args.first, args.after);
    const page = await call(() =>
      this.remittances.listFxTransactions({ status: args.status, externalTransactionId: args.externalTransactionId, limit, offset }),
    );
    const items = Array.isArray(page.transactions) ? (page.transactions as unknown[]).filter(isObject) : [];
    const total = typeof page.total === 'number' ? page.total : offset + items.length;
    return connectionFrom(items, offset, total);
  }

  fxTransactionStatusHistory(id: string) {
    return call(() => this.remittances.getFxTransactionStatusHistory(id));
  }

  cancelFxTransaction(id: string) {
    return call(() => this.remittances.cancelFxTransaction(id));
  }

  fxTransactionMetadata(id: string) {
    return call(() => this.remittances.getFxTransactionMetadata(id));
  }

  setFxTransactionMetadata(id: string, metadata: RemittancesObject, mode: 'replace' | 'merge') {
    return call(() => this.remittances.setFxTransactionMetadata(id, metadata, mode));
  }

  fxTransactionLimits() {
    return call(() => this.remittances.getFxTransactionLimits());
  }

  // ── platform wallets ──
  wallets() {
    return call(() => this.remittances.listWallets());
  }

  wallet(currency: string) {
    if (!CURRENCY.test(currency)) throw badInput('currency must be an ISO 4217 code such as "USD"');
    return call(() => this.remittances.getWallet(currency));
  }

  deposit(amount: Money) {
    const problem = CURRENCY.test(amount.currency) ? positiveAmountProblem('amount.amount', amount.amount, amount.currency) : 'amount.currency must be an ISO 4217 code such as "USD"';
    if (problem) throw badInput(problem);
    return call(() => this.remittances.depositToWallet(amount.currency, { amount: amount.amount }));
  }

  // ── agents (legacy alias) ──
  createAgentLegacy(caller: Caller, input: { email: string; businessName: string; externalId?: string }) {
    return this.admin.createAgent(caller, input, 'legacy');
  }
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

function mapError(e: unknown) {
  if (isUpstreamError(e) && e.kind === 'rejected' && (e.status === 400 || e.status === 422))
    return badInput(`The remittances platform refused the request${e.upstreamMessage ? `: ${e.upstreamMessage}` : ''}`, {
      ...(e.upstreamCode ? { upstreamCode: e.upstreamCode } : {}),
    });
  return toAppError(e);
}

async function call<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (e) {
    throw mapError(e);
  }
}
