/** Contract tests over real HTTP: POST /v2/payment, capture, void, idempotency, 7-day auto-cancel, wallets, payer balance. */
import { cardToken, startTestSandbox, type TestSandbox } from '../helpers/sandbox';
import { createWallet, pullPushBody, quote, uniqueId } from './gateway.fixtures';
import type { PaymentFacts } from '@remittance-bff/sandbox';

let sb: TestSandbox;
beforeAll(async () => {
  sb = await startTestSandbox();
});
afterAll(async () => {
  await sb.close();
});

const balanceOf = async (walletId: string) => (await sb.gateway('GET', `/wallets/${walletId}/balance`)).body;

describe('POST /v2/payment (PULLPUSH)', () => {
  test('authorizes without capturing, documented response shape, holds the payout in the wallet', async () => {
    const { body, walletId, quote: q } = await pullPushBody(sb);
    const res = await sb.gateway('POST', '/v2/payment', body);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      externalPaymentId: body.externalPaymentId,
      amount: 100,
      approved: true,
      automaticReversed: false,
      status: 'AUTHORIZED',
      captured: false,
      voided: false,
      message: 'Approved',
      issuerCountry: 'US',
      cvcResult: 'NOT_SENT',
      avsResult: 'NOT_CHECKED',
      aavTelephoneResult: 'NOT_CHECKED',
    });
    expect(res.body.parentPaymentId).toBe(res.body.paymentId);
    expect(res.body.created).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/);
    expect(res.body.authCode).toMatch(/^\d{6}$/);
    expect(typeof res.body.issuerName).toBe('string');
    expect(await balanceOf(walletId)).toEqual({
      walletId,
      accountAsset: 'BRL',
      availableBalance: 0,
      heldBalance: q.destinationCurrencyAmount,
      totalBalance: q.destinationCurrencyAmount,
    });
  });

  test('capture:true captures at creation; capturing again is an error', async () => {
    const { body } = await pullPushBody(sb, { capture: true });
    const res = await sb.gateway('POST', '/v2/payment', body);
    expect(res.body).toMatchObject({ status: 'CAPTURED', captured: true, approved: true });
    const again = await sb.gateway('POST', `/payments/${body.externalPaymentId}/capture`);
    expect(again.status).toBe(409);
    expect(again.body.error.code).toBe('PAYMENT_ALREADY_CAPTURED');
    expect(again.body.error.payment.status).toBe('CAPTURED');
  });

  test('idempotent on externalPaymentId: same body → same payment, other body → 409', async () => {
    const { body } = await pullPushBody(sb);
    const first = await sb.gateway('POST', '/v2/payment', body);
    const second = await sb.gateway('POST', '/v2/payment', body);
    expect(second.status).toBe(200);
    expect(second.body).toEqual(first.body);
    const other = await sb.gateway('POST', '/v2/payment', { ...body, ipAddress: '203.0.113.8' });
    expect(other.status).toBe(409);
    expect(other.body.error.code).toBe('IDEMPOTENCY_CONFLICT');
    // key order does not matter
    const reordered = Object.fromEntries(Object.entries(body).reverse());
    expect((await sb.gateway('POST', '/v2/payment', reordered)).body.paymentId).toBe(first.body.paymentId);
  });

  test('a retry after capture returns the current state, even once the quote expired', async () => {
    const { body } = await pullPushBody(sb);
    await sb.gateway('POST', '/v2/payment', body);
    await sb.gateway('POST', `/payments/${body.externalPaymentId}/capture`);
    await sb.control.advanceClock(600);
    const retry = await sb.gateway('POST', '/v2/payment', body);
    expect(retry.status).toBe(200);
    expect(retry.body.status).toBe('CAPTURED');
  });

  test('card token ending 0004 is declined at authorization: HTTP 200, approved false, stored', async () => {
    const { body, walletId } = await pullPushBody(sb, { token: cardToken('0004') });
    const res = await sb.gateway('POST', '/v2/payment', body);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ approved: false, status: 'DECLINED', captured: false, authCode: null });
    expect(res.body.message).toMatch(/not honor/i);
    expect((await balanceOf(walletId)).heldBalance).toBe(0);
    const capture = await sb.gateway('POST', `/payments/${body.externalPaymentId}/capture`);
    expect(capture.status).toBe(409);
    expect(capture.body.error.code).toBe('PAYMENT_DECLINED');
    expect((await sb.gateway('POST', '/v2/payment', body)).body.status).toBe('DECLINED');
  });

  test('card token ending 0014 (not AFT capable) is declined; 0002 declined until 3DS is completed', async () => {
    const aft = await pullPushBody(sb, { token: cardToken('0014') });
    expect((await sb.gateway('POST', '/v2/payment', aft.body)).body).toMatchObject({ approved: false, status: 'DECLINED' });
    const threeDs = await pullPushBody(sb, { token: cardToken('0002', 'dddddddd-bbbb-4ccc-8ddd') });
    const res = await sb.gateway('POST', '/v2/payment', threeDs.body);
    expect(res.body).toMatchObject({ approved: false, status: 'DECLINED' });
    expect(res.body.message).toMatch(/3DS/);
  });

  test('bank account source: account ending 0000 and bad ABA checksum are declined; a valid one is approved', async () => {
    const make = async (accountNumber: string, routingNumber: string) => {
      const { body } = await pullPushBody(sb);
      (body.sender as any).source = {
        type: 'BANK_ACCOUNT',
        accountType: 'checking',
        accountNumber,
        routingNumber,
        accountHolder: { type: 'personal', firstName: 'Jane', lastName: 'Doe' },
      };
      return (await sb.gateway('POST', '/v2/payment', body)).body;
    };
    expect(await make('123456789', '021000021')).toMatchObject({ approved: true, status: 'AUTHORIZED', cvcResult: 'N/A' });
    expect(await make('123450000', '021000021')).toMatchObject({ approved: false, message: 'Account not found' });
    expect(await make('123456789', '021000022')).toMatchObject({ approved: false, message: 'Invalid routing number' });
  });

  test('PIX destination: BRL only, key validated', async () => {
    const { body } = await pullPushBody(sb);
    (body.recipient as any).destination = { type: 'PIX', pix: { keyType: 'EMAIL', key: 'ana@example.com.br' } };
    const ok = await sb.gateway('POST', '/v2/payment', body);
    expect(ok.body).toMatchObject({ approved: true, status: 'AUTHORIZED' });
    const bad = { ...body, externalPaymentId: uniqueId() } as any;
    bad.recipient = { ...bad.recipient, destination: { type: 'PIX', pix: { keyType: 'CPF', key: 'abc' } } };
    const res = await sb.gateway('POST', '/v2/payment', bad);
    expect(res.status).toBe(400);
    expect(res.body.error.details).toEqual([{ field: 'recipient.destination.pix.key', issue: 'invalid CPF key' }]);
  });

  test('validation: 400 VALIDATION_ERROR listing every missing or bad field', async () => {
    const res = await sb.gateway('POST', '/v2/payment', { externalPaymentId: uniqueId(), paymentType: 'PULLPUSH', ipAddress: 'nope' });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('VALIDATION_ERROR');
    const fields = res.body.error.details.map((d: { field: string }) => d.field);
    expect(fields).toEqual(expect.arrayContaining(['ipAddress', 'amount', 'recipientAmount', 'exchangeRate', 'sender', 'recipient']));

    const { body } = await pullPushBody(sb);
    const deep = JSON.parse(JSON.stringify(body));
    delete deep.sender.customer.email;
    deep.sender.customer.countryCodeAlpha3 = 'US';
    delete deep.recipient.customerAddress.zipCode;
    deep.amount = { total: 10.001, currency: 'USD' };
    deep.sender.source.card.token = 'not-a-uuid';
    const res2 = await sb.gateway('POST', '/v2/payment', deep);
    expect(res2.status).toBe(400);
    expect(res2.body.error.details).toEqual(
      expect.arrayContaining([
        { field: 'sender.customer.email', issue: 'required' },
        { field: 'sender.customer.countryCodeAlpha3', issue: 'must be an ISO 3166-1 alpha-3 code' },
        { field: 'recipient.customerAddress.zipCode', issue: 'required' },
        { field: 'amount.total', issue: 'must have at most 2 decimal places for USD' },
        { field: 'sender.source.card.token', issue: 'must be a token UUID' },
      ]),
    );
    const eur = await sb.gateway('POST', '/v2/payment', {
      ...body,
      externalPaymentId: uniqueId(),
      amount: { total: 100, currency: 'EUR' },
    });
    expect(eur.body.error.details).toContainEqual({ field: 'amount.currency', issue: 'must be USD (the pull amount is in USD)' });
    const push = await sb.gateway('POST', '/v2/payment', { ...body, externalPaymentId: uniqueId(), paymentType: 'PUSH' });
    expect(push.status).toBe(400);
    expect(push.body.error.code).toBe('UNSUPPORTED_PAYMENT_TYPE');
    const notJson = await sb.gateway('POST', '/v2/payment', '{oops');
    expect(notJson.status).toBe(400);
    expect(notJson.body.error.code).toBe('INVALID_REQUEST');
  });

  test('a push worth less than the pull at the rate is accepted: the difference is the originator’s fee', async () => {
    const { body, quote: q } = await pullPushBody(sb);
    // the sender pays 100 + a 3.99 fee; the recipient gets 100 × rate
    const r = await sb.gateway('POST', '/v2/payment', { ...body, amount: { total: 103.99, currency: 'USD' } });
    expect(r.status).toBe(200);
    expect(r.body.approved).toBe(true);
    expect(r.body.amount).toBe(103.99);
    expect(q.destinationCurrencyAmount).toBeGreaterThan(0);
  });

  test('rate lock: unknown fxId, expired quote, rate ≠ quote rate, currencies, amounts → 422, nothing stored', async () => {
    const { body } = await pullPushBody(sb);
    const unknown = await sb.gateway('POST', '/v2/payment', { ...body, fxId: 'no-such-quote' });
    expect([unknown.status, unknown.body.error.code]).toEqual([422, 'QUOTE_NOT_FOUND']);
    const rate = await sb.gateway('POST', '/v2/payment', { ...body, exchangeRate: 5.1 });
    expect([rate.status, rate.body.error.code]).toEqual([422, 'EXCHANGE_RATE_MISMATCH']);
    // more pushed than pulled is refused; less is the originator's fee (see 'a push worth less than the pull' below)
    const amount = await sb.gateway('POST', '/v2/payment', { ...body, recipientAmount: { total: 4000, currency: 'BRL' } });
    expect([amount.status, amount.body.error.code]).toEqual([422, 'AMOUNT_MISMATCH']);
    const mxn = await quote(sb, 100, 'MXN');
    const mismatch = await sb.gateway('POST', '/v2/payment', { ...body, fxId: mxn.fxId });
    expect(mismatch.body.error.code).toBe('QUOTE_MISMATCH');
    const wallet = await sb.gateway('POST', '/v2/payment', {
      ...body,
      recipient: { ...(body.recipient as object), destination: { type: 'WALLET', wallet: { walletId: 'nope' } } },
    });
    expect([wallet.status, wallet.body.error.code]).toEqual([422, 'INVALID_DESTINATION']);
    // none of the refusals consumed the externalPaymentId
    expect((await sb.gateway('POST', '/v2/payment', body)).body.status).toBe('AUTHORIZED');
  });

  test('quote expiry follows the sandbox clock: valid at 299 s, refused after 300 s', async () => {
    const a = await pullPushBody(sb);
    const b = await pullPushBody(sb);
    await sb.control.advanceClock(299);
    expect((await sb.gateway('POST', '/v2/payment', a.body)).status).toBe(200);
    await sb.control.advanceClock(2);
    const res = await sb.gateway('POST', '/v2/payment', b.body);
    expect(res.status).toBe(422);
    expect(res.body.error.code).toBe('QUOTE_EXPIRED');
  });

  test('without fxId the exchangeRate must be the reference rate', async () => {
    const { body } = await pullPushBody(sb);
    delete body.fxId;
    expect((await sb.gateway('POST', '/v2/payment', body)).status).toBe(200);
  });
});

