import { z } from 'zod';
import type { DecimalString } from '../http/upstream.json';

/**
 * Request and response types of the payments gateway (as its API specification describes them), with the
 * zod schemas every response is checked against. Response schemas require the fields business code
 * relies on (ids, statuses, amounts) and accept the descriptive ones as optional; unknown extra fields
 * are dropped. Enumerated statuses that drive decisions (person APPROVED/REJECTED, account check
 * APPROVED/DECLINED, legacy card check APPROVED/REJECTED/CHALLENGE) are checked as enums: an unknown
 * value is an invalid_response, not a silent pass. Verification result codes (avs, cvc, ...) are plain
 * strings: the documented lists are "values seen".
 *
 * Amounts: request amounts and rates are DecimalString ("100.10") and are written to the wire verbatim as
 * JSON numbers; response amounts are the JS numbers JSON.parse produced, passed through untouched.
 */

const str = z.string();
// Absent and null stay as they came (no transform to one of them): a transform wraps every such field of every
// answer in a pipe, which more than doubled what validating a page of banks allocates (≈ 11.5 against 5.5 KB).
const optStr = z.string().nullish();
const num = z.number().finite();

// ── Token ────────────────────────────────────────────────────────────────────────────────────────────
/**
 * "Token response shape and lifetime: not shown". Decision (same as packages/sandbox/src/gateway/gateway.auth.ts):
 * `{ access_token, token_type: "Bearer", expires_in }` (RFC 6749 style). Also accepted, should the real
 * gateway answer camelCase: `{ accessToken, expiresIn }`. Without a lifetime the token is assumed to live
 * 300 s (refreshed earlier by the margin, and anyway on the first 401).
 */
export const gatewayTokenSchema = z
  .object({
    access_token: str.min(1).optional(),
    accessToken: str.min(1).optional(),
    token_type: str.optional(),
    expires_in: z.number().int().positive().optional(),
    expiresIn: z.number().int().positive().optional(),
  })
  .refine((t) => Boolean(t.access_token ?? t.accessToken), { message: 'access_token missing' })
  .transform((t) => ({ accessToken: (t.access_token ?? t.accessToken) as string, expiresInS: t.expires_in ?? t.expiresIn ?? 300 }));

// ── FX ───────────────────────────────────────────────────────────────────────────────────────────────
export const PAYMENT_METHODS = [
  'CARD',
  'CREDIT_CARD',
  'DEBIT_CARD',
  'ACH',
  'BANK_ACCOUNT',
  'WALLET',
  'AFT',
  'CASH',
  'CHECK',
  'MONEY_ORDER',
  'OTHER',
  'VENDORA_PAY',
  'VENDORB_PAY',
] as const;
export type PaymentMethod = (typeof PAYMENT_METHODS)[number];

export interface FxQuoteV1Request {
  sourceCurrencyCode?: string;
  destinationCurrencyCode?: string;
}
export interface FxQuoteRequest {
  sourceCurrencyCode: string;
  destinationCurrencyCode: string;
  paymentMethod: PaymentMethod;
  /** Decimal string; when given the quote carries the converted amount. */
  sourceCurrencyAmount?: DecimalString;
  destinationCountryCode?: string;
}

export const fxQuoteV1Schema = z.object({
  fxId: str.min(1),
  conversionRate: num,
  quoteIdExpiryDateTime: str.min(1),
});
export type FxQuoteV1 = z.infer<typeof fxQuoteV1Schema>;

export const fxQuoteSchema = fxQuoteV1Schema.extend({
  sourceCurrencyCode: str,
  sourceCurrencyAmount: num.optional(),
  destinationCurrencyCode: str,
  destinationCurrencyAmount: num.optional(),
  paymentMethod: str,
});
export type FxQuote = z.infer<typeof fxQuoteSchema>;

// ── Wallets ──────────────────────────────────────────────────────────────────────────────────────────
export interface CreateWalletRequest {
  accountAsset: string;
  ownerId: string;
  beneficiaryId: string;
  type: string;
  additionalInfo?: Record<string, unknown>;
}
export const walletSchema = z.object({
  walletId: str.min(1),
  accountAsset: str,
  ownerId: optStr,
  beneficiaryId: optStr,
  type: optStr,
  status: str,
  createdAt: optStr,
});
export type Wallet = z.infer<typeof walletSchema>;

