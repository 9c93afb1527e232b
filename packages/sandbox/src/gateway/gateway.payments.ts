/**
 * Payments: POST /v2/payment (PULLPUSH, or PULL by account token), POST /payments/{externalPaymentId}/capture,
 * POST /payments/{externalPaymentId}/void, POST /payments/{externalPaymentId}/refund.
 *
 * Decisions where the spec says "not shown":
 * - Validation failures → 400 VALIDATION_ERROR (field list in error.details). paymentType PUSH, and PULL with
 *   anything but a BANK_DEPOSIT account token, → 400 UNSUPPORTED_PAYMENT_TYPE (those bodies are not documented).
 * - PULLPUSH amount must be in USD ("pull amount, sender side, USD").
 * - Rate lock: with fxId the quote must exist (else 422 QUOTE_NOT_FOUND), be unexpired on the sandbox clock
 *   (else 422 QUOTE_EXPIRED), match the currencies (else 422 QUOTE_MISMATCH) and exchangeRate must equal its
 *   conversionRate (else 422 EXCHANGE_RATE_MISMATCH). Without fxId, exchangeRate must equal the reference rate.
 *   recipientAmount.total must not exceed amount.total × exchangeRate by more than one minor unit (else 422
 *   AMOUNT_MISMATCH): the pull may be worth more than the push — the sender's fee, which the originator keeps.
 * - Declined authorization (magic card tokens, see gateway.cards.ts; bank account number ending 0000; bad ABA
 *   checksum; 3DS card not yet authenticated) → HTTP 200 with approved false, status DECLINED, message; stored.
 * - Idempotency on externalPaymentId: the same body again → 200 with the payment's current state (what a
 *   client whose response was lost needs); a different body → 409 IDEMPOTENCY_CONFLICT.
 * - Capture body (optional): { "amount": 12.34 } in the authorized currency; absent/empty → full amount.
 *   Larger than authorized → 422 CAPTURE_AMOUNT_EXCEEDS_AUTHORIZED. A partial capture releases the rest.
 *   Capturing twice → 409 PAYMENT_ALREADY_CAPTURED. Capture/void of a voided, cancelled or declined payment →
 *   409 PAYMENT_VOIDED / PAYMENT_CANCELLED / PAYMENT_DECLINED; void after capture → 409 PAYMENT_ALREADY_CAPTURED;
 *   unknown id → 404 PAYMENT_NOT_FOUND. These 409s carry the payment response in error.payment.
 * - Refund (the documents say only that a refund is used where a void is no longer possible): body
 *   { "externalRefundId": "<1–64 of A-Za-z0-9_:-.>", "amount"?: 12.34 } → 200 { refundId, externalRefundId, amount,
 *   currency, status: "SUCCEEDED", created }. Only after a capture (else 409 PAYMENT_NOT_CAPTURED, with the payment);
 *   amount in the payment's currency, absent → all that is left; at most what was captured less what was refunded
 *   (else 422 REFUND_AMOUNT_EXCEEDS_CAPTURED; nothing left → 409 PAYMENT_FULLY_REFUNDED). Idempotent on
 *   externalRefundId: the same id again → 200 with that refund (a lost answer is retried with the same id); the same
 *   id with another amount → 409 IDEMPOTENCY_CONFLICT. The payment view gains refundedAmount. A refund returns money
 *   to the sender's source; it does not take back what was paid out.
 * - Authorizations not captured within options.authorizationLifetimeS (7 days) of sandbox time become
 *   CANCELLED with automaticReversed true (checked on every gateway request and whenever the clock moves).
 * - created is "YYYY-MM-DD HH:mm:ss" (UTC). Extra fields beyond the documented ones: paymentType, currency,
 *   recipientAmount, exchangeRate, fxId, capturedAmount.
 */
