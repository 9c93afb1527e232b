/**
 * Account and card checks: POST /check-account (forms A and B), POST /v2/check-card-account,
 * POST /check-card-account (legacy). Checks never charge and never create a payment.
 *
 * Idempotency: externalPaymentId is the key, per endpoint. Form A and form B replay the stored response for
 * the same key and body (so the accountTokenId is stable across retries); card checks are recomputed on every
 * call (so the same check after a 3DS challenge approves). Same key with a different body → 409
 * IDEMPOTENCY_CONFLICT on all three.
 *
 * Form B magic values: accountNumber ending in 0000 → DECLINED / INVALID ("account not found"); a US routing
 * number failing the ABA checksum → DECLINED / INVALID ("invalid routing number"). Everything else APPROVED/VALID.
 * Form A (magic values): an accountCheckToken starting `public-sandbox-` (the form a sandbox bank-linking widget hands
 * out, e.g. public-sandbox-transfer) → VERIFIED with an accountTokenId; any other token → HTTP 200 approved false,
 * status DECLINED, no accountTokenId (a made-up or production token links nothing). Replayed alike.
 * Card checks: see gateway.cards.ts for the magic card tokens.
 */
import { randomUUID } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { isAlpha2, isAlpha3, toAlpha2 } from './gateway.countries';
import { cardProfile, legacyAav, legacyAvs, legacyCvc } from './gateway.cards';
import { GatewayError, Issues } from './gateway.errors';
import type { GatewayDeps, GatewayState } from './gateway.state';
import { challengeFor } from './gateway.threeds';
import {
  bodyHash,
  bodyObject,
  gatewayTimestamp,
  hashDigits,
  isAbaRoutingNumber,
  isE164,
  isEmail,
  isIpAddress,
  isUuid,
  optObject,
  optString,
  reqObject,
  reqString,
  type Json,
} from './gateway.validate';

export const NAME_MAX = 35;
/** Form A: the bank-linking tokens the sandbox's (imagined) widget hands out; anything else is declined. */
export const LINK_TOKEN_PREFIX = 'public-sandbox-';
const PREFIXES = new Set(['mr', 'mrs', 'ms', 'miss', 'mx', 'dr', 'prof', 'sir', 'madam', 'rev']);
const SUFFIXES = new Set(['jr', 'sr', 'ii', 'iii', 'iv', 'phd', 'md', 'esq', 'dds']);

/** Names for the card name check: ≤ 35 characters, no prefixes (Mr, Dr, ...) or suffixes (Jr, III, ...). */
function nameRule(v: string): string | null {
  if (v.trim() === '') return 'required';
  const words = v
    .trim()
    .split(/\s+/)
    .map((w) => w.replace(/[.,]/g, '').toLowerCase());
  if (PREFIXES.has(words[0])) return 'must not carry a prefix (Mr, Mrs, Dr, ...)';
  if (SUFFIXES.has(words[words.length - 1])) return 'must not carry a suffix (Jr, Sr, III, ...)';
  return null;
}

const ipRule = { check: (v: string) => (isIpAddress(v) ? null : 'must be an IPv4 or IPv6 address') };
const emailRule = { check: (v: string) => (isEmail(v) ? null : 'must be an email address') };
const alpha3Rule = { check: (v: string) => (isAlpha3(v) ? null : 'must be an ISO 3166-1 alpha-3 code') };
const alpha2Rule = { check: (v: string) => (isAlpha2(v) ? null : 'must be an ISO 3166-1 alpha-2 code') };
const anyCountryRule = { check: (v: string) => (toAlpha2(v) ? null : 'must be an ISO 3166-1 country code') };
const uuidRule = { check: (v: string) => (isUuid(v) ? null : 'must be a token UUID') };

function documents(issues: Issues, sender: Json, path: string, countryRule: { check: (v: string) => string | null }): void {
  const docs = sender.documents;
  if (docs === undefined || docs === null) return issues.add(path, 'required');
  if (!Array.isArray(docs)) return issues.add(path, 'must be an array');
  if (docs.length === 0) return issues.add(path, 'must contain at least one document');
  docs.forEach((d, i) => {
    if (typeof d !== 'object' || d === null || Array.isArray(d)) return issues.add(`${path}[${i}]`, 'must be an object');
    reqString(issues, d as Json, 'document', `${path}[${i}].document`, { max: 64 });
    reqString(issues, d as Json, 'type', `${path}[${i}].type`, { max: 32 });
    reqString(issues, d as Json, 'countryCode', `${path}[${i}].countryCode`, countryRule);
  });
}