describe('capture and void', () => {
  test('full capture credits the wallet, debits the payer balance, one statement entry', async () => {
    const before = (await sb.gateway('GET', '/payer/balance')).body;
    const brl = (b: any[]) => b.find((p) => p.providerId === 'sandbox-wallets').balances.find((x: any) => x.currencyCode === 'BRL').balance;
    const { body, walletId, quote: q } = await pullPushBody(sb);
    await sb.gateway('POST', '/v2/payment', body);
    const cap = await sb.gateway('POST', `/payments/${body.externalPaymentId}/capture`);
    expect(cap.status).toBe(200);
    expect(cap.body).toMatchObject({ status: 'CAPTURED', captured: true, voided: false, capturedAmount: 100, message: 'Captured' });
    expect(await balanceOf(walletId)).toMatchObject({ availableBalance: q.destinationCurrencyAmount, heldBalance: 0 });
    const after = (await sb.gateway('GET', '/payer/balance')).body;
    expect(brl(before) - brl(after)).toBeCloseTo(q.destinationCurrencyAmount, 2);
    const st = await sb.gateway('GET', `/wallets/${walletId}/statement`);
    expect(st.body.entries).toHaveLength(1);
    expect(st.body.entries[0]).toMatchObject({
      externalId: body.externalPaymentId,
      type: 'CREDIT',
      amount: q.destinationCurrencyAmount,
      balanceAfter: q.destinationCurrencyAmount,
    });
  });

  test('partial capture: smaller amount allowed, never larger, only once; the rest is released', async () => {
    const { body, walletId } = await pullPushBody(sb, { amount: 100 });
    await sb.gateway('POST', '/v2/payment', body);
    const tooMuch = await sb.gateway('POST', `/payments/${body.externalPaymentId}/capture`, { amount: 100.01 });
    expect([tooMuch.status, tooMuch.body.error.code]).toEqual([422, 'CAPTURE_AMOUNT_EXCEEDS_AUTHORIZED']);
    const badAmount = await sb.gateway('POST', `/payments/${body.externalPaymentId}/capture`, { amount: -1 });
    expect(badAmount.status).toBe(400);
    const part = await sb.gateway('POST', `/payments/${body.externalPaymentId}/capture`, { amount: 40 });
    expect(part.body).toMatchObject({ status: 'CAPTURED', amount: 100, capturedAmount: 40 });
    // 40 USD × 5.0123 = 200.492 → 200.49 BRL
    expect(await balanceOf(walletId)).toMatchObject({ availableBalance: 200.49, heldBalance: 0, totalBalance: 200.49 });
    const twice = await sb.gateway('POST', `/payments/${body.externalPaymentId}/capture`, { amount: 10 });
    expect(twice.body.error.code).toBe('PAYMENT_ALREADY_CAPTURED');
  });

  test('void only before capture; void after capture and capture after void are errors', async () => {
    const a = await pullPushBody(sb);
    await sb.gateway('POST', '/v2/payment', a.body);
    const v = await sb.gateway('POST', `/payments/${a.body.externalPaymentId}/void`);
    expect(v.body).toMatchObject({ status: 'VOIDED', voided: true, captured: false });
    expect((await balanceOf(a.walletId)).heldBalance).toBe(0);
    const capAfterVoid = await sb.gateway('POST', `/payments/${a.body.externalPaymentId}/capture`);
    expect([capAfterVoid.status, capAfterVoid.body.error.code]).toEqual([409, 'PAYMENT_VOIDED']);
    const voidAgain = await sb.gateway('POST', `/payments/${a.body.externalPaymentId}/void`);
    expect(voidAgain.body.error.code).toBe('PAYMENT_VOIDED');

    const b = await pullPushBody(sb, { capture: true });
    await sb.gateway('POST', '/v2/payment', b.body);
    const voidCaptured = await sb.gateway('POST', `/payments/${b.body.externalPaymentId}/void`);
    expect([voidCaptured.status, voidCaptured.body.error.code]).toEqual([409, 'PAYMENT_ALREADY_CAPTURED']);

    const missing = await sb.gateway('POST', '/payments/nope/capture');
    expect([missing.status, missing.body.error.code]).toEqual([404, 'PAYMENT_NOT_FOUND']);
  });

  test('uncaptured authorizations auto-cancel after 7 days of sandbox time', async () => {
    const a = await pullPushBody(sb);
    const b = await pullPushBody(sb);
    await sb.gateway('POST', '/v2/payment', a.body);
    await sb.gateway('POST', '/v2/payment', b.body);
    await sb.control.advanceClock(7 * 24 * 3600 - 60);
    expect((await sb.gateway('POST', `/payments/${a.body.externalPaymentId}/capture`)).body.status).toBe('CAPTURED');
    await sb.control.advanceClock(60);
    const late = await sb.gateway('POST', `/payments/${b.body.externalPaymentId}/capture`);
    expect([late.status, late.body.error.code]).toEqual([409, 'PAYMENT_CANCELLED']);
    expect(late.body.error.payment).toMatchObject({ status: 'CANCELLED', automaticReversed: true, captured: false });
    expect((await balanceOf(b.walletId)).heldBalance).toBe(0);
  });

  test('emits payment facts on the sandbox bus (authorized, captured, voided, declined, cancelled)', async () => {
    const seen: Array<[string, PaymentFacts & { capturedAmount?: number }]> = [];
    const events = ['payment.authorized', 'payment.captured', 'payment.voided', 'payment.declined', 'payment.cancelled'] as const;
    const listeners = events.map((e) => {
      const fn = (f: PaymentFacts) => seen.push([e, f]);
      sb.ctx.bus.on(e, fn);
      return [e, fn] as const;
    });
    try {
      const a = await pullPushBody(sb, { lastName: 'Compliance-Review' });
      await sb.gateway('POST', '/v2/payment', a.body);
      await sb.gateway('POST', `/payments/${a.body.externalPaymentId}/capture`, { amount: 50 });
      const b = await pullPushBody(sb);
      await sb.gateway('POST', '/v2/payment', b.body);
      await sb.gateway('POST', `/payments/${b.body.externalPaymentId}/void`);
      const c = await pullPushBody(sb, { token: cardToken('0004') });
      await sb.gateway('POST', '/v2/payment', c.body);
      const d = await pullPushBody(sb);
      await sb.gateway('POST', '/v2/payment', d.body);
      await sb.control.advanceClock(8 * 24 * 3600);
    } finally {
      for (const [e, fn] of listeners) sb.ctx.bus.off(e, fn);
    }
    const names = seen.map(([e]) => e);
    expect(names.slice(0, 6)).toEqual([
      'payment.authorized',
      'payment.captured',
      'payment.authorized',
      'payment.voided',
      'payment.declined',
      'payment.authorized',
    ]);
    expect(names).toContain('payment.cancelled');
    const captured = seen[1][1];
    expect(captured).toMatchObject({ amount: { total: 100, currency: 'USD' }, capturedAmount: 50, senderLastName: 'Compliance-Review' });
    expect(captured.recipientAmount.currency).toBe('BRL');
  });
});

