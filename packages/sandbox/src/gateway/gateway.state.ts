/** Everything the simulated gateway remembers; forgotten on ctx.bus 'reset'. */
import type Decimal from 'decimal.js';

export interface AccessToken {
  clientId: string;
  expiresAtMs: number;
}

export interface Quote {
  fxId: string;
  version: 1 | 2;
  sourceCurrencyCode: string;
  destinationCurrencyCode: string;
  rate: Decimal;
  paymentMethod?: string;
  destinationCountryCode?: string;
  expiresAtMs: number;
}

export interface PersonRecord {
  id: string;
  body: Record<string, unknown>;
  createdAt: string;
}

export interface StoredResponse {
  hash: string;
  response: Record<string, unknown>;
}

export interface AccountToken {
  accountTokenId: string;
  countryCode: string;
  bankAccountName: string;
  accountNumberMasked: string;
  routingNumberMasked: string;
}

export interface Challenge {
  id: string;
  cardTokenId: string;
  status: 'PENDING' | 'AUTHENTICATED';
  createdAtMs: number;
}

export interface WalletEntry {
  transactionId: string;
  externalId: string;
  type: 'CREDIT' | 'DEBIT';
  amount: Decimal;
  description: string;
  balanceAfter: Decimal;
  createdAtMs: number;
}

export interface Wallet {
  walletId: string;
  accountAsset: string;
  ownerId: string;
  beneficiaryId: string;
  type: string;
  status: 'ACTIVE';
  createdAtMs: number;
  additionalInfo?: Record<string, unknown>;
  available: Decimal;
  held: Decimal;
  entries: WalletEntry[];
}

export type PaymentStatus = 'AUTHORIZED' | 'CAPTURED' | 'VOIDED' | 'CANCELLED' | 'DECLINED';

export interface Refund {
  refundId: string;
  externalRefundId: string;
  amount: Decimal;
  currency: string;
  status: 'SUCCEEDED';
  createdAtMs: number;
}

export interface Payment {
  paymentId: string;
  externalPaymentId: string;
  bodyHash: string;
  paymentType: 'PULLPUSH' | 'PULL';
  status: PaymentStatus;
  approved: boolean;
  message: string;
  amount: { total: Decimal; currency: string };
  recipientAmount?: { total: Decimal; currency: string };
  exchangeRate?: Decimal;
  fxId?: string;
  capturedAmount?: Decimal;
  capturedRecipientAmount?: Decimal;
  createdAtMs: number;
  capturedAtMs?: number;
  voidedAtMs?: number;
  cancelledAtMs?: number;
  authCode: string | null;
  sourceType: 'CARD' | 'BANK_ACCOUNT' | 'BANK_DEPOSIT';
  cardTokenId?: string;
  issuerName: string;
  issuerCountry: string;
  destination?: { type: 'WALLET'; walletId: string } | { type: 'PIX'; keyType: string; key: string };
  providerId: string;
  senderLastName: string;
  /** The recipient's last name (sandbox magic: `Payout-Reject`). */
  recipientLastName: string;
  /** Refunds of the captured amount, by externalRefundId (POST /payments/{id}/refund). */
  refunds?: Map<string, Refund>;
  /** Amount pending in the destination wallet's heldBalance while authorized. */
  heldInWallet?: Decimal;
}

export class GatewayState {
  tokens = new Map<string, AccessToken>();
  quotes = new Map<string, Quote>();
  persons = new Map<string, PersonRecord>();
  /** idempotency of checks, per endpoint: key `${endpoint}:${externalPaymentId}` */
  checkResponses = new Map<string, StoredResponse>();
  accountTokens = new Map<string, AccountToken>();
  challenges = new Map<string, Challenge>();
  /** card token → pending challenge id */
  pendingChallengeByCard = new Map<string, string>();
  authenticatedCards = new Set<string>();
  /** alias directory quota: clientId → request times (sandbox ms) */
  aliasRequests = new Map<string, number[]>();
  wallets = new Map<string, Wallet>();
  payments = new Map<string, Payment>();
  /** providerId → currency → balance (absent currency = initial balance) */
  payerBalances = new Map<string, Map<string, Decimal>>();

  reset(): void {
    this.tokens.clear();
    this.quotes.clear();
    this.persons.clear();
    this.checkResponses.clear();
    this.accountTokens.clear();
    this.challenges.clear();
    this.pendingChallengeByCard.clear();
    this.authenticatedCards.clear();
    this.aliasRequests.clear();
    this.wallets.clear();
    this.payments.clear();
    this.payerBalances.clear();
  }
}

export interface GatewayDeps {
  ctx: import('../sandbox.context').SandboxContext;
  state: GatewayState;
}
