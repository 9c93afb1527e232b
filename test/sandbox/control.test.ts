/** The control API over real HTTP: call log, reset, clock, faults (errorRate, latency, dropResponseAfterCommit, seed). */
import { http, startTestSandbox, type TestSandbox } from '../helpers/sandbox';
import { pullPushBody } from './gateway.fixtures';

let sb: TestSandbox;
beforeAll(async () => {
  sb = await startTestSandbox();
});
afterAll(async () => {
  await sb.close();
});
afterEach(async () => {
  await http('DELETE', `${sb.controlUrl}/faults`);
});

describe('GET /__sandbox/calls', () => {
  test('records upstream calls oldest first with idempotencyKey; ?path= filters by prefix; no secrets; not the control API', async () => {
    await http('DELETE', `${sb.controlUrl}/calls`);
    const { body } = await pullPushBody(sb);
    await sb.gateway('POST', '/v2/payment', body);
    await sb.gateway('POST', `/payments/${encodeURIComponent(String(body.externalPaymentId))}/capture`, { amount: 10 });
    await sb.gateway('POST', `/payments/${body.externalPaymentId}/void`);
    await sb.request('GET', '/verification/v1/sessions/x');
    await sb.request('GET', '/__sandbox/faults');

    const calls = await sb.control.calls();
    expect(calls.every((c) => c.path.startsWith('/gateway') || c.path.startsWith('/verification'))).toBe(true);
    const times = calls.map((c) => Date.parse(c.at));
    expect([...times].sort((a, b) => a - b)).toEqual(times);
    const payment = calls.filter((c) => c.path.startsWith('/gateway/v2/payment') || c.path.startsWith('/gateway/payments'));
    expect(payment).toEqual([
      {
        service: 'gateway',
        method: 'POST',
        path: '/gateway/v2/payment',
        status: 200,
        at: expect.any(String),
        idempotencyKey: body.externalPaymentId,
      },
      {
        service: 'gateway',
        method: 'POST',
        path: `/gateway/payments/${body.externalPaymentId}/capture`,
        status: 200,
        at: expect.any(String),
        idempotencyKey: body.externalPaymentId,
      },
      {
        service: 'gateway',
        method: 'POST',
        path: `/gateway/payments/${body.externalPaymentId}/void`,
        status: 409,
        at: expect.any(String),
        idempotencyKey: body.externalPaymentId,
      },
    ]);
    const token = calls.find((c) => c.path === '/gateway/oauth/token');
    expect(token).toMatchObject({ service: 'gateway', status: 200, idempotencyKey: null });
    expect(JSON.stringify(calls)).not.toMatch(/sandbox-secret|gw_[0-9a-f]{48}/);
    expect(calls.find((c) => c.service === 'verification')).toMatchObject({ method: 'GET', path: '/verification/v1/sessions/x' });

    const filtered = await sb.control.calls('/gateway/payments/');
    expect(filtered.map((c) => c.path)).toEqual([payment[1].path, payment[2].path]);
    const byService = (await http('GET', `${sb.controlUrl}/calls?service=verification`)).body;
    expect(byService).toHaveLength(1);
    const withQuery = await sb.gateway('GET', '/bank/list?countryCode=BR&page=1');
    expect(withQuery.status).toBe(200);
    expect((await sb.control.calls('/gateway/bank/list')).map((c) => c.path)).toEqual(['/gateway/bank/list']);
  });
});

describe('POST /__sandbox/reset', () => {
  test('forgets gateway state (wallets, tokens, payments), the call log and the clock', async () => {
    const { body, walletId } = await pullPushBody(sb);
    await sb.gateway('POST', '/v2/payment', body);
    await sb.control.advanceClock(1000);
    const token = await sb.gatewayToken();
    const res = await http('POST', `${sb.controlUrl}/reset`, { body: {} });
    expect(res.status).toBe(200);
    expect(res.body.ok).toBe(true);
    expect((await sb.request('GET', `/gateway/wallets/${walletId}`, { token })).status).toBe(401); // tokens forgotten
    expect((await sb.gateway('GET', `/wallets/${walletId}`)).status).toBe(404);
    expect((await sb.gateway('POST', `/payments/${body.externalPaymentId}/capture`)).status).toBe(404);
    expect((await http('GET', `${sb.controlUrl}/clock`)).body.offsetSeconds).toBe(0);
    const calls = await sb.control.calls();
    expect(calls.some((c) => c.path === '/gateway/v2/payment')).toBe(false);
    // reset with no body at all also works
    expect((await http('POST', `${sb.controlUrl}/reset`)).status).toBe(200);
  });
});

