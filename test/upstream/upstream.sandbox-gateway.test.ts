/**
 * The gateway and verification-session clients against the sandbox over real HTTP: every endpoint, token
 * single-flight proven by the sandbox's call log, refresh margin and 401-once, retries with the same key,
 * UnknownOutcome on a dropped response, and the documented "answers".
 */
import { randomUUID } from 'node:crypto';
import { startSandbox, type RunningSandbox } from '@remittance-bff/sandbox';
import { UnknownOutcome, UpstreamError, type MoneyMovingResult } from '../../src/upstream/http/upstream.errors';
import type { Payment } from '../../src/upstream/gateway/gateway.types';
import { paymentRequest } from './helpers/upstream.fixtures';
import { harness, metricValue, type Harness } from './helpers/upstream.local-server';
import { SandboxControl } from './helpers/upstream.sandbox-control';

let sandbox: RunningSandbox;
let control: SandboxControl;
let h: Harness;

beforeAll(async () => {
  sandbox = await startSandbox({ port: 0 });
  control = new SandboxControl(sandbox.url);
});
afterAll(async () => {
  await control.close();
  await sandbox.close();
});
beforeEach(async () => {
  await control.reset();
  h = harness(sandbox.url);
});
afterEach(async () => h.clients.close());

const completed = (r: MoneyMovingResult<Payment>): Payment => {
  if (r.kind !== 'completed') throw new Error(`expected completed, got ${r.reason}`);
  return r.value;
};
const rejection = async (p: Promise<unknown>): Promise<UpstreamError> => {
  const e = await p.then(
    () => null,
    (err: unknown) => err,
  );
  expect(e).toBeInstanceOf(UpstreamError);
  return e as UpstreamError;
};
const checkSender = () => ({
  firstName: 'Ana',
  lastName: 'Silva',
  email: 'ana.silva@example.com',
  phoneNumber: '+14155550100',
  documents: [{ document: 'X1234567', type: 'PASSPORT', countryCode: 'USA' }],
});
const cardToken = (suffix: string) => `${randomUUID().slice(0, -4)}${suffix}`;

describe('gateway token', () => {
  it('1,000 concurrent calls on a cold cache → exactly 1 token request (sandbox call log)', async () => {
    const t0 = performance.now();
    const results = await Promise.all(Array.from({ length: 1000 }, () => h.clients.gateway.getPayerBalance()));
    const ms = performance.now() - t0;
    expect(results).toHaveLength(1000);
    expect(await control.calls('/gateway/oauth/token')).toHaveLength(1);
    expect((await control.calls('/gateway/payer/balance')).filter((c) => c.status === 200)).toHaveLength(1000);

    console.log(`1000 concurrent gateway reads over ${h.config.upstream.maxConnections} connections: ${ms.toFixed(0)} ms`);
  });

  it('refreshes inside the margin on the client clock, not before', async () => {
    await h.clients.gateway.getPayerBalance();
    h.clock.advance((3600 - 61) * 1000);
    await h.clients.gateway.getPayerBalance();
    expect(await control.calls('/gateway/oauth/token')).toHaveLength(1);
    h.clock.advance(1000); // now 60 s before expiry = the default margin
    await Promise.all([h.clients.gateway.getPayerBalance(), h.clients.gateway.getPayerBalance()]);
    expect(await control.calls('/gateway/oauth/token')).toHaveLength(2);
  });

  it('a token the gateway expired early (sandbox clock moved) → one 401, one refresh, one retry', async () => {
    await h.clients.gateway.getPayerBalance();
    await control.advanceClock(3600);
    await expect(h.clients.gateway.getPayerBalance()).resolves.toBeDefined();
    const calls = await control.calls('/gateway/');
    expect(calls.map((c) => `${c.path} ${c.status}`)).toEqual([
      '/gateway/oauth/token 200',
      '/gateway/payer/balance 200',
      '/gateway/payer/balance 401',
      '/gateway/oauth/token 200',
      '/gateway/payer/balance 200',
    ]);
  });

  it('wrong credentials → token_rejected INVALID_CLIENT, no retry', async () => {
    const bad = harness(sandbox.url, { GATEWAY_CLIENT_SECRET: 'nope' });
    const err = await rejection(bad.clients.gateway.createFxQuoteV1());
    expect(err).toMatchObject({ kind: 'token_rejected', status: 401, upstreamCode: 'INVALID_CLIENT' });
    expect(await control.calls('/gateway/')).toHaveLength(1);
    await bad.clients.close();
  });
});