export const walletBalanceSchema = z.object({
  walletId: str.min(1),
  accountAsset: str,
  availableBalance: num,
  heldBalance: num,
  totalBalance: num,
});
export type WalletBalance = z.infer<typeof walletBalanceSchema>;

export interface WalletStatementQuery {
  /** ISO 8601 date */
  from?: string;
  until?: string;
  /** zero-based */
  page?: number;
  size?: number;
}
const statementEntrySchema = z.object({
  transactionId: str,
  externalId: optStr,
  type: z.enum(['CREDIT', 'DEBIT']),
  amount: num,
  description: optStr,
  balanceAfter: num.optional(),
  createdAt: str,
});
export const walletStatementSchema = z.object({
  walletId: str,
  entries: z.array(statementEntrySchema),
  page: z.number().int(),
  size: z.number().int(),
  totalEntries: z.number().int(),
});
export type WalletStatement = z.infer<typeof walletStatementSchema>;

// ── Persons (KYC) ────────────────────────────────────────────────────────────────────────────────────
interface PersonAddress {
  addressLine1: string;
  addressLine2?: string;
  city: string;
  state: string;
  postalCode: string;
  countryCode: string;
  phoneNumber: string;
  emailAddress: string;
}
export interface PersonRequest {
  type?: 'INDIVIDUAL' | 'BUSINESS';
  identificationType?: string;
  identification?: string;
  gender?: 'M' | 'F';
  firstName?: string;
  lastName?: string;
  companyName?: string;
  address?: PersonAddress;
}
/** HTTP 200 either way: REJECTED (with message) is an answer, not an error. */
export const personResultSchema = z.object({
  id: optStr,
  type: optStr,
  firstName: optStr,
  lastName: optStr,
  status: z.enum(['APPROVED', 'REJECTED']),
  message: optStr,
});
export type PersonResult = z.infer<typeof personResultSchema>;

/** "Response of the person schema endpoint: not shown" — passed through as a JSON object. */
export const personSchemaSchema = z.record(z.string(), z.unknown());
export type PersonSchema = z.infer<typeof personSchemaSchema>;

// ── Bank account check ───────────────────────────────────────────────────────────────────────────────
/** Form A: bank-linking token. */
export interface AccountTokenCheckRequest {
  externalPaymentId: string;
  sender: {
    paymentMethod: {
      type: 'BANK_DEPOSIT';
      countryCode: string;
      accountCheckToken: string;
      accountCheckId: string;
    };
  };
}
export const accountTokenCheckSchema = z
  .object({
    paymentId: str,
    parentPaymentId: optStr,
    externalPaymentId: str,
    /** Present when approved. A declined link ("not shown"; the sandbox's decision) is HTTP 200, approved false, no token. */
    accountTokenId: str.min(1).nullish(),
    created: optStr,
    approved: z.boolean(),
    accessToken: optStr,
    status: str,
    message: optStr,
    bankAccountName: optStr,
    accountNumberMasked: optStr,
    routingNumberMasked: optStr,
  })
  .refine((c) => !c.approved || Boolean(c.accountTokenId), {
    message: 'an approved check carries accountTokenId',
    path: ['accountTokenId'],
  });
export type AccountTokenCheck = z.infer<typeof accountTokenCheckSchema>;

export interface CheckDocument {
  document: string;
  type: string;
  countryCode: string;
}
interface CheckAddress {
  countryCode: string;
  stateCode: string;
  city: string;
  line1: string;
  line2?: string;
  zipCode: string;
}
/** Form B: raw account details. */
export interface AccountCheckRequest {
  externalPaymentId: string;
  ipAddress: string;
  sender: {
    firstName: string;
    lastName: string;
    email: string;
    phoneNumber: string;
    documents: CheckDocument[];
    address: CheckAddress;
    paymentMethod: {
      type: string;
      accountType: 'SAVINGS' | 'CHECKING' | 'BUSINESS_CHECKING' | 'BUSINESS_SAVING';
      routingNumber?: string;
      accountNumber: string;
      bankCode?: string;
      countryCode: string;
    };
  };
}
/** DECLINED / INVALID is an answer (HTTP 200), not an error. */
export const accountCheckSchema = z.object({
  paymentId: str,
  externalPaymentId: str,
  status: z.enum(['APPROVED', 'DECLINED']),
  accountVerification: z.object({
    accountStatus: z.enum(['VALID', 'INVALID']),
    accountType: optStr,
    message: optStr,
  }),
});
export type AccountCheck = z.infer<typeof accountCheckSchema>;