function address(issues: Issues, a: Json, path: string, countryRule: { check: (v: string) => string | null }): void {
  reqString(issues, a, 'countryCode', `${path}.countryCode`, countryRule);
  reqString(issues, a, 'stateCode', `${path}.stateCode`, { max: 64 });
  reqString(issues, a, 'city', `${path}.city`, { max: 100 });
  reqString(issues, a, 'line1', `${path}.line1`, { max: 200 });
  optString(issues, a, 'line2', `${path}.line2`, { max: 200 });
  reqString(issues, a, 'zipCode', `${path}.zipCode`, { max: 16 });
}

/** Idempotency for checks: returns the stored response for a replay, throws 409 on a conflicting body. */
function idempotent(
  state: GatewayState,
  endpoint: string,
  key: string | undefined,
  body: unknown,
  replay: boolean,
): Record<string, unknown> | null {
  if (!key) return null;
  const stored = state.checkResponses.get(`${endpoint}:${key}`);
  if (!stored) return null;
  if (stored.hash !== bodyHash(body)) {
    throw new GatewayError(409, 'IDEMPOTENCY_CONFLICT', `externalPaymentId ${key} was already used with a different request`);
  }
  return replay ? stored.response : null;
}

function remember(state: GatewayState, endpoint: string, key: string | undefined, body: unknown, response: Record<string, unknown>): void {
  if (key) state.checkResponses.set(`${endpoint}:${key}`, { hash: bodyHash(body), response });
}

