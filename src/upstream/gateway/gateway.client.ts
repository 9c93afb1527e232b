import type { Clock } from '../../shared/clock';
import type { AuthProvider, CallSpec, ParsedResponse, UpstreamCaller } from '../http/upstream.caller';
import type { MoneyMovingResult } from '../http/upstream.errors';
import { jsonDecimal, jsonDecimalOpt } from '../http/upstream.json';
import { bearerAuth, TokenCache } from '../http/upstream.token-cache';
import {
  accountCheckSchema,
  accountTokenCheckSchema,
  aliasLookupSchema,
  aliasNotFoundSchema,
  bankListSchema,
  bankSchema,
  cardCheckSchema,
  fxQuoteSchema,
  fxQuoteV1Schema,
  gatewayTokenSchema,
  legacyCardCheckSchema,
  payerBalanceSchema,
  paymentSchema,
  refundSchema,
  personResultSchema,
  personSchemaSchema,
  walletBalanceSchema,
  walletSchema,
  walletStatementSchema,
  type AccountCheck,
  type AccountCheckRequest,
  type AccountTokenCheck,
  type AccountTokenCheckRequest,
  type AliasLookupRequest,
  type AliasLookupResult,
  type AmountInput,
  type Refund,
  type RefundRequest,
  type Bank,
  type BankList,
  type CaptureRequest,
  type CardCheck,
  type CardCheckRequest,
  type CreateWalletRequest,
  type FxQuote,
  type FxQuoteRequest,
  type FxQuoteV1,
  type FxQuoteV1Request,
  type LegacyCardCheck,
  type LegacyCardCheckRequest,
  type PayerBalance,
  type Payment,
  type PersonRequest,
  type PersonResult,
  type PersonSchema,
  type PullPushPaymentRequest,
  type TokenPullPaymentRequest,
  type Wallet,
  type WalletBalance,
  type WalletStatement,
  type WalletStatementQuery,
} from './gateway.types';

interface GatewayClientOptions {
  clientId: string;
  clientSecret: string;
  /** Refresh the token this many seconds before it expires (default 60). */
  tokenRefreshMarginS?: number;
  clock: Clock;
}

/**
 * The payments gateway, one method per endpoint of payments-gateway.md. No business rules: requests go
 * out as given (amounts as exact decimal literals), responses come back shape-checked.
 *
 * Decisions where the document says "not shown" (aligned with packages/sandbox/src/gateway/):
 * - Token: `POST /oauth/token {clientId, secretID}` → `{access_token, token_type, expires_in}`
 *   (gateway.types.ts); 400/401 from the token endpoint → UpstreamError kind token_rejected, never retried.
 * - Error envelope: `{ "error": { "code", "message", "details"?, "payment"? } }` (read by readErrorEnvelope).
 * - Capture body: `{}` for the authorized amount, `{ "amount": <number> }` for a partial capture — the
 *   amount is a bare number in the payment's currency (the capture cannot change currency).
 * - Void body: none (`{}` is sent so the request carries a JSON content type).
 *
 * Retries (see upstream.caller.ts): reads repeat; FX quotes are treated as reads (a quote is an offer with
 * no effect; an orphan quote simply expires); person validation creates nothing; checks repeat only with
 * an externalPaymentId (the legacy and account checks always have one, the v2 card check when given);
 * person and wallet creation never repeat. Payments, captures and voids repeat with the same
 * externalPaymentId and return MoneyMovingResult: the payment, or an UnknownOutcome to reconcile.
 */
export class GatewayClient {
  readonly tokens: TokenCache;
  private readonly auth: AuthProvider;

  constructor(
    private readonly caller: UpstreamCaller,
    private readonly opts: GatewayClientOptions,
  ) {
    this.tokens = new TokenCache({
      clock: opts.clock,
      marginMs: (opts.tokenRefreshMarginS ?? 60) * 1000,
      fetch: () => this.requestToken(),
    });
    this.auth = bearerAuth(this.tokens);
  }

  /** POST /oauth/token. Normally called only through the token cache. */
  requestToken(): Promise<{ accessToken: string; expiresInS: number }> {
    return this.caller.call({
      operation: 'token',
      method: 'POST',
      path: '/oauth/token',
      json: { clientId: this.opts.clientId, secretID: this.opts.clientSecret },
      timeoutClass: 'read',
      repeat: 'safe',
      schema: gatewayTokenSchema,
      classify: (res) => (res.status === 400 || res.status === 401 ? { kind: 'token_rejected', retryable: false } : undefined),
    });
  }

  private read<T>(spec: Omit<CallSpec<T>, 'timeoutClass' | 'repeat' | 'auth'>): Promise<T> {
    return this.caller.call({ ...spec, timeoutClass: 'read', repeat: 'safe', auth: this.auth });
  }

  private write<T>(spec: Omit<CallSpec<T>, 'timeoutClass' | 'auth'>): Promise<T> {
    return this.caller.call({ ...spec, timeoutClass: 'write', auth: this.auth });
  }