describe('POST /__sandbox/clock', () => {
  test('moves the sandbox clock forward; validates input', async () => {
    const before = (await http('GET', `${sb.controlUrl}/clock`)).body;
    const res = await http('POST', `${sb.controlUrl}/clock`, { body: { advanceSeconds: 3600 } });
    expect(res.status).toBe(200);
    expect(res.body.offsetSeconds).toBe(before.offsetSeconds + 3600);
    expect(Date.parse(res.body.now) - Date.parse(before.now)).toBeGreaterThanOrEqual(3600_000);
    for (const body of [{}, { advanceSeconds: -1 }, { advanceSeconds: 'x' }, [1], { advanceSeconds: null }]) {
      const bad = await http('POST', `${sb.controlUrl}/clock`, { body });
      expect([body, bad.status, bad.body.error.code]).toEqual([body, 400, 'VALIDATION_ERROR']);
    }
    expect((await http('POST', `${sb.controlUrl}/clock`, { body: '{bad' })).status).toBe(400);
  });

  test('goes back to the real time: POST { reset: true } and DELETE; validates input', async () => {
    await sb.control.advanceClock(301);
    expect((await http('GET', `${sb.controlUrl}/clock`)).body.offsetSeconds).toBeGreaterThanOrEqual(301);
    const reset = await http('POST', `${sb.controlUrl}/clock`, { body: { reset: true } });
    expect(reset.status).toBe(200);
    expect(reset.body.offsetSeconds).toBe(0);
    expect(Math.abs(Date.parse(reset.body.now) - Date.now())).toBeLessThan(5_000);
    await sb.control.advanceClock(7200);
    const del = await http('DELETE', `${sb.controlUrl}/clock`);
    expect([del.status, del.body.offsetSeconds]).toEqual([200, 0]);
    expect((await http('GET', `${sb.controlUrl}/clock`)).body.offsetSeconds).toBe(0);
    for (const body of [{ reset: false }, { reset: 'yes' }, { reset: true, advanceSeconds: 5 }]) {
      const bad = await http('POST', `${sb.controlUrl}/clock`, { body });
      expect([body, bad.status, bad.body.error.code]).toEqual([body, 400, 'VALIDATION_ERROR']);
    }
  });
});