describe('gateway endpoints', () => {
  it('FX v1 and v2 (amount sent as an exact decimal)', async () => {
    const v1 = await h.clients.gateway.createFxQuoteV1({ sourceCurrencyCode: 'USD', destinationCurrencyCode: 'BRL' });
    expect(v1).toMatchObject({ conversionRate: 5.0123 });
    const v2 = await h.clients.gateway.createFxQuote({
      sourceCurrencyCode: 'USD',
      destinationCurrencyCode: 'BRL',
      paymentMethod: 'WALLET',
      sourceCurrencyAmount: '100.10',
    });
    expect(v2).toMatchObject({ sourceCurrencyAmount: 100.1, destinationCurrencyAmount: 501.73, paymentMethod: 'WALLET' });
  });

  it('wallets: create, get, balance, statement', async () => {
    const w = await h.clients.gateway.createWallet({ accountAsset: 'BRL', ownerId: 'o-1', beneficiaryId: 'b-1', type: 'PERSONAL' });
    expect(w.status).toBe('ACTIVE');
    await expect(h.clients.gateway.getWallet(w.walletId)).resolves.toMatchObject({ walletId: w.walletId });
    await expect(h.clients.gateway.getWalletBalance(w.walletId)).resolves.toMatchObject({ totalBalance: 0 });
    await expect(h.clients.gateway.getWalletStatement(w.walletId, { page: 0, size: 10 })).resolves.toMatchObject({ entries: [] });
    const err = await rejection(h.clients.gateway.getWallet('no-such-wallet'));
    expect(err).toMatchObject({ kind: 'not_found', upstreamCode: 'WALLET_NOT_FOUND' });
    expect(err.toAppError().code).toBe('NOT_FOUND');
  });

  it('persons: schema, validate, create; REJECTED is a result', async () => {
    const schema = await h.clients.gateway.getPersonSchema('US');
    expect(schema).toHaveProperty('countryCode', 'US');
    const person = { type: 'INDIVIDUAL' as const, firstName: 'Ana', lastName: 'Silva' };
    await expect(h.clients.gateway.validatePerson(person)).resolves.toMatchObject({ status: 'APPROVED' });
    const created = await h.clients.gateway.createPerson(person);
    expect(created.id).toBeTruthy();
    await expect(h.clients.gateway.createPerson({ ...person, lastName: 'Rejected' })).resolves.toMatchObject({ status: 'REJECTED' });
  });

  it('bank account checks, forms A and B; DECLINED is a result', async () => {
    const a = await h.clients.gateway.checkBankAccountToken({
      externalPaymentId: `chk-${randomUUID()}`,
      sender: {
        paymentMethod: { type: 'BANK_DEPOSIT', countryCode: 'US', accountCheckToken: 'public-sandbox-token', accountCheckId: 'acc-1' },
      },
    });
    expect(a).toMatchObject({ status: 'VERIFIED', approved: true, accountTokenId: expect.any(String) });
    // a token the sandbox's widget did not hand out: a declined link is an answer (no token), not an error
    const declined = await h.clients.gateway.checkBankAccountToken({
      externalPaymentId: `chk-${randomUUID()}`,
      sender: { paymentMethod: { type: 'BANK_DEPOSIT', countryCode: 'US', accountCheckToken: 'public-token', accountCheckId: 'acc-1' } },
    });
    expect(declined).toMatchObject({ status: 'DECLINED', approved: false });
    expect(declined.accountTokenId ?? null).toBeNull();
    const b = (accountNumber: string) =>
      h.clients.gateway.checkBankAccount({
        externalPaymentId: `chk-${randomUUID()}`,
        ipAddress: '203.0.113.7',
        sender: {
          ...checkSender(),
          phoneNumber: '4155550100',
          address: { countryCode: 'US', stateCode: 'CA', city: 'San Francisco', line1: '1 Market St', zipCode: '94105' },
          paymentMethod: {
            type: 'BANK_ACCOUNT',
            accountType: 'CHECKING',
            routingNumber: '011000015',
            accountNumber,
            bankCode: '011000015',
            countryCode: 'US',
          },
        },
      });
    await expect(b('123456789')).resolves.toMatchObject({ status: 'APPROVED', accountVerification: { accountStatus: 'VALID' } });
    await expect(b('123450000')).resolves.toMatchObject({ status: 'DECLINED', accountVerification: { accountStatus: 'INVALID' } });
  });

  it('card checks, v2 and legacy: challenge, cvc FAILED and REJECTED are results', async () => {
    const v2 = (suffix: string) =>
      h.clients.gateway.checkCard({
        externalPaymentId: `cc-${randomUUID()}`,
        ipAddress: '203.0.113.7',
        sender: { ...checkSender(), paymentMethod: { type: 'CARD', cardTokenId: cardToken(suffix) } },
      });
    await expect(v2('0001')).resolves.toMatchObject({ redirectAcsUrl: '', verificationResults: { cvc: 'APPROVED' } });
    expect((await v2('0002')).redirectAcsUrl).toMatch(/^http/);
    await expect(v2('0003')).resolves.toMatchObject({ verificationResults: { cvc: 'FAILED' } });
    const legacy = (suffix: string) =>
      h.clients.gateway.checkCardLegacy({
        externalPaymentId: `cc-${randomUUID()}`,
        ipAddress: '203.0.113.7',
        sender: { firstName: 'Ana', lastName: 'Silva', paymentMethod: { type: 'CARD', cardTokenId: cardToken(suffix) } },
      });
    await expect(legacy('0001')).resolves.toMatchObject({ status: 'APPROVED' });
    await expect(legacy('0003')).resolves.toMatchObject({ status: 'REJECTED', reasonCode: 'PAY_084' });
    await expect(legacy('0002')).resolves.toMatchObject({ status: 'CHALLENGE' });
  });

  it('alias directory: found, and not found (HTTP 400 found:false) as a result', async () => {
    const found = await h.clients.gateway.lookupAlias({ countryCode: 'BRA', key: '12345678909', keyType: 'CPF' });
    expect(found.found).toBe(true);
    const missing = await h.clients.gateway.lookupAlias({ countryCode: 'BRA', key: '00000000000', keyType: 'CPF' });
    expect(missing).toMatchObject({ found: false, key: '00000000000' });
  });

  it('banks and payer balance', async () => {
    const list = await h.clients.gateway.listBanks({ countryCode: 'BR', page: 0, resultsPerPage: 5 });
    expect(list.banks.length).toBeGreaterThan(0);
    const first = list.banks[0];
    await expect(h.clients.gateway.getBank({ bankNumber: first.bankCode, countryCode: 'BR' })).resolves.toMatchObject({
      bankCode: first.bankCode,
    });
    const balance = await h.clients.gateway.getPayerBalance();
    expect(balance[0].balances.length).toBeGreaterThan(0);
  });

  it('PULLPUSH payment, partial capture, capture twice (409 with the payment in details); void; decline is a result', async () => {
    const quote = await h.clients.gateway.createFxQuote({
      sourceCurrencyCode: 'USD',
      destinationCurrencyCode: 'BRL',
      paymentMethod: 'WALLET',
    });
    const req = paymentRequest({ fxId: quote.fxId, exchangeRate: String(quote.conversionRate) });
    const p = completed(await h.clients.gateway.createPayment(req));
    expect(p).toMatchObject({ approved: true, status: 'AUTHORIZED', amount: 100.1 });
    const c = completed(await h.clients.gateway.capturePayment(req.externalPaymentId, { amount: '50.00' }));
    expect(c).toMatchObject({ status: 'CAPTURED', captured: true });
    const twice = await rejection(h.clients.gateway.capturePayment(req.externalPaymentId));
    expect(twice).toMatchObject({ kind: 'rejected', status: 409, upstreamCode: 'PAYMENT_ALREADY_CAPTURED' });
    expect(twice.details).toMatchObject({ payment: { captured: true } });

    const other = paymentRequest();
    completed(await h.clients.gateway.createPayment(other));
    await expect(h.clients.gateway.voidPayment(other.externalPaymentId)).resolves.toMatchObject({
      kind: 'completed',
      value: { voided: true },
    });

    const declined = completed(await h.clients.gateway.createPayment(paymentRequest({ cardToken: cardToken('0004') })));
    expect(declined).toMatchObject({ approved: false, status: 'DECLINED' });
  });

  it('PULL by account token', async () => {
    const a = await h.clients.gateway.checkBankAccountToken({
      externalPaymentId: `chk-${randomUUID()}`,
      sender: {
        paymentMethod: { type: 'BANK_DEPOSIT', countryCode: 'US', accountCheckToken: 'public-sandbox-tok', accountCheckId: 'acc' },
      },
    });
    const r = await h.clients.gateway.createTokenPullPayment({
      externalPaymentId: `pull-${randomUUID()}`,
      ipAddress: '203.0.113.7',
      capture: true,
      amount: { total: '25.00', currency: 'USD' },
      sender: { firstName: 'Ana', lastName: 'Silva', paymentMethod: { type: 'BANK_DEPOSIT', accountTokenId: a.accountTokenId! } },
    });
    expect(completed(r)).toMatchObject({ approved: true, captured: true });
  });
});