import { randomUUID } from 'node:crypto';
import Decimal from 'decimal.js';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { isAlpha3 } from './gateway.countries';
import { cardProfile } from './gateway.cards';
import { GatewayError, Issues } from './gateway.errors';
import { convert, minorUnits, num, parseAmountObject, parsePositiveAmount, referenceRate } from './gateway.money';
import { adjustPayerBalance, payerBalance } from './gateway.payer';
import type { GatewayDeps, GatewayState, Payment, Refund } from './gateway.state';
import {
  bodyHash,
  bodyObject,
  gatewayTimestamp,
  hashDigits,
  isAbaRoutingNumber,
  isEmail,
  isIpAddress,
  isRecord,
  isUuid,
  optBoolean,
  optString,
  reqObject,
  reqString,
  type Json,
} from './gateway.validate';
import { creditWallet, holdInWallet, releaseHold } from './gateway.wallets';
import type { PaymentFacts, SandboxContext } from '../sandbox.context';

const PIX_KEYS: Record<string, (k: string) => boolean> = {
  CPF: (k) => /^\d{11}$/.test(k),
  CNPJ: (k) => /^\d{14}$/.test(k),
  EMAIL: isEmail,
  PHONE: (k) => /^\+55\d{10,11}$/.test(k),
  EVP: isUuid,
};

export function paymentView(p: Payment): Record<string, unknown> {
  const card = p.sourceType === 'CARD';
  const result = card ? 'NOT_CHECKED' : 'N/A';
  const view: Record<string, unknown> = {
    paymentId: p.paymentId,
    parentPaymentId: p.paymentId,
    externalPaymentId: p.externalPaymentId,
    paymentType: p.paymentType,
    amount: num(p.amount.total),
    currency: p.amount.currency,
    created: gatewayTimestamp(new Date(p.createdAtMs)),
    approved: p.approved,
    message: p.message,
    automaticReversed: p.status === 'CANCELLED',
    status: p.status,
    captured: p.status === 'CAPTURED',
    voided: p.status === 'VOIDED',
    authCode: p.authCode,
    issuerName: p.issuerName,
    issuerCountry: p.issuerCountry,
    cvcResult: card ? 'NOT_SENT' : 'N/A',
    avsResult: result,
    aavAddressResult: result,
    aavPostcodeResult: result,
    aavCardholderNameResult: result,
    aavTelephoneResult: result,
  };
  if (p.recipientAmount) view.recipientAmount = { total: num(p.recipientAmount.total), currency: p.recipientAmount.currency };
  if (p.exchangeRate) view.exchangeRate = num(p.exchangeRate);
  if (p.fxId) view.fxId = p.fxId;
  if (p.capturedAmount) view.capturedAmount = num(p.capturedAmount);
  if (p.refunds?.size) view.refundedAmount = num(refundedOf(p));
  return view;
}

/** What was refunded of a payment so far. */
const refundedOf = (p: Payment): Decimal => [...(p.refunds?.values() ?? [])].reduce((sum, r) => sum.plus(r.amount), new Decimal(0));

function refundView(r: Refund): Record<string, unknown> {
  return {
    refundId: r.refundId,
    externalRefundId: r.externalRefundId,
    amount: num(r.amount),
    currency: r.currency,
    status: r.status,
    created: new Date(r.createdAtMs).toISOString().replace('T', ' ').slice(0, 19),
  };
}

function facts(p: Payment): PaymentFacts {
  return {
    paymentId: p.paymentId,
    externalPaymentId: p.externalPaymentId,
    amount: { total: num(p.amount.total), currency: p.amount.currency },
    recipientAmount: p.recipientAmount
      ? { total: num(p.recipientAmount.total), currency: p.recipientAmount.currency }
      : { total: num(p.amount.total), currency: p.amount.currency },
    senderLastName: p.senderLastName,
    recipientLastName: p.recipientLastName,
  };
}

/** Publishes a payment fact for the remittances platform; a failing listener never breaks the gateway. */
function emit(
  ctx: SandboxContext,
  request: FastifyRequest | null,
  p: Payment,
  event: 'authorized' | 'declined' | 'voided' | 'cancelled' | 'captured',
): void {
  if (p.paymentType !== 'PULLPUSH') return;
  try {
    if (event === 'captured') ctx.bus.emit('payment.captured', { ...facts(p), capturedAmount: num(p.capturedAmount!) });
    else ctx.bus.emit(`payment.${event}`, facts(p));
  } catch (err) {
    request?.log.error({ err }, `sandbox bus listener failed on payment.${event}`);
  }
}

