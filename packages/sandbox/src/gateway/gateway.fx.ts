/**
 * FX quotes, v1 (POST /foreign-exchange) and v2 (POST /v2/foreign-exchange).
 *
 * Rates are deterministic: a fixed table of USD rates (gateway.money.ts), any pair through its USD cross rate,
 * 8 significant digits (USD→BRL = 5.0123). A v2 destinationCountryCode narrows the rate to a corridor: a fixed
 * per-country margin of 0–0.29 % below the reference rate. Quotes are valid options.quoteLifetimeS seconds
 * (default 300) of sandbox time: quoteIdExpiryDateTime = now + lifetime; valid up to and including that instant.
 * v1 sends both currencies optionally; missing source → USD, missing destination → BRL (sandbox decision).
 * Unknown currency, country or paymentMethod → 400 VALIDATION_ERROR.
 */
import { randomUUID } from 'node:crypto';
import Decimal from 'decimal.js';
import type { FastifyInstance } from 'fastify';
import { isAlpha2 } from './gateway.countries';
import { Issues } from './gateway.errors';
import { convert, isCurrency, num, parsePositiveAmount, referenceRate } from './gateway.money';
import type { GatewayDeps, Quote } from './gateway.state';
import { bodyObject, hashInt, type Json } from './gateway.validate';

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

/** Rate for a corridor: reference rate less a fixed per-country margin (0–29 basis points). */
export function corridorRate(src: string, dst: string, destinationCountryCode?: string): Decimal {
  const ref = referenceRate(src, dst);
  if (!destinationCountryCode) return ref;
  const bps = hashInt(`corridor:${destinationCountryCode}`) % 30;
  return ref.mul(new Decimal(10000 - bps).div(10000)).toSignificantDigits(8, Decimal.ROUND_HALF_UP);
}

function currencyField(issues: Issues, body: Json, key: string, required: boolean, fallback: string): string | undefined {
  const v = body[key];
  if (v === undefined || v === null || v === '') {
    if (required) issues.add(key, 'required');
    return required ? undefined : fallback;
  }
  if (!isCurrency(v)) {
    issues.add(key, 'must be a supported ISO 4217 currency code');
    return undefined;
  }
  return v;
}

export function registerFx(app: FastifyInstance, { ctx, state }: GatewayDeps): void {
  const store = (q: Omit<Quote, 'fxId' | 'expiresAtMs'>): Quote => {
    const quote: Quote = { ...q, fxId: randomUUID(), expiresAtMs: ctx.nowMs() + ctx.options.quoteLifetimeS * 1000 };
    state.quotes.set(quote.fxId, quote);
    return quote;
  };

  app.post('/foreign-exchange', async (request) => {
    const body = request.body === undefined ? {} : bodyObject(request.body);
    const issues = new Issues();
    const src = currencyField(issues, body, 'sourceCurrencyCode', false, 'USD');
    const dst = currencyField(issues, body, 'destinationCurrencyCode', false, 'BRL');
    issues.throwIfAny();
    const quote = store({ version: 1, sourceCurrencyCode: src!, destinationCurrencyCode: dst!, rate: referenceRate(src!, dst!) });
    return {
      fxId: quote.fxId,
      conversionRate: num(quote.rate),
      quoteIdExpiryDateTime: new Date(quote.expiresAtMs).toISOString(),
    };
  });

  app.post('/v2/foreign-exchange', async (request) => {
    const body = bodyObject(request.body);
    const issues = new Issues();
    const src = currencyField(issues, body, 'sourceCurrencyCode', true, '');
    const dst = currencyField(issues, body, 'destinationCurrencyCode', true, '');
    const method = body.paymentMethod;
    if (method === undefined || method === null || method === '') issues.add('paymentMethod', 'required');
    else if (typeof method !== 'string' || !(PAYMENT_METHODS as readonly string[]).includes(method)) {
      issues.add('paymentMethod', `must be one of ${PAYMENT_METHODS.join(', ')}`);
    }
    const country = body.destinationCountryCode;
    if (country !== undefined && country !== null && !isAlpha2(country)) {
      issues.add('destinationCountryCode', 'must be an ISO 3166-1 alpha-2 code');
    }
    let sourceAmount: Decimal | undefined;
    if (body.sourceCurrencyAmount !== undefined && body.sourceCurrencyAmount !== null) {
      sourceAmount = parsePositiveAmount(issues, body.sourceCurrencyAmount, src, 'sourceCurrencyAmount');
    }
    issues.throwIfAny();
    const destinationCountryCode = typeof country === 'string' ? country : undefined;
    const quote = store({
      version: 2,
      sourceCurrencyCode: src!,
      destinationCurrencyCode: dst!,
      rate: corridorRate(src!, dst!, destinationCountryCode),
      paymentMethod: method as string,
      destinationCountryCode,
    });
    const response: Record<string, unknown> = {
      fxId: quote.fxId,
      conversionRate: num(quote.rate),
      sourceCurrencyCode: src,
    };
    if (sourceAmount) response.sourceCurrencyAmount = num(sourceAmount);
    response.destinationCurrencyCode = dst;
    if (sourceAmount) response.destinationCurrencyAmount = num(convert(sourceAmount, quote.rate, dst!));
    response.paymentMethod = method;
    if (destinationCountryCode) response.destinationCountryCode = destinationCountryCode;
    response.quoteIdExpiryDateTime = new Date(quote.expiresAtMs).toISOString();
    return response;
  });
}