// ── Card checks ──────────────────────────────────────────────────────────────────────────────────────
export interface CardCheckRequest {
  externalPaymentId?: string;
  ipAddress?: string;
  sender: {
    firstName: string;
    lastName: string;
    email: string;
    phoneNumber: string;
    phoneNumberType?: string;
    birthDate?: string;
    birthCountryCode?: string;
    documents: CheckDocument[];
    address?: CheckAddress;
    paymentMethod?: { type: 'CARD'; cardTokenId: string };
  };
}
const capabilitySchema = z.object({
  capable: z.boolean(),
  highPerforming: z.boolean().optional(),
  lowPerforming: z.boolean().optional(),
});
export const cardCheckSchema = z.object({
  card: z
    .object({
      created: optStr,
      issuerName: optStr,
      issuerCountry: optStr,
      bin: optStr,
      lastFour: optStr,
    })
    .optional(),
  verificationResults: z.object({
    avs: str,
    cvc: str,
    aavCardholderName: optStr,
  }),
  octStatus: capabilitySchema.optional(),
  aftStatus: capabilitySchema.optional(),
  /** '' when no challenge; otherwise the 3DS challenge URL. */
  redirectAcsUrl: z
    .string()
    .nullish()
    .transform((v) => v ?? ''),
});
export type CardCheck = z.infer<typeof cardCheckSchema>;

export interface LegacyCardCheckRequest {
  externalPaymentId: string;
  ipAddress: string;
  sender: {
    firstName: string;
    lastName: string;
    email?: string;
    address?: CheckAddress;
    paymentMethod: { type: 'CARD'; cardTokenId: string };
  };
}
/** REJECTED and CHALLENGE are answers (HTTP 200). */
export const legacyCardCheckSchema = z.object({
  paymentId: str,
  status: z.enum(['APPROVED', 'REJECTED', 'CHALLENGE']),
  redirectAcsUrl: optStr,
  avsResult: optStr,
  cvcResult: optStr,
  aavCardholderNameResult: optStr,
  reasonCode: optStr,
});
export type LegacyCardCheck = z.infer<typeof legacyCardCheckSchema>;

// ── Alias directory ──────────────────────────────────────────────────────────────────────────────────
export interface AliasLookupRequest {
  /** ISO Alpha-3 (BRA, IND, SGP, THA, PHL) */
  countryCode: string;
  key: string;
  keyType: string;
}
const aliasFoundSchema = z.object({
  found: z.literal(true),
  countryCode: str,
  system: str,
  keyType: str,
  key: str,
  account: z.object({
    bankCode: str,
    bankName: optStr,
    accountType: optStr,
    accountNumber: str,
    branchCode: optStr,
  }),
  holder: z.object({
    name: str,
    documentType: optStr,
    document: optStr,
    type: z.enum(['INDIVIDUAL', 'BUSINESS']).optional(),
  }),
});
/** HTTP 400 with found:false — an answer, not an error. */
export const aliasNotFoundSchema = z.object({
  found: z.literal(false),
  countryCode: optStr,
  system: optStr,
  keyType: optStr,
  key: optStr,
  message: optStr,
});
export const aliasLookupSchema = z.discriminatedUnion('found', [aliasFoundSchema, aliasNotFoundSchema]);
type AliasFound = z.infer<typeof aliasFoundSchema>;
type AliasNotFound = z.infer<typeof aliasNotFoundSchema>;
export type AliasLookupResult = AliasFound | AliasNotFound;