function releaseWalletHold(state: GatewayState, p: Payment): void {
  if (p.destination?.type === 'WALLET' && p.heldInWallet) {
    const w = state.wallets.get(p.destination.walletId);
    if (w) releaseHold(w, p.heldInWallet);
    p.heldInWallet = undefined;
  }
}

/** Cancels every authorization older than the lifetime (sandbox clock). */
export function expireAuthorizations(ctx: SandboxContext, state: GatewayState): void {
  const limitMs = ctx.options.authorizationLifetimeS * 1000;
  const now = ctx.nowMs();
  for (const p of state.payments.values()) {
    if (p.status === 'AUTHORIZED' && now - p.createdAtMs >= limitMs) {
      p.status = 'CANCELLED';
      p.cancelledAtMs = now;
      p.message = 'Authorization cancelled: not captured within 7 days';
      releaseWalletHold(state, p);
      emit(ctx, null, p, 'cancelled');
    }
  }
}

/**
 * The dropResponseAfterCommit fault: the work is committed, then the socket is destroyed without an answer.
 * The call is recorded here with status 0 (the server's onResponse hook skips it), under the request's idempotency key
 * (the payment's id; a refund's own id).
 */
function dropAfterCommit(ctx: SandboxContext, request: FastifyRequest, reply: FastifyReply, idempotencyKey: string): boolean {
  if (!ctx.shouldDropAfterCommit()) return false;
  ctx.recordCall({
    service: 'gateway',
    method: request.method,
    path: request.url.split('?')[0],
    status: 0,
    idempotencyKey,
  });
  ctx.recordedRequests.add(request.raw);
  reply.hijack();
  request.raw.socket.destroy();
  return true;
}

interface PartyCheck {
  lastName?: string;
  firstName?: string;
}

function validateCustomer(issues: Issues, party: Json, path: string, strict: boolean): PartyCheck {
  const c = reqObject(issues, party, 'customer', `${path}.customer`);
  const out: PartyCheck = {};
  if (c) {
    out.firstName = reqString(issues, c, 'firstName', `${path}.customer.firstName`, { max: 100 });
    out.lastName = reqString(issues, c, 'lastName', `${path}.customer.lastName`, { max: 100 });
    const str = strict ? reqString : optString;
    str(issues, c, 'phoneNumber', `${path}.customer.phoneNumber`, {
      check: (v) => (/^\+?\d{7,15}$/.test(v) ? null : 'must have 7 to 15 digits'),
    });
    str(issues, c, 'documentNumber', `${path}.customer.documentNumber`, { max: 64 });
    str(issues, c, 'documentType', `${path}.customer.documentType`, { max: 32 });
    str(issues, c, 'email', `${path}.customer.email`, { check: (v) => (isEmail(v) ? null : 'must be an email address') });
    reqString(issues, c, 'countryCodeAlpha3', `${path}.customer.countryCodeAlpha3`, {
      check: (v) => (isAlpha3(v) ? null : 'must be an ISO 3166-1 alpha-3 code'),
    });
  }
  const a = reqObject(issues, party, 'customerAddress', `${path}.customerAddress`);
  if (a) {
    reqString(issues, a, 'stateCode', `${path}.customerAddress.stateCode`, { max: 64 });
    reqString(issues, a, 'city', `${path}.customerAddress.city`, { max: 100 });
    reqString(issues, a, 'line1', `${path}.customerAddress.line1`, { max: 200 });
    optString(issues, a, 'line2', `${path}.customerAddress.line2`, { max: 200 });
    reqString(issues, a, 'state', `${path}.customerAddress.state`, { max: 100 });
    reqString(issues, a, 'zipCode', `${path}.customerAddress.zipCode`, { max: 16 });
  }
  return out;
}

type Source = { type: 'CARD'; token: string } | { type: 'BANK_ACCOUNT'; accountNumber: string; routingNumber: string };