describe('PULL by account token', () => {
  test('bank-linking check gives an accountTokenId usable for PULL; unknown token → 422', async () => {
    const check = await sb.gateway('POST', '/check-account', {
      externalPaymentId: uniqueId('chk'),
      sender: {
        paymentMethod: { type: 'BANK_DEPOSIT', countryCode: 'US', accountCheckToken: 'public-sandbox-1', accountCheckId: 'acc-1' },
      },
    });
    expect(check.body.status).toBe('VERIFIED');
    const pull = (token: string, capture: boolean) => ({
      externalPaymentId: uniqueId('pull'),
      ipAddress: '2001:db8::1',
      paymentType: 'PULL',
      capture,
      amount: { total: 25.5, currency: 'USD' },
      sender: { firstName: 'Jane', lastName: 'Doe', paymentMethod: { type: 'BANK_DEPOSIT', accountTokenId: token } },
    });
    const ok = await sb.gateway('POST', '/v2/payment', pull(check.body.accountTokenId, true));
    expect(ok.status).toBe(200);
    expect(ok.body).toMatchObject({ approved: true, status: 'CAPTURED', captured: true, amount: 25.5 });
    const auth = await sb.gateway('POST', '/v2/payment', pull(check.body.accountTokenId, false));
    expect(auth.body.status).toBe('AUTHORIZED');
    const bad = await sb.gateway('POST', '/v2/payment', pull('nope', false));
    expect([bad.status, bad.body.error.code]).toEqual([422, 'ACCOUNT_TOKEN_NOT_FOUND']);
    const ach = (await sb.gateway('GET', '/payer/balance')).body.find((p: any) => p.providerId === 'sandbox-ach');
    expect(ach.balances).toContainEqual({ currencyCode: 'USD', balance: 1_000_025.5 });
  });
});