describe('money-moving calls under faults', () => {
  it('payment response dropped after commit → the retry with the same key gets the committed payment (one payment)', async () => {
    await h.clients.gateway.getPayerBalance(); // token first, so only the payment is faulted
    await control.faults({ dropResponseAfterCommitRate: 1, seed: 7 });
    const req = paymentRequest();
    const p = completed(await h.clients.gateway.createPayment(req));
    const calls = await control.calls('/gateway/v2/payment');
    // the sandbox commits then drops the first; the repeat with the same key is answered with that payment
    expect(calls.map((c) => [c.status, c.idempotencyKey])).toEqual([
      [0, req.externalPaymentId],
      [200, req.externalPaymentId],
    ]);
    expect(p).toMatchObject({ externalPaymentId: req.externalPaymentId, status: 'AUTHORIZED' });
    expect(await metricValue(h.metrics, { operation: 'createPayment', outcome: 'network' })).toBe(1);
  });

  it('with no attempt left, a dropped payment response is an UnknownOutcome (not a failure); the same key reconciles later', async () => {
    const once = harness(sandbox.url, { UPSTREAM_RETRY_MAX_ATTEMPTS: '1' });
    await once.clients.gateway.getPayerBalance();
    await control.faults({ dropResponseAfterCommitRate: 1 });
    const req = paymentRequest();
    const r = await once.clients.gateway.createPayment(req);
    expect(r).toBeInstanceOf(UnknownOutcome);
    expect(r).toMatchObject({ kind: 'unknown_outcome', reason: 'network', idempotencyKey: req.externalPaymentId, attempts: 1 });
    expect((r as UnknownOutcome).lastError.toAppError().code).toBe('UPSTREAM_UNAVAILABLE');
    await control.faults({ dropResponseAfterCommitRate: 0 });
    const first = completed(await once.clients.gateway.createPayment(req));
    const again = completed(await once.clients.gateway.createPayment(req));
    expect(again.paymentId).toBe(first.paymentId);
    await once.clients.close();
  });

  it('capture response dropped: the repeat is refused (409 already captured) → UnknownOutcome with the payment in lastError.details', async () => {
    const req = paymentRequest();
    completed(await h.clients.gateway.createPayment(req));
    await control.faults({ dropResponseAfterCommitRate: 1 });
    const cap = await h.clients.gateway.capturePayment(req.externalPaymentId, { amount: '80.00' });
    await control.faults({ dropResponseAfterCommitRate: 0 });
    expect(cap).toMatchObject({ kind: 'unknown_outcome', operation: 'capturePayment', reason: 'unresolved_after_ambiguous', attempts: 2 });
    const last = (cap as UnknownOutcome).lastError;
    expect(last).toMatchObject({ status: 409, upstreamCode: 'PAYMENT_ALREADY_CAPTURED' });
    expect(last.details).toMatchObject({ payment: { captured: true, externalPaymentId: req.externalPaymentId } });
    const calls = await control.calls(`/gateway/payments/${req.externalPaymentId}/capture`);
    expect(calls.map((c) => c.status)).toEqual([0, 409]);
  });

  it('half the responses dropped: the retry with the same key returns the committed payment', async () => {
    await h.clients.gateway.getPayerBalance();
    await control.faults({ dropResponseAfterCommitRate: 0.5, seed: 3 });
    const outcomes: string[] = [];
    for (let i = 0; i < 10; i++) {
      const req = paymentRequest();
      const r = await h.clients.gateway.createPayment(req);
      outcomes.push(r.kind);
      if (r.kind === 'completed') expect(r.value.externalPaymentId).toBe(req.externalPaymentId);
      const keys = (await control.calls('/gateway/v2/payment')).filter((c) => c.idempotencyKey === req.externalPaymentId);
      expect(keys.length).toBeGreaterThanOrEqual(1);
    }
    expect(outcomes.filter((o) => o === 'completed').length).toBeGreaterThanOrEqual(7);
  });

  it('5xx (errorRate) on a payment: retried with the same key until it goes through', async () => {
    await h.clients.gateway.getPayerBalance();
    await control.faults({ errorRate: 0.5, seed: 11 });
    const req = paymentRequest();
    const r = await h.clients.gateway.createPayment(req);
    await control.faults({ errorRate: 0 });
    const calls = await control.calls('/gateway/v2/payment');
    expect(new Set(calls.map((c) => c.idempotencyKey))).toEqual(new Set([req.externalPaymentId]));
    if (r.kind === 'completed') expect(calls[calls.length - 1].status).toBe(200);
    expect(calls.some((c) => c.status === 503) || calls.length === 1).toBe(true);
    expect(h.sleeps.every((ms) => ms === 1000)).toBe(true); // honoured Retry-After: 1
  });

  it('errorRate 1: three 503s, then a thrown server_error (503 = not processed, so not unknown)', async () => {
    await h.clients.gateway.getPayerBalance();
    await control.faults({ errorRate: 1 });
    const err = await rejection(h.clients.gateway.createPayment(paymentRequest()));
    expect(err).toMatchObject({ kind: 'server_error', status: 503, upstreamCode: 'SERVICE_UNAVAILABLE', retryable: true });
    expect(await control.calls('/gateway/v2/payment')).toHaveLength(3);
  });

  it('a payment slower than the payment timeout → UnknownOutcome reason timeout', async () => {
    const slow = harness(sandbox.url, { UPSTREAM_PAYMENT_TIMEOUT_MS: '150', UPSTREAM_RETRY_MAX_ATTEMPTS: '2' });
    await slow.clients.gateway.getPayerBalance();
    await control.faults({ latencyMs: 400 });
    const req = paymentRequest();
    const t0 = performance.now();
    const r = await slow.clients.gateway.createPayment(req);
    const ms = performance.now() - t0;
    await control.faults({ latencyMs: 0 });
    expect(r).toMatchObject({ kind: 'unknown_outcome', reason: 'timeout', attempts: 2 });
    expect(ms).toBeLessThan(1000);
    await new Promise((res) => setTimeout(res, 500)); // let the sandbox finish the delayed work
    expect(completed(await slow.clients.gateway.createPayment(req)).externalPaymentId).toBe(req.externalPaymentId);
    await slow.clients.close();
  });
});