  private money<T>(key: string, spec: Omit<CallSpec<T>, 'timeoutClass' | 'repeat' | 'auth'>): Promise<MoneyMovingResult<T>> {
    return this.caller.callMoneyMoving(
      { ...spec, timeoutClass: 'payment', repeat: 'safe', auth: this.auth, errorDetails: paymentInError },
      key,
    );
  }

  // ── FX ──
  /** POST /foreign-exchange (v1). */
  createFxQuoteV1(req: FxQuoteV1Request = {}): Promise<FxQuoteV1> {
    return this.read({ operation: 'createFxQuoteV1', method: 'POST', path: '/foreign-exchange', json: req, schema: fxQuoteV1Schema });
  }

  /** POST /v2/foreign-exchange. */
  async createFxQuote(req: FxQuoteRequest): Promise<FxQuote> {
    return this.read({
      operation: 'createFxQuote',
      method: 'POST',
      path: '/v2/foreign-exchange',
      json: { ...req, sourceCurrencyAmount: jsonDecimalOpt(req.sourceCurrencyAmount) },
      schema: fxQuoteSchema,
    });
  }

  // ── Wallets ──
  /** POST /wallets — not repeated (no idempotency key). */
  createWallet(req: CreateWalletRequest): Promise<Wallet> {
    return this.write({ operation: 'createWallet', method: 'POST', path: '/wallets', json: req, repeat: 'never', schema: walletSchema });
  }

  getWallet(walletId: string): Promise<Wallet> {
    return this.read({ operation: 'getWallet', method: 'GET', path: `/wallets/${enc(walletId)}`, schema: walletSchema });
  }

  getWalletBalance(walletId: string): Promise<WalletBalance> {
    return this.read({
      operation: 'getWalletBalance',
      method: 'GET',
      path: `/wallets/${enc(walletId)}/balance`,
      schema: walletBalanceSchema,
    });
  }

  getWalletStatement(walletId: string, query: WalletStatementQuery = {}): Promise<WalletStatement> {
    return this.read({
      operation: 'getWalletStatement',
      method: 'GET',
      path: `/wallets/${enc(walletId)}/statement`,
      query: { ...query },
      schema: walletStatementSchema,
    });
  }

  // ── Persons ──
  /** POST /person — REJECTED comes back as a result (status + message), not an error. Not repeated. */
  createPerson(req: PersonRequest): Promise<PersonResult> {
    return this.write({
      operation: 'createPerson',
      method: 'POST',
      path: '/person',
      json: req,
      repeat: 'never',
      schema: personResultSchema,
    });
  }

  /** POST /person/validate — creates no record, so it is repeated like a read. */
  validatePerson(req: PersonRequest): Promise<PersonResult> {
    return this.read({ operation: 'validatePerson', method: 'POST', path: '/person/validate', json: req, schema: personResultSchema });
  }

  /** GET /schema/person?countryCode= — shape "not shown": a JSON object passed through. */
  getPersonSchema(countryCode: string): Promise<PersonSchema> {
    return this.read({
      operation: 'getPersonSchema',
      method: 'GET',
      path: '/schema/person',
      query: { countryCode },
      schema: personSchemaSchema,
    });
  }

  // ── Checks ──
  /** POST /check-account, Form A (bank-linking token). Repeated with the same externalPaymentId. */
  checkBankAccountToken(req: AccountTokenCheckRequest): Promise<AccountTokenCheck> {
    return this.write({
      operation: 'checkBankAccountToken',
      method: 'POST',
      path: '/check-account',
      json: req,
      repeat: 'safe',
      schema: accountTokenCheckSchema,
    });
  }

  /** POST /check-account, Form B (raw details). DECLINED/INVALID is a result. Repeated with the same key. */
  checkBankAccount(req: AccountCheckRequest): Promise<AccountCheck> {
    return this.write({
      operation: 'checkBankAccount',
      method: 'POST',
      path: '/check-account',
      json: req,
      repeat: 'safe',
      schema: accountCheckSchema,
    });
  }

  /** POST /v2/check-card-account. A 3DS challenge is a result (redirectAcsUrl non-empty). */
  checkCard(req: CardCheckRequest): Promise<CardCheck> {
    return this.write({
      operation: 'checkCard',
      method: 'POST',
      path: '/v2/check-card-account',
      json: req,
      repeat: req.externalPaymentId ? 'safe' : 'never',
      schema: cardCheckSchema,
    });
  }

  /** POST /check-card-account (legacy). REJECTED and CHALLENGE are results. Repeated with the same key. */
  checkCardLegacy(req: LegacyCardCheckRequest): Promise<LegacyCardCheck> {
    return this.write({
      operation: 'checkCardLegacy',
      method: 'POST',
      path: '/check-card-account',
      json: req,
      repeat: 'safe',
      schema: legacyCardCheckSchema,
    });
  }