describe('wallets', () => {
  test('create, get, 404, validation', async () => {
    const created = await sb.gateway('POST', '/wallets', {
      accountAsset: 'USD',
      ownerId: 'o-1',
      beneficiaryId: 'b-1',
      type: 'BUSINESS',
      additionalInfo: { note: 'x' },
    });
    expect(created.status).toBe(200);
    expect(created.body).toMatchObject({ accountAsset: 'USD', ownerId: 'o-1', beneficiaryId: 'b-1', type: 'BUSINESS', status: 'ACTIVE' });
    expect(created.body.additionalInfo).toBeUndefined();
    expect(new Date(created.body.createdAt).toISOString()).toBe(created.body.createdAt);
    expect((await sb.gateway('GET', `/wallets/${created.body.walletId}`)).body).toEqual(created.body);
    const missing = await sb.gateway('GET', '/wallets/nope');
    expect([missing.status, missing.body.error.code]).toEqual([404, 'WALLET_NOT_FOUND']);
    expect((await sb.gateway('GET', '/wallets/nope/balance')).status).toBe(404);
    const bad = await sb.gateway('POST', '/wallets', { accountAsset: 'USD', type: 'OTHER' });
    expect(bad.status).toBe(400);
    expect(bad.body.error.details.map((d: any) => d.field).sort()).toEqual(['beneficiaryId', 'ownerId', 'type']);
  });

  test('statement: from/until filters and zero-based paging', async () => {
    const walletId = await createWallet(sb);
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) {
      const { body } = await pullPushBody(sb, { walletId, amount: 10 + i, capture: true });
      expect((await sb.gateway('POST', '/v2/payment', body)).body.status).toBe('CAPTURED');
      ids.push(body.externalPaymentId as string);
      await sb.control.advanceClock(86_400); // one entry per day
    }
    const all = await sb.gateway('GET', `/wallets/${walletId}/statement`);
    expect(all.body).toMatchObject({ walletId, page: 0, size: 20, totalEntries: 5 });
    expect(all.body.entries.map((e: any) => e.externalId)).toEqual(ids);
    const last = all.body.entries[4];
    expect(last.balanceAfter).toBeCloseTo(
      all.body.entries.reduce((s: number, e: any) => s + e.amount, 0),
      2,
    );

    const p1 = await sb.gateway('GET', `/wallets/${walletId}/statement?page=1&size=2`);
    expect(p1.body.entries.map((e: any) => e.externalId)).toEqual(ids.slice(2, 4));
    expect(p1.body).toMatchObject({ page: 1, size: 2, totalEntries: 5 });
    const p2 = await sb.gateway('GET', `/wallets/${walletId}/statement?page=2&size=2`);
    expect(p2.body.entries).toHaveLength(1);
    expect((await sb.gateway('GET', `/wallets/${walletId}/statement?page=9&size=2`)).body.entries).toEqual([]);

    const day = (i: number) => all.body.entries[i].createdAt.slice(0, 10);
    const ranged = await sb.gateway('GET', `/wallets/${walletId}/statement?from=${day(1)}&until=${day(3)}`);
    expect(ranged.body.entries.map((e: any) => e.externalId)).toEqual(ids.slice(1, 4));
    expect(ranged.body.totalEntries).toBe(3);
    const since = await sb.gateway('GET', `/wallets/${walletId}/statement?from=${encodeURIComponent(all.body.entries[3].createdAt)}`);
    expect(since.body.totalEntries).toBe(2);

    for (const q of ['page=-1', 'size=0', 'size=101', 'from=yesterday', 'from=2026-02-30', `from=${day(3)}&until=${day(1)}`]) {
      const res = await sb.gateway('GET', `/wallets/${walletId}/statement?${q}`);
      expect([q, res.status]).toEqual([q, 400]);
    }
  });
});

