import type { Caller } from '../../auth/auth.types';
import { platformAddress, type PostalAddress } from '../../shared/address';
import type { RemittancesClient } from '../../upstream/remittances/remittances.client';
import type { PayoutSchemaKind, RemittancesObject } from '../../upstream/remittances/remittances.types';
import { isUpstreamError } from '../../upstream/http/upstream.errors';
import { badField } from '../../shared/errors';
import type { OffsetPage, PageWindow } from '../../shared/page';
import { positiveAmountProblem } from '../../shared/money';

interface Money {
  amount: string;
  currency: string;
}
import type { AdminService } from '../admin/admin.ports';

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
    return this.remittances.getPerson(id);
  }

  createPerson(person: RemittancesObject) {
    return this.remittances.createPerson(person);
  }

  updatePerson(id: string, patch: RemittancesObject) {
    return this.remittances.updatePerson(id, patch);
  }

  complianceLevels(participantId: string) {
    return this.remittances.getComplianceLevels(participantId);
  }

  uploadDocument(personId: string, document: RemittancesObject, documentType?: string | null) {
    if (documentType != null && !/^[A-Z][A-Z0-9_]{1,63}$/.test(documentType))
      throw badField(
        'documentType',
        'INVALID_FORMAT',
        'documentType must be an upper-case document type such as PASSPORT or DRIVERS_LICENSE',
      );
    return this.remittances.uploadDocument(personId, document, documentType ?? undefined);
  }

  checkAddress(address: PostalAddress) {
    return this.remittances.checkAddress(platformAddress(address));
  }

  // ── payout ──
  createPayoutQuote(request: RemittancesObject) {
    return this.remittances.createPayoutQuote(request);
  }

  createFundingAccount(participantId: string, account: RemittancesObject) {
    return this.remittances.createFundingAccount(participantId, account);
  }

  createRecipientAccount(participantId: string, account: RemittancesObject) {
    return this.remittances.createGatewayRecipientAccount(participantId, account);
  }

  destinations() {
    return this.remittances.listDestinations();
  }

  destinationBanks(countryCode: string) {
    if (!COUNTRY.test(countryCode))
      throw badField('countryCode', 'INVALID_FORMAT', 'countryCode must be an ISO 3166-1 alpha-2 code such as "BR"');
    return this.remittances.listDestinationBanks(countryCode.toUpperCase());
  }

  payoutSchema(kind: PayoutSchemaKind, countryCode?: string | null) {
    if (countryCode != null && !COUNTRY.test(countryCode))
      throw badField('countryCode', 'INVALID_FORMAT', 'countryCode must be an ISO 3166-1 alpha-2 code such as "BR"');
    return this.remittances.getPayoutSchema(kind, countryCode?.toUpperCase());
  }

  // ── FX transactions ──
  async createFxTransaction(input: { externalTransactionId: string; amount?: Money | null; metadata?: Record<string, unknown> | null }) {
    const problem = input.amount ? positiveAmountProblem('amount.amount', input.amount.amount, input.amount.currency) : null;
    if (problem) throw badField('input.amount.amount', 'INVALID', problem);
    try {
      return await this.remittances.createFxTransaction({
        externalTransactionId: input.externalTransactionId,
        ...(input.amount ? { amount: { total: input.amount.amount, currency: input.amount.currency } } : {}),
        ...(input.metadata ? { metadata: input.metadata } : {}),
      });
    } catch (e) {
      // the reference is already taken: the transaction exists (an earlier attempt, or a lost answer) → answer it
      if (isUpstreamError(e) && e.status === 409) return this.remittances.getFxTransaction(input.externalTransactionId);
      throw e;
    }
  }

  fxTransaction(id: string) {
    return this.remittances.getFxTransaction(id);
  }

  async fxTransactions(
    args: { status?: string; externalTransactionId?: string },
    { offset, limit }: PageWindow,
  ): Promise<OffsetPage<Record<string, unknown>>> {
    const page = await this.remittances.listFxTransactions({
      status: args.status,
      externalTransactionId: args.externalTransactionId,
      limit,
      offset,
    });
    const items = Array.isArray(page.transactions) ? (page.transactions as unknown[]).filter(isObject) : [];
    return { items, offset, total: typeof page.total === 'number' ? page.total : offset + items.length };
  }

  fxTransactionStatusHistory(id: string) {
    return this.remittances.getFxTransactionStatusHistory(id);
  }

  cancelFxTransaction(id: string) {
    return this.remittances.cancelFxTransaction(id);
  }

  fxTransactionMetadata(id: string) {
    return this.remittances.getFxTransactionMetadata(id);
  }

  setFxTransactionMetadata(id: string, metadata: RemittancesObject, mode: 'replace' | 'merge') {
    return this.remittances.setFxTransactionMetadata(id, metadata, mode);
  }

  fxTransactionLimits() {
    return this.remittances.getFxTransactionLimits();
  }

  // ── platform wallets ──
  wallets() {
    return this.remittances.listWallets();
  }

  wallet(currency: string) {
    if (!CURRENCY.test(currency)) throw badField('currency', 'INVALID_FORMAT', 'currency must be an ISO 4217 code such as "USD"');
    return this.remittances.getWallet(currency);
  }

  deposit(amount: Money) {
    if (!CURRENCY.test(amount.currency))
      throw badField('amount.currency', 'INVALID_FORMAT', 'amount.currency must be an ISO 4217 code such as "USD"');
    const problem = positiveAmountProblem('amount.amount', amount.amount, amount.currency);
    if (problem) throw badField('amount.amount', 'INVALID', problem);
    return this.remittances.depositToWallet(amount.currency, { amount: amount.amount });
  }

  // ── agents (legacy alias) ──
  createAgentLegacy(caller: Caller, input: { email: string; businessName: string; externalId?: string }) {
    return this.admin.createAgent(caller, input, 'legacy');
  }
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