describe('verification-session API', () => {
  it('sessions and verifications, one token per scope, cached', async () => {
    const s = await h.clients.verification.createSession({ userRef: 'user-1' });
    await expect(h.clients.verification.getSession(s.id)).resolves.toMatchObject({ id: s.id });
    const v = await h.clients.verification.createVerification({ sessionId: s.id, userRef: 'user-1' });
    await expect(h.clients.verification.getVerification(v.id)).resolves.toMatchObject({ id: v.id });
    await h.clients.verification.getSession(s.id);
    expect(await control.calls('/verification/oauth/token')).toHaveLength(2);
  });

  it('HTTP Basic client authentication works too; scope not requested → one token for both', async () => {
    const basic = harness(sandbox.url, { VERIFICATION_AUTH_METHOD: 'basic' });
    const s = await basic.clients.verification.createSession({ userRef: 'user-2' });
    expect(s.id).toBeTruthy();
    const tok = await basic.clients.verification.requestToken();
    expect(tok.scope).toBe('sessions verifications');
    await basic.clients.close();
  });

  it('another tenant’s session → not_found', async () => {
    const s = await h.clients.verification.createSession({ userRef: 'user-3' });
    const other = harness(sandbox.url, {
      VERIFICATION_CLIENT_ID: 'sandbox-verification-2',
      VERIFICATION_CLIENT_SECRET: 'sandbox-verification-secret-2',
    });
    const err = await rejection(other.clients.verification.getSession(s.id));
    expect(err).toMatchObject({ kind: 'not_found', status: 404 });
    await other.clients.close();
  });

  it('invalid_client → token_rejected, exactly one token request; invalid_scope likewise', async () => {
    const bad = harness(sandbox.url, { VERIFICATION_CLIENT_SECRET: 'wrong' });
    const err = await rejection(bad.clients.verification.createSession({ userRef: 'u' }));
    expect(err).toMatchObject({ kind: 'token_rejected', status: 401, upstreamCode: 'invalid_client', retryable: false });
    expect(await control.calls('/verification/')).toHaveLength(1);
    const scopeErr = await rejection(h.clients.verification.requestToken('admin'));
    expect(scopeErr).toMatchObject({ kind: 'token_rejected', status: 400, upstreamCode: 'invalid_scope' });
    expect(await control.calls('/verification/oauth/token')).toHaveLength(2);
    await bad.clients.close();
  });

  it('expired token (sandbox clock) → 401 → one refresh → one retry; refresh margin on the client clock', async () => {
    const s = await h.clients.verification.createSession({ userRef: 'user-4' });
    await control.advanceClock(3600);
    await expect(h.clients.verification.getSession(s.id)).resolves.toMatchObject({ id: s.id });
    const calls = (await control.calls('/verification/')).map((c) => `${c.method} ${c.path.replace(s.id, ':id')} ${c.status}`);
    expect(calls).toEqual([
      'POST /verification/oauth/token 200',
      'POST /verification/v1/sessions 201',
      'GET /verification/v1/sessions/:id 401',
      'POST /verification/oauth/token 200',
      'GET /verification/v1/sessions/:id 200',
    ]);
  });
});