  // ── Directories ──
  /** POST /v1/alias/directory — `found: false` (HTTP 400) is a result, not an error. */
  lookupAlias(req: AliasLookupRequest): Promise<AliasLookupResult> {
    return this.read({
      operation: 'lookupAlias',
      method: 'POST',
      path: '/v1/alias/directory',
      json: req,
      schema: aliasLookupSchema,
      answer: (res) =>
        res.status === 400 && isObj(res.body) && (res.body as { found?: unknown }).found === false
          ? { schema: aliasNotFoundSchema }
          : undefined,
    });
  }

  /** GET /bank?bankNumber=&countryCode= */
  getBank(q: { bankNumber: string; countryCode: string }): Promise<Bank> {
    return this.read({ operation: 'getBank', method: 'GET', path: '/bank', query: { ...q }, schema: bankSchema });
  }

  /** GET /bank/list?countryCode=&page=&resultsPerPage= (page zero-based) */
  listBanks(q: { countryCode: string; page?: number; resultsPerPage?: number }): Promise<BankList> {
    return this.read({ operation: 'listBanks', method: 'GET', path: '/bank/list', query: { ...q }, schema: bankListSchema });
  }

  /** GET /payer/balance */
  getPayerBalance(): Promise<PayerBalance> {
    return this.read({ operation: 'getPayerBalance', method: 'GET', path: '/payer/balance', schema: payerBalanceSchema });
  }

  // ── Payments (money moving) ──
  /**
   * POST /v2/payment, PULLPUSH. Every attempt carries the same externalPaymentId. Returns the payment
   * (which may be approved: false — a decline is an answer) or an UnknownOutcome.
   */
  async createPayment(req: PullPushPaymentRequest): Promise<MoneyMovingResult<Payment>> {
    return this.money(req.externalPaymentId, {
      operation: 'createPayment',
      method: 'POST',
      path: '/v2/payment',
      json: {
        ...req,
        paymentType: 'PULLPUSH',
        amount: amount(req.amount),
        recipientAmount: amount(req.recipientAmount),
        exchangeRate: jsonDecimal(req.exchangeRate),
      },
      schema: paymentSchema,
    });
  }

  /** POST /v2/payment, PULL by bank-linking account token. */
  async createTokenPullPayment(req: TokenPullPaymentRequest): Promise<MoneyMovingResult<Payment>> {
    return this.money(req.externalPaymentId, {
      operation: 'createTokenPullPayment',
      method: 'POST',
      path: '/v2/payment',
      json: { ...req, paymentType: 'PULL', amount: amount(req.amount) },
      schema: paymentSchema,
    });
  }

  /** POST /payments/{externalPaymentId}/capture; `amount` omitted = the authorized amount. */
  async capturePayment(externalPaymentId: string, req: CaptureRequest = {}): Promise<MoneyMovingResult<Payment>> {
    return this.money(externalPaymentId, {
      operation: 'capturePayment',
      method: 'POST',
      path: `/payments/${enc(externalPaymentId)}/capture`,
      json: req.amount === undefined ? {} : { amount: jsonDecimal(req.amount) },
      schema: paymentSchema,
    });
  }

  /** POST /payments/{externalPaymentId}/refund: idempotent by `externalRefundId` (the retry of a lost answer is safe). */
  refundPayment(externalPaymentId: string, req: RefundRequest): Promise<MoneyMovingResult<Refund>> {
    return this.money(req.externalRefundId, {
      operation: 'refundPayment',
      method: 'POST',
      path: `/payments/${enc(externalPaymentId)}/refund`,
      json:
        req.amount === undefined
          ? { externalRefundId: req.externalRefundId }
          : { externalRefundId: req.externalRefundId, amount: jsonDecimal(req.amount) },
      schema: refundSchema,
    });
  }

  /** POST /payments/{externalPaymentId}/void */
  voidPayment(externalPaymentId: string): Promise<MoneyMovingResult<Payment>> {
    return this.money(externalPaymentId, {
      operation: 'voidPayment',
      method: 'POST',
      path: `/payments/${enc(externalPaymentId)}/void`,
      json: {},
      schema: paymentSchema,
    });
  }
}

const enc = encodeURIComponent;

/**
 * The gateway's capture/void refusals (409 PAYMENT_ALREADY_CAPTURED, PAYMENT_VOIDED, ...) carry the payment
 * in `error.payment` (sandbox decision, packages/sandbox/src/gateway/gateway.payments.ts). Exposed, shape-checked, as
 * UpstreamError.details.payment — after a lost response it tells the saga where the payment stands (there
 * is no documented "get a payment" endpoint to read back).
 */
function paymentInError(res: ParsedResponse): Record<string, unknown> | null {
  const body = res.body as { error?: { payment?: unknown } } | undefined;
  const parsed = body?.error?.payment !== undefined ? paymentSchema.safeParse(body.error.payment) : null;
  return parsed?.success ? { payment: parsed.data } : null;
}
const isObj = (v: unknown): boolean => typeof v === 'object' && v !== null && !Array.isArray(v);
const amount = (a: AmountInput) => ({ total: jsonDecimal(a.total), currency: a.currency });