function validateSource(issues: Issues, sender: Json): Source | undefined {
  const s = reqObject(issues, sender, 'source', 'sender.source');
  if (!s) return undefined;
  const type = reqString(issues, s, 'type', 'sender.source.type', { oneOf: ['CARD', 'BANK_ACCOUNT'] });
  if (type === 'CARD') {
    const card = reqObject(issues, s, 'card', 'sender.source.card');
    const token =
      card && reqString(issues, card, 'token', 'sender.source.card.token', { check: (v) => (isUuid(v) ? null : 'must be a token UUID') });
    return token ? { type, token } : undefined;
  }
  if (type === 'BANK_ACCOUNT') {
    reqString(issues, s, 'accountType', 'sender.source.accountType', { max: 32 });
    const accountNumber = reqString(issues, s, 'accountNumber', 'sender.source.accountNumber', {
      pattern: /^[A-Za-z0-9]{4,34}$/,
      patternIssue: 'must be 4 to 34 letters or digits',
    });
    const routingNumber = reqString(issues, s, 'routingNumber', 'sender.source.routingNumber', {
      pattern: /^\d{9}$/,
      patternIssue: 'must be a 9-digit ABA routing number',
    });
    const holder = reqObject(issues, s, 'accountHolder', 'sender.source.accountHolder');
    if (holder) {
      reqString(issues, holder, 'type', 'sender.source.accountHolder.type', { max: 32 });
      reqString(issues, holder, 'firstName', 'sender.source.accountHolder.firstName', { max: 100 });
      reqString(issues, holder, 'lastName', 'sender.source.accountHolder.lastName', { max: 100 });
    }
    return accountNumber && routingNumber ? { type, accountNumber, routingNumber } : undefined;
  }
  return undefined;
}

function validateDestination(issues: Issues, recipient: Json): Payment['destination'] {
  const d = reqObject(issues, recipient, 'destination', 'recipient.destination');
  if (!d) return undefined;
  const type = reqString(issues, d, 'type', 'recipient.destination.type', { oneOf: ['WALLET', 'PIX'] });
  if (type === 'WALLET') {
    const w = reqObject(issues, d, 'wallet', 'recipient.destination.wallet');
    const walletId = w && reqString(issues, w, 'walletId', 'recipient.destination.wallet.walletId', { max: 128 });
    return walletId ? { type, walletId } : undefined;
  }
  if (type === 'PIX') {
    const pix = reqObject(issues, d, 'pix', 'recipient.destination.pix');
    if (!pix) return undefined;
    const keyType = reqString(issues, pix, 'keyType', 'recipient.destination.pix.keyType', { oneOf: Object.keys(PIX_KEYS) });
    const key = reqString(issues, pix, 'key', 'recipient.destination.pix.key', { max: 77 });
    if (keyType && key && !PIX_KEYS[keyType](key)) {
      issues.add('recipient.destination.pix.key', `invalid ${keyType} key`);
      return undefined;
    }
    return keyType && key ? { type, keyType, key } : undefined;
  }
  return undefined;
}

const unprocessable = (code: string, message: string): GatewayError => new GatewayError(422, code, message);