describe('refund', () => {
  const refund = (id: string, body: unknown) => sb.gateway('POST', `/payments/${id}/refund`, body);

  test('only after a capture; partial allowed up to what is left; idempotent by externalRefundId; in the call log', async () => {
    const { body } = await pullPushBody(sb, { amount: 100 });
    const id = body.externalPaymentId as string;
    await sb.gateway('POST', '/v2/payment', body);
    const early = await refund(id, { externalRefundId: 'r-early' });
    expect([early.status, early.body.error.code]).toEqual([409, 'PAYMENT_NOT_CAPTURED']);
    await sb.gateway('POST', `/payments/${id}/capture`, { amount: 80 });

    const first = await refund(id, { externalRefundId: 'r-1', amount: 30 });
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ externalRefundId: 'r-1', amount: 30, currency: 'USD', status: 'SUCCEEDED' });
    expect(first.body.refundId).toEqual(expect.any(String));
    // the same id again: the same refund (a lost answer retried), never a second one
    const again = await refund(id, { externalRefundId: 'r-1', amount: 30 });
    expect(again.body).toEqual(first.body);
    expect((await refund(id, { externalRefundId: 'r-1' })).body).toEqual(first.body);
    const otherAmount = await refund(id, { externalRefundId: 'r-1', amount: 31 });
    expect([otherAmount.status, otherAmount.body.error.code]).toEqual([409, 'IDEMPOTENCY_CONFLICT']);

    const tooMuch = await refund(id, { externalRefundId: 'r-2', amount: 50.01 });
    expect([tooMuch.status, tooMuch.body.error.code]).toEqual([422, 'REFUND_AMOUNT_EXCEEDS_CAPTURED']);
    const rest = await refund(id, { externalRefundId: 'r-2' });
    expect(rest.body).toMatchObject({ amount: 50, status: 'SUCCEEDED' });
    const none = await refund(id, { externalRefundId: 'r-3', amount: 1 });
    expect([none.status, none.body.error.code]).toEqual([409, 'PAYMENT_FULLY_REFUNDED']);
    // the payment as it stands (the same body again answers its current state)
    expect((await sb.gateway('POST', '/v2/payment', body)).body).toMatchObject({ capturedAmount: 80, refundedAmount: 80 });

    const calls = await sb.control.calls(`/gateway/payments/${id}/refund`);
    expect(calls.map((c: { status: number }) => c.status)).toEqual([409, 200, 200, 200, 409, 422, 200, 409]);
    // each call is logged under the refund's id (its idempotency key)
    expect(calls.map((c: { idempotencyKey: string | null }) => c.idempotencyKey)).toEqual([
      'r-early',
      'r-1',
      'r-1',
      'r-1',
      'r-1',
      'r-2',
      'r-2',
      'r-3',
    ]);
  });

  test('a refund of a voided payment, without an id, or with a bad amount is refused', async () => {
    const { body } = await pullPushBody(sb);
    const id = body.externalPaymentId as string;
    await sb.gateway('POST', '/v2/payment', body);
    await sb.gateway('POST', `/payments/${id}/void`);
    expect((await refund(id, { externalRefundId: 'r-v' })).body.error.code).toBe('PAYMENT_NOT_CAPTURED');
    expect((await refund(id, {})).status).toBe(400);
    expect((await refund(id, { externalRefundId: 'bad id with spaces' })).status).toBe(400);
    expect((await refund(id, { externalRefundId: 'r-x', amount: -1 })).status).toBe(400);
    expect((await refund('nope', { externalRefundId: 'r-x' })).status).toBe(404);
  });

  test('a refund whose answer is dropped after it was made is found again by its id', async () => {
    const { body } = await pullPushBody(sb);
    const id = body.externalPaymentId as string;
    await sb.gateway('POST', '/v2/payment', body);
    await sb.gateway('POST', `/payments/${id}/capture`);
    await sb.control.setFaults({ dropResponseAfterCommitRate: 1 });
    try {
      await expect(refund(id, { externalRefundId: 'r-drop' })).rejects.toThrow();
    } finally {
      await sb.control.setFaults({ dropResponseAfterCommitRate: 0 });
    }
    const again = await refund(id, { externalRefundId: 'r-drop' });
    expect(again.body).toMatchObject({ externalRefundId: 'r-drop', amount: 100, status: 'SUCCEEDED' });
    expect((await sb.gateway('POST', '/v2/payment', body)).body.refundedAmount).toBe(100);
  });
});