// ── Banks ────────────────────────────────────────────────────────────────────────────────────────────
export const bankSchema = z.object({
  bankCode: str,
  bankName: str,
  countryCode: str,
  swift: optStr,
});
export type Bank = z.infer<typeof bankSchema>;
export const bankListSchema = z.object({
  banks: z.array(bankSchema),
  page: z.number().int(),
  resultsPerPage: z.number().int(),
  totalResults: z.number().int(),
});
export type BankList = z.infer<typeof bankListSchema>;

// ── Payer balance ────────────────────────────────────────────────────────────────────────────────────
export const payerBalanceSchema = z.array(
  z.object({
    providerId: str,
    balances: z.array(z.object({ currencyCode: str, balance: num })),
  }),
);
export type PayerBalance = z.infer<typeof payerBalanceSchema>;

// ── Payments ─────────────────────────────────────────────────────────────────────────────────────────
export interface AmountInput {
  total: DecimalString;
  currency: string;
}
export interface PaymentCustomer {
  firstName: string;
  lastName: string;
  phoneNumber: string;
  documentNumber: string;
  documentType: string;
  email: string;
  countryCodeAlpha3: string;
}
interface PaymentCustomerAddress {
  stateCode: string;
  city: string;
  line1: string;
  line2?: string;
  state: string;
  zipCode: string;
}
type PaymentSource =
  | { type: 'CARD'; card: { token: string } }
  | {
      type: 'BANK_ACCOUNT';
      accountType: string;
      accountNumber: string;
      routingNumber: string;
      accountHolder: { type: string; firstName: string; lastName: string };
    };
type PaymentDestination = { type: 'WALLET'; wallet: { walletId: string } } | { type: 'PIX'; pix: { keyType: string; key: string } };

export interface PullPushPaymentRequest {
  /** The idempotency key: the same value on every attempt and every later capture/void. */
  externalPaymentId: string;
  ipAddress: string;
  amount: AmountInput;
  recipientAmount: AmountInput;
  /** The quote's conversionRate as a decimal string (String(quote.conversionRate) is exact). */
  exchangeRate: DecimalString;
  /** The quote's fxId, locking the rate. */
  fxId?: string;
  sender: { customer: PaymentCustomer; customerAddress: PaymentCustomerAddress; source: PaymentSource };
  recipient: { customer: PaymentCustomer; customerAddress: PaymentCustomerAddress; destination: PaymentDestination };
}

export interface TokenPullPaymentRequest {
  externalPaymentId: string;
  ipAddress: string;
  capture: boolean;
  amount: AmountInput;
  sender: { firstName: string; lastName: string; paymentMethod: { type: 'BANK_DEPOSIT'; accountTokenId: string } };
}

export interface CaptureRequest {
  /** Omit to capture the authorized amount; a smaller amount is allowed, never larger. */
  amount?: DecimalString;
}

export interface RefundRequest {
  /** Our id of the refund: the same id again answers the same refund (never a second one). */
  externalRefundId: string;
  /** Omit to refund all that is left of the captured amount. */
  amount?: DecimalString;
}

/** A refund of a captured payment (the documents say only that one exists; its shape is the sandbox's decision). */
export const refundSchema = z.object({
  refundId: str.min(1),
  externalRefundId: str.min(1),
  amount: num,
  currency: str.length(3),
  status: str,
  created: optStr,
});
export type Refund = z.infer<typeof refundSchema>;

export const paymentSchema = z.object({
  paymentId: str.min(1),
  parentPaymentId: optStr,
  externalPaymentId: str.min(1),
  amount: num.optional(),
  created: optStr,
  approved: z.boolean(),
  message: optStr,
  automaticReversed: z.boolean().optional(),
  status: str,
  captured: z.boolean().optional(),
  voided: z.boolean().optional(),
  authCode: optStr,
  issuerName: optStr,
  issuerCountry: optStr,
  cvcResult: optStr,
  avsResult: optStr,
  aavAddressResult: optStr,
  aavPostcodeResult: optStr,
  aavCardholderNameResult: optStr,
  aavTelephoneResult: optStr,
  /** 3DS challenge, when the sandbox/gateway asks for one at payment time. */
  redirectAcsUrl: optStr,
});
export type Payment = z.infer<typeof paymentSchema>;