export function registerPayments(app: FastifyInstance, { ctx, state }: GatewayDeps): void {
  const initialBalance = () => ctx.options.payerInitialBalance;

  const authCode = () => hashDigits(randomUUID(), 6);

  app.post('/v2/payment', async (request, reply) => {
    const body = bodyObject(request.body);
    const issues = new Issues();
    const externalPaymentId = reqString(issues, body, 'externalPaymentId', 'externalPaymentId', { max: 100 });

    // Idempotency before anything else: a retry must find its payment even after the quote expired.
    if (externalPaymentId) {
      const existing = state.payments.get(externalPaymentId);
      if (existing) {
        if (existing.bodyHash !== bodyHash(body)) {
          throw new GatewayError(
            409,
            'IDEMPOTENCY_CONFLICT',
            `externalPaymentId ${externalPaymentId} was already used with a different request`,
          );
        }
        return paymentView(existing);
      }
    }

    reqString(issues, body, 'ipAddress', 'ipAddress', { check: (v) => (isIpAddress(v) ? null : 'must be an IPv4 or IPv6 address') });
    const paymentType = reqString(issues, body, 'paymentType', 'paymentType', { oneOf: ['PULLPUSH', 'PULL', 'PUSH'] });
    const capture = optBoolean(issues, body, 'capture', 'capture') ?? false;
    if (paymentType === 'PUSH') {
      throw new GatewayError(400, 'UNSUPPORTED_PAYMENT_TYPE', 'PUSH payments are not supported by the sandbox; use PULLPUSH');
    }

    if (paymentType === 'PULL') {
      const amount = parseAmountObject(issues, body, 'amount', 'amount');
      const sender = reqObject(issues, body, 'sender', 'sender');
      let accountTokenId: string | undefined;
      if (sender) {
        reqString(issues, sender, 'firstName', 'sender.firstName', { max: 100 });
        reqString(issues, sender, 'lastName', 'sender.lastName', { max: 100 });
        const pm = reqObject(issues, sender, 'paymentMethod', 'sender.paymentMethod');
        if (pm) {
          if (pm.type !== undefined && pm.type !== 'BANK_DEPOSIT') {
            throw new GatewayError(
              400,
              'UNSUPPORTED_PAYMENT_TYPE',
              'the sandbox supports PULL only by account token (paymentMethod.type BANK_DEPOSIT)',
            );
          }
          reqString(issues, pm, 'type', 'sender.paymentMethod.type', { oneOf: ['BANK_DEPOSIT'] });
          accountTokenId = reqString(issues, pm, 'accountTokenId', 'sender.paymentMethod.accountTokenId', { max: 128 });
        }
      }
      issues.throwIfAny();
      if (!state.accountTokens.has(accountTokenId!)) {
        throw unprocessable(
          'ACCOUNT_TOKEN_NOT_FOUND',
          'accountTokenId is unknown: obtain one from POST /check-account (bank-linking form)',
        );
      }
      const p: Payment = {
        paymentId: randomUUID(),
        externalPaymentId: externalPaymentId!,
        bodyHash: bodyHash(body),
        paymentType: 'PULL',
        status: 'AUTHORIZED',
        approved: true,
        message: 'Approved',
        amount: amount!,
        createdAtMs: ctx.nowMs(),
        authCode: authCode(),
        sourceType: 'BANK_DEPOSIT',
        issuerName: 'Sandbox Checking',
        issuerCountry: state.accountTokens.get(accountTokenId!)!.countryCode,
        providerId: 'sandbox-ach',
        senderLastName: String((sender as Json).lastName),
        recipientLastName: '',
      };
      state.payments.set(p.externalPaymentId, p);
      if (capture) captureNow(p, amount!.total);
      if (dropAfterCommit(ctx, request, reply, p.externalPaymentId)) return reply;
      return paymentView(p);
    }

    // PULLPUSH
    const amount = parseAmountObject(issues, body, 'amount', 'amount');
    if (amount && amount.currency !== 'USD') issues.add('amount.currency', 'must be USD (the pull amount is in USD)');
    const recipientAmount = parseAmountObject(issues, body, 'recipientAmount', 'recipientAmount');
    let exchangeRate: Decimal | undefined;
    if (body.exchangeRate === undefined || body.exchangeRate === null) issues.add('exchangeRate', 'required');
    else if (typeof body.exchangeRate !== 'number' || !Number.isFinite(body.exchangeRate) || body.exchangeRate <= 0) {
      issues.add('exchangeRate', 'must be a positive number');
    } else exchangeRate = new Decimal(body.exchangeRate);
    const fxId = optString(issues, body, 'fxId', 'fxId', { max: 100 });
    const sender = reqObject(issues, body, 'sender', 'sender');
    const recipient = reqObject(issues, body, 'recipient', 'recipient');
    let source: Source | undefined;
    let senderParty: PartyCheck = {};
    let recipientParty: PartyCheck | undefined;
    let destination: Payment['destination'];
    if (sender) {
      senderParty = validateCustomer(issues, sender, 'sender', true);
      source = validateSource(issues, sender);
    }
    if (recipient) {
      recipientParty = validateCustomer(issues, recipient, 'recipient', false);
      destination = validateDestination(issues, recipient);
    }
    issues.throwIfAny();
    if (!amount || !recipientAmount || !exchangeRate || !source || !destination) throw new Error('unreachable: validated');

    // Rate lock.
    if (fxId) {
      const quote = state.quotes.get(fxId);
      if (!quote) throw unprocessable('QUOTE_NOT_FOUND', `fxId ${fxId} is unknown`);
      if (ctx.nowMs() > quote.expiresAtMs)
        throw unprocessable('QUOTE_EXPIRED', `fxId ${fxId} expired at ${new Date(quote.expiresAtMs).toISOString()}`);
      if (quote.sourceCurrencyCode !== amount.currency || quote.destinationCurrencyCode !== recipientAmount.currency) {
        throw unprocessable(
          'QUOTE_MISMATCH',
          `fxId ${fxId} quotes ${quote.sourceCurrencyCode}→${quote.destinationCurrencyCode}, not ${amount.currency}→${recipientAmount.currency}`,
        );
      }
      if (!quote.rate.eq(exchangeRate)) {
        throw unprocessable('EXCHANGE_RATE_MISMATCH', `exchangeRate must be the quote's conversionRate ${quote.rate.toString()}`);
      }
    } else {
      const ref = referenceRate(amount.currency, recipientAmount.currency);
      if (!ref.eq(exchangeRate)) {
        throw unprocessable('EXCHANGE_RATE_MISMATCH', `without fxId, exchangeRate must be the reference rate ${ref.toString()}`);
      }
    }
    const expected = amount.total.mul(exchangeRate);
    const oneUnit = new Decimal(1).div(new Decimal(10).pow(minorUnits(recipientAmount.currency)));
    // the push may be worth less than the pull (the originator keeps its fee), never more
    if (recipientAmount.total.minus(expected).gt(oneUnit)) {
      throw unprocessable(
        'AMOUNT_MISMATCH',
        `recipientAmount.total must not exceed amount.total × exchangeRate (${convert(amount.total, exchangeRate, recipientAmount.currency).toString()})`,
      );
    }
    if (destination.type === 'WALLET') {
      const w = state.wallets.get(destination.walletId);
      if (!w) throw unprocessable('INVALID_DESTINATION', `wallet ${destination.walletId} not found`);
      if (w.accountAsset !== recipientAmount.currency) {
        throw unprocessable('INVALID_DESTINATION', `wallet ${w.walletId} holds ${w.accountAsset}, not ${recipientAmount.currency}`);
      }
    } else if (recipientAmount.currency !== 'BRL') {
      throw unprocessable('INVALID_DESTINATION', 'PIX payouts are in BRL');
    }
    const providerId = destination.type === 'WALLET' ? 'sandbox-wallets' : 'sandbox-pix';
    if (capture && payerBalance(state, initialBalance(), providerId, recipientAmount.currency).lt(recipientAmount.total)) {
      throw unprocessable('INSUFFICIENT_PAYER_BALANCE', `payer balance at ${providerId} in ${recipientAmount.currency} is too low`);
    }

    // Authorization decision.
    let declineReason: string | null = null;
    let issuerName = 'Sandbox Bank Account';
    let issuerCountry = 'US';
    if (source.type === 'CARD') {
      const card = cardProfile(source.token);
      issuerName = card.issuerName;
      issuerCountry = card.issuerCountry;
      declineReason = card.declineReason;
      if (!declineReason && card.needs3ds && !state.authenticatedCards.has(source.token.toLowerCase())) {
        declineReason = '3DS authentication required: complete the card check challenge first';
      }
    } else if (source.accountNumber.endsWith('0000')) declineReason = 'Account not found';
    else if (!isAbaRoutingNumber(source.routingNumber)) declineReason = 'Invalid routing number';

    const p: Payment = {
      paymentId: randomUUID(),
      externalPaymentId: externalPaymentId!,
      bodyHash: bodyHash(body),
      paymentType: 'PULLPUSH',
      status: declineReason ? 'DECLINED' : 'AUTHORIZED',
      approved: !declineReason,
      message: declineReason ?? 'Approved',
      amount,
      recipientAmount,
      exchangeRate,
      fxId,
      createdAtMs: ctx.nowMs(),
      authCode: declineReason ? null : authCode(),
      sourceType: source.type,
      cardTokenId: source.type === 'CARD' ? source.token : undefined,
      issuerName,
      issuerCountry,
      destination,
      providerId,
      senderLastName: senderParty.lastName ?? '',
      recipientLastName: recipientParty?.lastName ?? '',
    };
    state.payments.set(p.externalPaymentId, p);
    if (declineReason) {
      emit(ctx, request, p, 'declined');
    } else {
      if (destination.type === 'WALLET') {
        holdInWallet(state.wallets.get(destination.walletId)!, recipientAmount.total);
        p.heldInWallet = recipientAmount.total;
      }
      emit(ctx, request, p, 'authorized');
      if (capture) captureNow(p, amount.total, request);
    }
    if (dropAfterCommit(ctx, request, reply, p.externalPaymentId)) return reply;
    return paymentView(p);
  });

  /** Commits a capture of `amount` (already checked ≤ authorized). */
  function captureNow(p: Payment, amount: Decimal, request: FastifyRequest | null = null): void {
    const now = ctx.nowMs();
    p.status = 'CAPTURED';
    p.capturedAmount = amount;
    p.capturedAtMs = now;
    p.message = 'Captured';
    if (p.paymentType === 'PULL') {
      adjustPayerBalance(state, initialBalance(), p.providerId, p.amount.currency, amount);
      return;
    }
    const recipient = p.recipientAmount!;
    const pushAmount = amount.eq(p.amount.total) ? recipient.total : convert(amount, p.exchangeRate!, recipient.currency);
    p.capturedRecipientAmount = pushAmount;
    releaseWalletHold(state, p);
    if (p.destination?.type === 'WALLET') {
      const w = state.wallets.get(p.destination.walletId);
      if (w) creditWallet(w, pushAmount, p.externalPaymentId, `Payout ${p.externalPaymentId}`, now);
    }
    adjustPayerBalance(state, initialBalance(), p.providerId, recipient.currency, pushAmount.neg());
    emit(ctx, request, p, 'captured');
  }

  function findPayment(externalPaymentId: string): Payment {
    const p = state.payments.get(externalPaymentId);
    if (!p) throw new GatewayError(404, 'PAYMENT_NOT_FOUND', `no payment with externalPaymentId ${externalPaymentId}`);
    return p;
  }

  function refuseState(p: Payment, action: 'capture' | 'void'): void {
    const conflict = (code: string, message: string) => new GatewayError(409, code, message, undefined, { payment: paymentView(p) });
    switch (p.status) {
      case 'CAPTURED':
        throw conflict(
          'PAYMENT_ALREADY_CAPTURED',
          action === 'capture' ? 'payment already captured (captures per payment: 1)' : 'a captured payment cannot be voided; use a refund',
        );
      case 'VOIDED':
        throw conflict('PAYMENT_VOIDED', `payment was voided; ${action} is not possible`);
      case 'CANCELLED':
        throw conflict('PAYMENT_CANCELLED', `authorization was cancelled (not captured within 7 days); ${action} is not possible`);
      case 'DECLINED':
        throw conflict('PAYMENT_DECLINED', `payment was declined; ${action} is not possible`);
      default:
    }
  }

  app.post('/payments/:externalPaymentId/capture', async (request, reply) => {
    const { externalPaymentId } = request.params as { externalPaymentId: string };
    const p = findPayment(externalPaymentId);
    let amount = p.amount.total;
    if (request.body !== undefined && request.body !== null) {
      if (!isRecord(request.body)) throw new GatewayError(400, 'INVALID_REQUEST', 'capture body must be a JSON object { amount? }');
      if (request.body.amount !== undefined && request.body.amount !== null) {
        const issues = new Issues();
        const parsed = parsePositiveAmount(issues, request.body.amount, p.amount.currency, 'amount');
        issues.throwIfAny();
        amount = parsed!;
      }
    }
    refuseState(p, 'capture');
    if (amount.gt(p.amount.total)) {
      throw unprocessable(
        'CAPTURE_AMOUNT_EXCEEDS_AUTHORIZED',
        `capture amount ${amount.toString()} is above the authorized ${p.amount.total.toString()}`,
      );
    }
    if (p.paymentType === 'PULLPUSH') {
      const push = amount.eq(p.amount.total) ? p.recipientAmount!.total : convert(amount, p.exchangeRate!, p.recipientAmount!.currency);
      if (payerBalance(state, initialBalance(), p.providerId, p.recipientAmount!.currency).lt(push)) {
        throw unprocessable('INSUFFICIENT_PAYER_BALANCE', `payer balance at ${p.providerId} in ${p.recipientAmount!.currency} is too low`);
      }
    }
    captureNow(p, amount, request);
    if (dropAfterCommit(ctx, request, reply, externalPaymentId)) return reply;
    return paymentView(p);
  });

  app.post('/payments/:externalPaymentId/refund', async (request, reply) => {
    const { externalPaymentId } = request.params as { externalPaymentId: string };
    const p = findPayment(externalPaymentId);
    if (!isRecord(request.body))
      throw new GatewayError(400, 'INVALID_REQUEST', 'refund body must be a JSON object { externalRefundId, amount? }');
    const issues = new Issues();
    const externalRefundId = reqString(issues, request.body, 'externalRefundId', 'externalRefundId', { max: 64 });
    if (externalRefundId !== undefined && !/^[A-Za-z0-9_:.-]{1,64}$/.test(externalRefundId))
      issues.add('externalRefundId', 'must be 1 to 64 of A-Za-z0-9_:-.');
    const amount =
      request.body.amount === undefined || request.body.amount === null
        ? null
        : parsePositiveAmount(issues, request.body.amount, p.amount.currency, 'amount');
    issues.throwIfAny();
    const refunds = (p.refunds ??= new Map());
    const existing = refunds.get(externalRefundId!);
    if (existing) {
      if (amount && !amount.eq(existing.amount))
        throw new GatewayError(409, 'IDEMPOTENCY_CONFLICT', `refund ${externalRefundId} was made for another amount`, undefined, {
          payment: paymentView(p),
        });
      return refundView(existing);
    }
    if (p.status !== 'CAPTURED')
      throw new GatewayError(409, 'PAYMENT_NOT_CAPTURED', `only a captured payment can be refunded (it is ${p.status})`, undefined, {
        payment: paymentView(p),
      });
    const left = p.capturedAmount!.minus(refundedOf(p));
    if (left.lte(0))
      throw new GatewayError(409, 'PAYMENT_FULLY_REFUNDED', 'the captured amount was refunded in full', undefined, {
        payment: paymentView(p),
      });
    const value = amount ?? left;
    if (value.gt(left))
      throw unprocessable(
        'REFUND_AMOUNT_EXCEEDS_CAPTURED',
        `refund amount ${value.toString()} is above what is left to refund (${left.toString()})`,
      );
    const refund = {
      refundId: randomUUID(),
      externalRefundId: externalRefundId!,
      amount: value,
      currency: p.amount.currency,
      status: 'SUCCEEDED' as const,
      createdAtMs: ctx.nowMs(),
    };
    refunds.set(refund.externalRefundId, refund);
    try {
      ctx.bus.emit('payment.refunded', { ...facts(p), refundAmount: num(value), externalRefundId: refund.externalRefundId });
    } catch (err) {
      request.log.warn({ err }, 'payment.refunded listener failed');
    }
    if (dropAfterCommit(ctx, request, reply, refund.externalRefundId)) return reply;
    return refundView(refund);
  });

  app.post('/payments/:externalPaymentId/void', async (request, reply) => {
    const { externalPaymentId } = request.params as { externalPaymentId: string };
    const p = findPayment(externalPaymentId);
    refuseState(p, 'void');
    p.status = 'VOIDED';
    p.voidedAtMs = ctx.nowMs();
    p.message = 'Voided';
    releaseWalletHold(state, p);
    emit(ctx, request, p, 'voided');
    if (dropAfterCommit(ctx, request, reply, externalPaymentId)) return reply;
    return paymentView(p);
  });
}