export function registerChecks(app: FastifyInstance, deps: GatewayDeps): void {
  const { ctx, state } = deps;

  app.post('/check-account', async (request) => {
    const body = bodyObject(request.body);
    const sender = body.sender && typeof body.sender === 'object' ? (body.sender as Json) : {};
    const pm = sender.paymentMethod && typeof sender.paymentMethod === 'object' ? (sender.paymentMethod as Json) : {};
    const formA = pm.type === 'BANK_DEPOSIT' || pm.accountCheckToken !== undefined || pm.accountCheckId !== undefined;
    const endpoint = formA ? 'check-account-a' : 'check-account-b';
    const issues = new Issues();
    const externalPaymentId = reqString(issues, body, 'externalPaymentId', 'externalPaymentId', { max: 100 });

    if (formA) {
      const s = reqObject(issues, body, 'sender', 'sender');
      const p = s && reqObject(issues, s, 'paymentMethod', 'sender.paymentMethod');
      if (p) {
        reqString(issues, p, 'type', 'sender.paymentMethod.type', { oneOf: ['BANK_DEPOSIT'] });
        reqString(issues, p, 'countryCode', 'sender.paymentMethod.countryCode', alpha2Rule);
        reqString(issues, p, 'accountCheckToken', 'sender.paymentMethod.accountCheckToken', { max: 256 });
        reqString(issues, p, 'accountCheckId', 'sender.paymentMethod.accountCheckId', { max: 256 });
      }
      issues.throwIfAny();
      const replay = idempotent(state, endpoint, externalPaymentId, body, true);
      if (replay) return replay;
      const paymentId = randomUUID();
      if (!String(pm.accountCheckToken).startsWith(LINK_TOKEN_PREFIX)) {
        const declined = {
          paymentId,
          parentPaymentId: paymentId,
          externalPaymentId,
          created: gatewayTimestamp(ctx.now()),
          approved: false,
          status: 'DECLINED',
          message: 'The bank-linking token is unknown or expired',
        };
        remember(state, endpoint, externalPaymentId, body, declined);
        return declined;
      }
      const accountTokenId = randomUUID();
      const digits = hashDigits(`acct:${String(pm.accountCheckId)}`, 14);
      const token = {
        accountTokenId,
        countryCode: String(pm.countryCode),
        bankAccountName: 'Sandbox Checking',
        accountNumberMasked: `******${digits.slice(0, 4)}`,
        routingNumberMasked: `*****${digits.slice(4, 8)}`,
      };
      state.accountTokens.set(accountTokenId, token);
      const response = {
        paymentId,
        parentPaymentId: paymentId,
        externalPaymentId,
        accountTokenId,
        created: gatewayTimestamp(ctx.now()),
        approved: true,
        accessToken: `access-sandbox-${randomUUID()}`,
        status: 'VERIFIED',
        bankAccountName: token.bankAccountName,
        accountNumberMasked: token.accountNumberMasked,
        routingNumberMasked: token.routingNumberMasked,
      };
      remember(state, endpoint, externalPaymentId, body, response);
      return response;
    }

    // Form B: raw account details.
    reqString(issues, body, 'ipAddress', 'ipAddress', ipRule);
    const s = reqObject(issues, body, 'sender', 'sender');
    let accountNumber: string | undefined;
    let routingNumber: string | undefined;
    let accountType: string | undefined;
    let country: string | undefined;
    if (s) {
      reqString(issues, s, 'firstName', 'sender.firstName', { max: 100 });
      reqString(issues, s, 'lastName', 'sender.lastName', { max: 100 });
      reqString(issues, s, 'email', 'sender.email', emailRule);
      reqString(issues, s, 'phoneNumber', 'sender.phoneNumber', {
        check: (v) => (/^\+?\d{7,15}$/.test(v) ? null : 'must have 7 to 15 digits'),
      });
      documents(issues, s, 'sender.documents', alpha3Rule);
      const a = reqObject(issues, s, 'address', 'sender.address');
      if (a) address(issues, a, 'sender.address', anyCountryRule);
      const p = reqObject(issues, s, 'paymentMethod', 'sender.paymentMethod');
      if (p) {
        reqString(issues, p, 'type', 'sender.paymentMethod.type', { max: 32 });
        accountType = reqString(issues, p, 'accountType', 'sender.paymentMethod.accountType', {
          oneOf: ['SAVINGS', 'CHECKING', 'BUSINESS_CHECKING', 'BUSINESS_SAVING'],
        });
        country = reqString(issues, p, 'countryCode', 'sender.paymentMethod.countryCode', alpha2Rule);
        accountNumber = reqString(issues, p, 'accountNumber', 'sender.paymentMethod.accountNumber', {
          pattern: /^[A-Za-z0-9]{4,34}$/,
          patternIssue: 'must be 4 to 34 letters or digits',
        });
        if (country === 'US') {
          routingNumber = reqString(issues, p, 'routingNumber', 'sender.paymentMethod.routingNumber', {
            pattern: /^\d{9}$/,
            patternIssue: 'must be a 9-digit ABA routing number',
          });
          optString(issues, p, 'bankCode', 'sender.paymentMethod.bankCode', { max: 32 });
        } else {
          optString(issues, p, 'routingNumber', 'sender.paymentMethod.routingNumber', { max: 32 });
          reqString(issues, p, 'bankCode', 'sender.paymentMethod.bankCode', { max: 32 });
        }
      }
    }
    issues.throwIfAny();
    const replay = idempotent(state, endpoint, externalPaymentId, body, true);
    if (replay) return replay;
    let invalid: string | null = null;
    if (accountNumber!.endsWith('0000')) invalid = 'Account not found';
    else if (routingNumber && !isAbaRoutingNumber(routingNumber)) invalid = 'Invalid routing number';
    const response = {
      paymentId: randomUUID(),
      externalPaymentId,
      status: invalid ? 'DECLINED' : 'APPROVED',
      accountVerification: invalid ? { accountStatus: 'INVALID', message: invalid } : { accountStatus: 'VALID', accountType },
    };
    remember(state, endpoint, externalPaymentId, body, response);
    return response;
  });

  app.post('/v2/check-card-account', async (request) => {
    const body = bodyObject(request.body);
    const issues = new Issues();
    const externalPaymentId = optString(issues, body, 'externalPaymentId', 'externalPaymentId', { max: 100 });
    optString(issues, body, 'ipAddress', 'ipAddress', ipRule);
    const s = reqObject(issues, body, 'sender', 'sender');
    let cardTokenId: string | undefined;
    let hasAddress = false;
    if (s) {
      reqString(issues, s, 'firstName', 'sender.firstName', { max: NAME_MAX, check: nameRule });
      reqString(issues, s, 'lastName', 'sender.lastName', { max: NAME_MAX, check: nameRule });
      reqString(issues, s, 'email', 'sender.email', emailRule);
      reqString(issues, s, 'phoneNumber', 'sender.phoneNumber', {
        check: (v) => (isE164(v) ? null : 'must be an E.164 number, e.g. +14155550100'),
      });
      optString(issues, s, 'phoneNumberType', 'sender.phoneNumberType', { max: 16 });
      optString(issues, s, 'birthDate', 'sender.birthDate', {
        check: (v) => {
          if (!/^\d{4}-\d{2}-\d{2}$/.test(v)) return 'must be YYYY-MM-DD';
          const d = new Date(`${v}T00:00:00Z`);
          if (Number.isNaN(d.getTime()) || d.toISOString().slice(0, 10) !== v) return 'is not a valid date';
          return d.getTime() > ctx.nowMs() ? 'must be in the past' : null;
        },
      });
      optString(issues, s, 'birthCountryCode', 'sender.birthCountryCode', anyCountryRule);
      documents(issues, s, 'sender.documents', anyCountryRule);
      const a = optObject(issues, s, 'address', 'sender.address');
      if (a) {
        hasAddress = true;
        address(issues, a, 'sender.address', alpha3Rule);
      }
      // The spec marks paymentMethod optional; without a card there is nothing to check, so the sandbox requires it.
      const p = reqObject(issues, s, 'paymentMethod', 'sender.paymentMethod');
      if (p) {
        reqString(issues, p, 'type', 'sender.paymentMethod.type', { oneOf: ['CARD'] });
        cardTokenId = reqString(issues, p, 'cardTokenId', 'sender.paymentMethod.cardTokenId', uuidRule);
      }
    }
    issues.throwIfAny();
    idempotent(state, 'check-card-v2', externalPaymentId, body, false);
    remember(state, 'check-card-v2', externalPaymentId, body, {});
    const card = cardProfile(cardTokenId!);
    const base = { issuerName: card.issuerName, issuerCountry: card.issuerCountry, bin: card.bin, lastFour: card.lastFour };
    const challengeUrl = card.needs3ds ? challengeFor(ctx, state, cardTokenId!) : null;
    if (challengeUrl) {
      return {
        card: base,
        verificationResults: { avs: 'N/A', cvc: 'N/A', aavCardholderName: 'N/A' },
        redirectAcsUrl: challengeUrl,
      };
    }
    return {
      card: { created: gatewayTimestamp(ctx.now()), ...base },
      verificationResults: { avs: hasAddress ? card.avs : 'NOT_SENT', cvc: card.cvc, aavCardholderName: card.aav },
      octStatus: card.oct,
      aftStatus: card.aft,
      redirectAcsUrl: '',
    };
  });

  app.post('/check-card-account', async (request) => {
    const body = bodyObject(request.body);
    const issues = new Issues();
    const externalPaymentId = reqString(issues, body, 'externalPaymentId', 'externalPaymentId', { max: 100 });
    reqString(issues, body, 'ipAddress', 'ipAddress', ipRule);
    const s = reqObject(issues, body, 'sender', 'sender');
    let cardTokenId: string | undefined;
    let hasAddress = false;
    if (s) {
      reqString(issues, s, 'firstName', 'sender.firstName', { max: NAME_MAX, check: nameRule });
      reqString(issues, s, 'lastName', 'sender.lastName', { max: NAME_MAX, check: nameRule });
      optString(issues, s, 'email', 'sender.email', emailRule);
      const a = optObject(issues, s, 'address', 'sender.address');
      if (a) {
        hasAddress = true;
        address(issues, a, 'sender.address', alpha3Rule);
      }
      const p = reqObject(issues, s, 'paymentMethod', 'sender.paymentMethod');
      if (p) {
        reqString(issues, p, 'type', 'sender.paymentMethod.type', { oneOf: ['CARD'] });
        cardTokenId = reqString(issues, p, 'cardTokenId', 'sender.paymentMethod.cardTokenId', uuidRule);
      }
    }
    issues.throwIfAny();
    idempotent(state, 'check-card-legacy', externalPaymentId, body, false);
    remember(state, 'check-card-legacy', externalPaymentId, body, {});
    const card = cardProfile(cardTokenId!);
    const paymentId = randomUUID();
    const challengeUrl = card.needs3ds ? challengeFor(ctx, state, cardTokenId!) : null;
    if (challengeUrl) {
      return {
        paymentId,
        status: 'CHALLENGE',
        redirectAcsUrl: challengeUrl,
        avsResult: 'N/A',
        cvcResult: 'N/A',
        aavCardholderNameResult: 'N/A',
      };
    }
    const avsResult = hasAddress ? legacyAvs(card.avs) : 'NOT_SENT';
    const cvcResult = legacyCvc(card.cvc);
    const aavCardholderNameResult = legacyAav(card.aav);
    const rejected = avsResult === 'FAILED' || cvcResult === 'FAILED' || aavCardholderNameResult === 'FAILED';
    return {
      paymentId,
      status: rejected ? 'REJECTED' : 'APPROVED',
      avsResult,
      cvcResult,
      aavCardholderNameResult,
      reasonCode: rejected ? 'PAY_084' : '00',
    };
  });
}