describe('POST /__sandbox/faults', () => {
  test('validated; returns the faults in force; partial updates merge; GET and DELETE', async () => {
    const set = await http('POST', `${sb.controlUrl}/faults`, { body: { latencyMs: 5, webhookShuffle: true, seed: 7 } });
    expect(set.status).toBe(200);
    expect(set.body).toEqual({
      latencyMs: 5,
      errorRate: 0,
      dropResponseAfterCommitRate: 0,
      webhookDuplicateRate: 0,
      webhookShuffle: true,
      webhookDelayMs: 0,
      seed: 7,
    });
    const merged = await http('POST', `${sb.controlUrl}/faults`, { body: { webhookDelayMs: 100 } });
    expect(merged.body).toMatchObject({ latencyMs: 5, webhookDelayMs: 100, seed: 7 });
    expect((await http('GET', `${sb.controlUrl}/faults`)).body).toEqual(merged.body);
    const bad: Array<Record<string, unknown>> = [
      { errorRate: 1.5 },
      { errorRate: -0.1 },
      { dropResponseAfterCommitRate: '1' },
      { webhookDuplicateRate: 2 },
      { latencyMs: -1 },
      { latencyMs: 1.5 },
      { webhookShuffle: 'yes' },
      { webhookDelayMs: -5 },
      { seed: 1.2 },
      { nope: 1 },
    ];
    for (const body of bad) {
      const res = await http('POST', `${sb.controlUrl}/faults`, { body });
      expect([body, res.status, res.body.error.details[0].field]).toEqual([body, 400, Object.keys(body)[0]]);
    }
    expect((await http('GET', `${sb.controlUrl}/faults`)).body).toEqual(merged.body); // nothing applied from bad requests
    const cleared = await http('DELETE', `${sb.controlUrl}/faults`);
    expect(cleared.body).toMatchObject({ latencyMs: 0, errorRate: 0, webhookShuffle: false, seed: 1 });
  });

  test('errorRate 1 → 503 without doing anything, on every upstream API; not on the control API or the 3DS page', async () => {
    await sb.control.setFaults({ errorRate: 1 });
    const wallets = await sb.request('POST', '/gateway/wallets', {
      body: { accountAsset: 'BRL', ownerId: 'o', beneficiaryId: 'b', type: 'PERSONAL' },
    });
    expect(wallets.status).toBe(503);
    expect(wallets.body.error.code).toBe('SERVICE_UNAVAILABLE');
    expect(wallets.headers['retry-after']).toBe('1');
    expect(
      (await sb.request('POST', '/gateway/oauth/token', { body: { clientId: 'sandbox-client', secretID: 'sandbox-secret' } })).status,
    ).toBe(503);
    expect((await sb.request('GET', '/remittances/organizations/sandbox-tenant/webhooks')).status).toBe(503);
    expect((await sb.request('POST', '/verification/oauth/token')).status).toBe(503);
    expect((await http('GET', `${sb.controlUrl}/calls`)).status).toBe(200);
    expect((await sb.request('GET', '/gateway/3ds/unknown')).status).toBe(404); // the page itself answers
    const last = (await sb.control.calls('/gateway/wallets')).pop();
    expect(last).toMatchObject({ status: 503 });
    await sb.control.setFaults({ errorRate: 0 });
    const tok = await sb.gatewayToken();
    // nothing was created by the refused request: a new wallet works, and the payment id is free
    const { body } = await pullPushBody(sb);
    await sb.control.setFaults({ errorRate: 1 });
    expect((await sb.request('POST', '/gateway/v2/payment', { body, token: tok })).status).toBe(503);
    await sb.control.setFaults({ errorRate: 0 });
    expect((await sb.control.calls('/gateway/v2/payment')).pop()).toMatchObject({ status: 503, idempotencyKey: body.externalPaymentId });
    expect((await sb.request('POST', `/gateway/payments/${body.externalPaymentId}/capture`, { token: tok })).status).toBe(404);
  });

  test('errorRate draws from the seeded rng: the same seed gives the same sequence', async () => {
    const run = async () => {
      await sb.control.setFaults({ errorRate: 0.5, seed: 42 });
      const statuses: number[] = [];
      for (let i = 0; i < 12; i++) statuses.push((await sb.request('GET', '/gateway/payer/balance')).status);
      return statuses;
    };
    const a = await run();
    const b = await run();
    expect(a).toEqual(b);
    expect(a).toContain(503);
    expect(a.some((s) => s !== 503)).toBe(true);
  });

  test('latencyMs delays upstream requests, not the control API', async () => {
    await sb.control.setFaults({ latencyMs: 300 });
    const t0 = Date.now();
    await sb.gateway('GET', '/payer/balance');
    expect(Date.now() - t0).toBeGreaterThanOrEqual(290);
    const t1 = Date.now();
    await http('GET', `${sb.controlUrl}/faults`);
    expect(Date.now() - t1).toBeLessThan(250);
  });

  test('dropResponseAfterCommitRate 1: socket closed without an answer, but the payment exists afterwards', async () => {
    const { body, walletId, quote } = await pullPushBody(sb);
    await sb.gateway('GET', '/payer/balance'); // token cached before the fault
    await sb.control.setFaults({ dropResponseAfterCommitRate: 1 });
    await expect(sb.gateway('POST', '/v2/payment', body)).rejects.toThrow();
    // other endpoints are unaffected by this fault
    expect((await sb.gateway('GET', `/wallets/${walletId}/balance`)).body.heldBalance).toBe(quote.destinationCurrencyAmount);
    await expect(sb.gateway('POST', `/payments/${body.externalPaymentId}/capture`)).rejects.toThrow();
    await sb.control.setFaults({ dropResponseAfterCommitRate: 0 });

    const retry = await sb.gateway('POST', '/v2/payment', body);
    expect(retry.status).toBe(200);
    expect(retry.body).toMatchObject({ externalPaymentId: body.externalPaymentId, status: 'CAPTURED', captured: true });
    expect((await sb.gateway('GET', `/wallets/${walletId}/balance`)).body.availableBalance).toBe(quote.destinationCurrencyAmount);

    const calls = (await sb.control.calls()).filter((c) => c.idempotencyKey === body.externalPaymentId);
    expect(calls.map((c) => [c.path.replace(String(body.externalPaymentId), ':id'), c.status])).toEqual([
      ['/gateway/v2/payment', 0],
      ['/gateway/payments/:id/capture', 0],
      ['/gateway/v2/payment', 200],
    ]);
  });
});
