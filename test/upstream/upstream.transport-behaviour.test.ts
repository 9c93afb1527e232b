/**
 * Transport-level behaviour of the clients against a scripted local HTTP server: malformed bodies,
 * timeouts, resets, 401 handling, retries with the same key, UnknownOutcome, 429, redaction, metrics.
 */
import { UnknownOutcome, UpstreamError } from '../../src/upstream/http/upstream.errors';
import { TransportFailure, UpstreamTransport } from '../../src/upstream/http/upstream.transport';
import { harness, json, LocalServer, metricValue, type Harness } from './helpers/upstream.local-server';
import { paymentRequest, paymentResponse } from './helpers/upstream.fixtures';

let server: LocalServer;
let h: Harness;
let tokenCount = 0;

const token = (res: Parameters<typeof json>[0]) => {
  tokenCount++;
  json(res, 200, { access_token: `tok-${tokenCount}`, token_type: 'Bearer', expires_in: 3600 });
};

beforeEach(async () => {
  server = await new LocalServer().start();
  tokenCount = 0;
});
afterEach(async () => {
  await h?.clients.close();
  await server.stop();
});

async function rejection(p: Promise<unknown>): Promise<UpstreamError> {
  try {
    await p;
  } catch (e) {
    expect(e).toBeInstanceOf(UpstreamError);
    return e as UpstreamError;
  }
  throw new Error('expected a rejection');
}

describe('responses are checked against the documented shape', () => {
  it('a 200 that is not JSON is a typed invalid_response, not retried', async () => {
    h = harness(server.url);
    server.handler = (req, res) => {
      if (req.url.endsWith('/oauth/token')) return token(res);
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('<html>oops</html>');
    };
    const err = await rejection(h.clients.gateway.getWallet('w1'));
    expect(err).toMatchObject({ service: 'gateway', operation: 'getWallet', kind: 'invalid_response', status: 200, retryable: false });
    expect(err.toAppError().code).toBe('UPSTREAM_UNAVAILABLE');
    expect(server.paths('/gateway/wallets')).toHaveLength(1);
  });

  it('a 200 missing documented fields is rejected with the paths (not the values)', async () => {
    h = harness(server.url);
    server.handler = (req, res) => {
      if (req.url.endsWith('/oauth/token')) return token(res);
      json(res, 200, { fxId: 'fx1', conversionRate: '5.01', quoteIdExpiryDateTime: '2026-01-01T00:05:00Z' });
    };
    const err = await rejection(h.clients.gateway.createFxQuoteV1({ sourceCurrencyCode: 'USD', destinationCurrencyCode: 'BRL' }));
    expect(err.kind).toBe('invalid_response');
    expect(err.upstreamMessage).toContain('conversionRate');
    expect(err.upstreamMessage).not.toContain('5.01');
  });

  it('an unknown decision status is rejected rather than passed on', async () => {
    h = harness(server.url);
    server.handler = (req, res) => {
      if (req.url.endsWith('/oauth/token')) return token(res);
      json(res, 200, { id: 'p1', status: 'MAYBE' });
    };
    const err = await rejection(h.clients.gateway.validatePerson({ firstName: 'A', lastName: 'B' }));
    expect(err.kind).toBe('invalid_response');
  });

  it('documented answers come back as typed results: alias not found (400 found:false), person REJECTED', async () => {
    h = harness(server.url);
    server.handler = (req, res) => {
      if (req.url.endsWith('/oauth/token')) return token(res);
      if (req.url.endsWith('/v1/alias/directory'))
        return json(res, 400, {
          found: false,
          countryCode: 'BRA',
          system: 'PIX',
          keyType: 'CPF',
          key: '00000000000',
          message: 'not found',
        });
      json(res, 200, { status: 'REJECTED', message: 'identity mismatch' });
    };
    const alias = await h.clients.gateway.lookupAlias({ countryCode: 'BRA', key: '00000000000', keyType: 'CPF' });
    expect(alias.found).toBe(false);
    const person = await h.clients.gateway.validatePerson({ firstName: 'A', lastName: 'Rejected' });
    expect(person).toMatchObject({ status: 'REJECTED', message: 'identity mismatch' });
    expect(await metricValue(h.metrics, { operation: 'lookupAlias', outcome: 'answer' })).toBe(1);
  });

  it('a 400 without found:false stays an error (UPSTREAM_REJECTED), envelope read', async () => {
    h = harness(server.url);
    server.handler = (req, res) => {
      if (req.url.endsWith('/oauth/token')) return token(res);
      json(res, 400, { error: { code: 'VALIDATION_ERROR', message: 'key: must be 11 digits, got 123456789' } });
    };
    const err = await rejection(h.clients.gateway.lookupAlias({ countryCode: 'BRA', key: '123456789', keyType: 'CPF' }));
    expect(err).toMatchObject({ kind: 'rejected', status: 400, upstreamCode: 'VALIDATION_ERROR', retryable: false });
    expect(err.upstreamMessage).toBe('key: must be 11 digits, got [number]');
    expect(err.toAppError().code).toBe('UPSTREAM_REJECTED');
  });
});

describe('gateway token', () => {
  it('on a 401 the client refreshes once and retries once — never more', async () => {
    h = harness(server.url);
    server.handler = (req, res) => {
      if (req.url.endsWith('/oauth/token')) return token(res);
      json(res, 401, { error: { code: 'UNAUTHORIZED', message: 'expired' } }, { 'www-authenticate': 'Bearer error="invalid_token"' });
    };
    const err = await rejection(h.clients.gateway.getPayerBalance());
    expect(err).toMatchObject({ kind: 'unauthorized', status: 401 });
    expect(err.toAppError().code).toBe('UPSTREAM_UNAVAILABLE');
    expect(server.paths()).toEqual([
      'POST /gateway/oauth/token',
      'GET /gateway/payer/balance',
      'POST /gateway/oauth/token',
      'GET /gateway/payer/balance',
    ]);
    // the second attempt used the fresh token
    const calls = server.seen.filter((s) => s.url === '/gateway/payer/balance');
    expect(calls.map((c) => c.headers.authorization)).toEqual(['Bearer tok-1', 'Bearer tok-2']);
  });

  it('the refresh after a 401 does not use up the retry budget: the retries that follow still get every attempt', async () => {
    h = harness(server.url, { UPSTREAM_RETRY_MAX_ATTEMPTS: '3' });
    let calls = 0;
    server.handler = (req, res) => {
      if (req.url.endsWith('/oauth/token')) return token(res);
      if (++calls === 1) return json(res, 401, { error: { code: 'UNAUTHORIZED', message: 'expired' } });
      json(res, 502, { error: { code: 'BAD_GATEWAY', message: 'down' } });
    };
    const err = await rejection(h.clients.gateway.getPayerBalance());
    expect(err).toMatchObject({ kind: 'server_error', status: 502 });
    // the 401, then the fresh token's attempt and the two retries the cap of 3 allows
    expect(server.paths('/gateway/payer/balance')).toHaveLength(4);
    expect(h.sleeps).toEqual([50, 100]);
    expect(tokenCount).toBe(2); // the one refresh
  });

  it('the retry time cap counts from before the first attempt: a first attempt that took the whole budget is not repeated', async () => {
    h = harness(server.url, { UPSTREAM_RETRY_MAX_ATTEMPTS: '5', UPSTREAM_RETRY_MAX_TOTAL_MS: '1000' });
    server.handler = (req, res) => {
      if (req.url.endsWith('/oauth/token')) return token(res);
      h.clock.advance(1_000); // the upstream took the whole budget to answer
      json(res, 502, { error: { code: 'BAD_GATEWAY', message: 'down' } });
    };
    const err = await rejection(h.clients.gateway.getPayerBalance());
    expect(err).toMatchObject({ kind: 'server_error', status: 502 });
    expect(server.paths('/gateway/payer/balance')).toHaveLength(1);
    expect(h.sleeps).toEqual([]);
  });

  it('a 401 followed by success returns the answer, even for a non-repeatable write', async () => {
    h = harness(server.url);
    let first = true;
    server.handler = (req, res) => {
      if (req.url.endsWith('/oauth/token')) return token(res);
      if (first) {
        first = false;
        return json(res, 401, { error: { code: 'UNAUTHORIZED', message: 'revoked' } });
      }
      json(res, 200, { id: 'p1', status: 'APPROVED' });
    };
    await expect(h.clients.gateway.createPerson({ firstName: 'A', lastName: 'B' })).resolves.toMatchObject({ id: 'p1' });
    expect(server.paths('/gateway/person')).toHaveLength(2);
  });

  it('bad credentials (401 INVALID_CLIENT) are a typed token error, never retried', async () => {
    h = harness(server.url, { GATEWAY_CLIENT_SECRET: 'wrong' });
    server.handler = (req, res) => json(res, 401, { error: { code: 'INVALID_CLIENT', message: 'unknown client credentials' } });
    const err = await rejection(h.clients.gateway.getPayerBalance());
    expect(err).toMatchObject({ kind: 'token_rejected', upstreamCode: 'INVALID_CLIENT', retryable: false });
    expect(server.paths()).toEqual(['POST /gateway/oauth/token']);
  });

  it('1,000 concurrent calls on a cold cache make exactly 1 token request', async () => {
    h = harness(server.url);
    server.handler = (req, res) => {
      if (req.url.endsWith('/oauth/token')) return void setTimeout(() => token(res), 20);
      json(res, 200, [{ providerId: 'p', balances: [{ currencyCode: 'USD', balance: 10.5 }] }]);
    };
    await Promise.all(Array.from({ length: 1000 }, () => h.clients.gateway.getPayerBalance()));
    expect(server.paths('/gateway/oauth/token')).toHaveLength(1);
    expect(server.paths('/gateway/payer/balance')).toHaveLength(1000);
  });
});

describe('timeouts', () => {
  it('a read that gets no answer fails after the read timeout; a payment waits for the longer payment timeout', async () => {
    h = harness(server.url, { UPSTREAM_READ_TIMEOUT_MS: '150', UPSTREAM_PAYMENT_TIMEOUT_MS: '2000', UPSTREAM_RETRY_MAX_ATTEMPTS: '1' });
    server.handler = (req, res) => {
      if (req.url.endsWith('/oauth/token')) return token(res);
      const body = req.url.endsWith('/v2/payment')
        ? paymentResponse((req.json as { externalPaymentId: string }).externalPaymentId)
        : { walletId: 'w', accountAsset: 'USD', availableBalance: 1, heldBalance: 0, totalBalance: 1 };
      setTimeout(() => json(res, 200, body), 400);
    };
    await h.clients.gateway.getPayerBalance().catch(() => undefined); // warm the token
    const t0 = performance.now();
    const err = await rejection(h.clients.gateway.getWalletBalance('w'));
    const elapsed = performance.now() - t0;
    expect(err).toMatchObject({ kind: 'timeout', upstreamCode: 'UND_ERR_HEADERS_TIMEOUT', retryable: true });
    expect(elapsed).toBeGreaterThanOrEqual(140);
    expect(elapsed).toBeLessThan(390);
    const pay = await h.clients.gateway.createPayment(paymentRequest());
    expect(pay.kind).toBe('completed');
  });

  it('a read that times out is retried with backoff, up to the attempt cap', async () => {
    h = harness(server.url, { UPSTREAM_READ_TIMEOUT_MS: '100', UPSTREAM_RETRY_MAX_ATTEMPTS: '3' });
    server.handler = (req, res) => {
      if (req.url.endsWith('/oauth/token')) return token(res);
      setTimeout(() => json(res, 200, {}), 300);
    };
    const err = await rejection(h.clients.gateway.getWallet('w'));
    expect(err.kind).toBe('timeout');
    expect(server.paths('/gateway/wallets')).toHaveLength(3);
    expect(h.sleeps).toEqual([50, 100]); // base 100 ms, random 0.5: 0.5×100, 0.5×200
  });

  it('a response whose body stalls fails after the body timeout', async () => {
    h = harness(server.url, { UPSTREAM_READ_TIMEOUT_MS: '200', UPSTREAM_RETRY_MAX_ATTEMPTS: '1' });
    server.handler = (req, res) => {
      if (req.url.endsWith('/oauth/token')) return token(res);
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{"walletId":');
      setTimeout(() => res.end('"w"}'), 600);
    };
    await h.clients.gateway.getPayerBalance().catch(() => undefined);
    const err = await rejection(h.clients.gateway.getWallet('w'));
    expect(err).toMatchObject({ kind: 'timeout', upstreamCode: 'UND_ERR_BODY_TIMEOUT' });
  });
});

describe("the transport's timers: the headers wait, then the body's idle time", () => {
  const transportWith = (headersMs: number, bodyMs: number) => {
    const t = { headersMs, bodyMs };
    return new UpstreamTransport({ maxConnections: 2, connectTimeoutMs: 1_000, timeouts: { read: t, write: t, payment: t } });
  };
  const get = (transport: UpstreamTransport) =>
    transport.send({ origin: new URL(server.url).origin, path: '/slow', method: 'GET', headers: {}, timeoutClass: 'read' });
  const failure = (p: Promise<unknown>) =>
    p.then(
      () => {
        throw new Error('expected a timeout');
      },
      (e: unknown) => e as TransportFailure,
    );

  it('a body that keeps coming, a chunk within the idle time each, is read to the end however long it takes in all', async () => {
    const transport = transportWith(150, 150);
    server.handler = (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      const parts = ['[1', ',2', ',3', ',4', ',5', ',6]'];
      const next = () => (parts.length === 1 ? res.end(parts.shift()) : (res.write(parts.shift()), setTimeout(next, 80)));
      next();
    };
    try {
      const t0 = performance.now();
      const res = await get(transport);
      expect(res.text).toBe('[1,2,3,4,5,6]');
      expect(performance.now() - t0).toBeGreaterThan(350); // longer than two idle times: each chunk moved the deadline on
    } finally {
      await transport.close();
    }
  });

  it('a body idle time shorter than the headers wait still ends a stalled body on time', async () => {
    const transport = transportWith(3_000, 150);
    server.handler = (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{"a":');
      setTimeout(() => res.end('1}'), 1_500);
    };
    try {
      const t0 = performance.now();
      const f = await failure(get(transport));
      expect(f).toMatchObject({ kind: 'timeout', code: 'UND_ERR_BODY_TIMEOUT' });
      expect(performance.now() - t0).toBeLessThan(1_000);
    } finally {
      await transport.close();
    }
  });

  it('a body idle time longer than the headers wait lets a slow first chunk in; the headers wait alone still ends a silent server', async () => {
    const transport = transportWith(150, 600);
    server.handler = (req, res) => {
      if (req.url === '/silent') return void setTimeout(() => json(res, 200, {}), 1_000);
      res.writeHead(200, { 'content-type': 'application/json' });
      res.flushHeaders();
      setTimeout(() => res.end('{"late":true}'), 350);
    };
    try {
      expect((await get(transport)).text).toBe('{"late":true}');
      const t0 = performance.now();
      const silent = transport.send({
        origin: new URL(server.url).origin,
        path: '/silent',
        method: 'GET',
        headers: {},
        timeoutClass: 'read',
      });
      expect(await failure(silent)).toMatchObject({ kind: 'timeout', code: 'UND_ERR_HEADERS_TIMEOUT' });
      expect(performance.now() - t0).toBeLessThan(600);
    } finally {
      await transport.close();
    }
  });
});

describe('retries only where repeating cannot cause a second effect', () => {
  it('payment: 5xx is retried with the same externalPaymentId', async () => {
    h = harness(server.url);
    let n = 0;
    server.handler = (req, res) => {
      if (req.url.endsWith('/oauth/token')) return token(res);
      n++;
      if (n < 3) return json(res, 500, { error: { code: 'INTERNAL', message: 'boom' } });
      json(res, 200, paymentResponse((req.json as { externalPaymentId: string }).externalPaymentId));
    };
    const req = paymentRequest();
    const r = await h.clients.gateway.createPayment(req);
    expect(r.kind).toBe('completed');
    const keys = server.seen
      .filter((s) => s.url === '/gateway/v2/payment')
      .map((s) => (s.json as { externalPaymentId: string }).externalPaymentId);
    expect(keys).toEqual([req.externalPaymentId, req.externalPaymentId, req.externalPaymentId]);
    // the amounts went out as the exact decimal literals
    expect(server.seen.find((s) => s.url === '/gateway/v2/payment')!.body).toContain('"total":100.10');
  });

  it('a write without an idempotency key is not retried on 5xx', async () => {
    h = harness(server.url);
    server.handler = (req, res) => {
      if (req.url.endsWith('/oauth/token')) return token(res);
      json(res, 500, { error: { code: 'INTERNAL', message: 'boom' } });
    };
    const err = await rejection(h.clients.gateway.createPerson({ firstName: 'A', lastName: 'B' }));
    expect(err).toMatchObject({ kind: 'server_error', status: 500, retryable: true });
    expect(server.paths('/gateway/person')).toHaveLength(1);
    await rejection(h.clients.gateway.createWallet({ accountAsset: 'USD', ownerId: 'o', beneficiaryId: 'b', type: 'PERSONAL' }));
    expect(server.paths('/gateway/wallets')).toHaveLength(1);
  });

  it('a write without a key is not retried after a reset (the request may have been processed)', async () => {
    h = harness(server.url);
    server.handler = (req, res) => {
      if (req.url.endsWith('/oauth/token')) return token(res);
      res.socket?.destroy();
    };
    const err = await rejection(h.clients.gateway.createPerson({ firstName: 'A', lastName: 'B' }));
    expect(err.kind).toBe('network');
    expect(server.paths('/gateway/person')).toHaveLength(1);
  });

  it('a read is retried after a reset', async () => {
    h = harness(server.url);
    let n = 0;
    server.handler = (req, res) => {
      if (req.url.endsWith('/oauth/token')) return token(res);
      if (++n === 1) return void res.socket?.destroy();
      json(res, 200, { bankCode: '001', bankName: 'Banco', countryCode: 'BR', swift: 'BRASBRRJ' });
    };
    await expect(h.clients.gateway.getBank({ bankNumber: '001', countryCode: 'BR' })).resolves.toMatchObject({ bankCode: '001' });
    expect(server.paths('/gateway/bank')).toHaveLength(2);
  });

  it('connection refused (never sent) is retried even for a write, and then surfaces as connect', async () => {
    const dead = await new LocalServer().start();
    const url = dead.url;
    await dead.stop();
    h = harness(url, { UPSTREAM_RETRY_MAX_ATTEMPTS: '2' });
    const err = await rejection(h.clients.gateway.getPayerBalance());
    expect(err).toMatchObject({ kind: 'connect', upstreamCode: 'ECONNREFUSED' });
    expect(await metricValue(h.metrics, { operation: 'token', outcome: 'connect' })).toBe(2); // the token call's own 2 attempts; the API call is not repeated on top
  });

  it('429 with Retry-After: a read waits that long and retries; a write surfaces RATE_LIMITED with the delay', async () => {
    h = harness(server.url);
    let n = 0;
    server.handler = (req, res) => {
      if (req.url.endsWith('/oauth/token')) return token(res);
      if (req.method === 'GET' && ++n > 1) return json(res, 200, { banks: [], page: 0, resultsPerPage: 10, totalResults: 0 });
      json(res, 429, { error: { code: 'RATE_LIMITED', message: 'slow down' } }, { 'retry-after': '2' });
    };
    await expect(h.clients.gateway.listBanks({ countryCode: 'BR' })).resolves.toMatchObject({ totalResults: 0 });
    expect(h.sleeps).toEqual([2000]);
    const err = await rejection(h.clients.gateway.createPerson({ firstName: 'A', lastName: 'B' }));
    expect(err).toMatchObject({ kind: 'rate_limited', retryAfterMs: 2000 });
    expect(err.toAppError().code).toBe('RATE_LIMITED');
  });
});

describe('unknown outcome', () => {
  it('a payment whose responses are all lost after sending is an UnknownOutcome carrying the key, not a failure', async () => {
    h = harness(server.url);
    server.handler = (req, res) => {
      if (req.url.endsWith('/oauth/token')) return token(res);
      res.socket?.destroy();
    };
    const req = paymentRequest();
    const r = await h.clients.gateway.createPayment(req);
    expect(r).toBeInstanceOf(UnknownOutcome);
    const u = r as UnknownOutcome;
    expect(u).toMatchObject({
      kind: 'unknown_outcome',
      operation: 'createPayment',
      idempotencyKey: req.externalPaymentId,
      reason: 'network',
      attempts: 3,
    });
    expect(server.paths('/gateway/v2/payment')).toHaveLength(3);
  });

  it('capture: timeout, then a 409 on the retry → still unknown (the first may have landed)', async () => {
    h = harness(server.url, { UPSTREAM_PAYMENT_TIMEOUT_MS: '100' });
    let n = 0;
    server.handler = (req, res) => {
      if (req.url.endsWith('/oauth/token')) return token(res);
      if (++n === 1) return; // never answers: timeout
      json(res, 409, { error: { code: 'ALREADY_CAPTURED', message: 'payment already captured' } });
    };
    const r = await h.clients.gateway.capturePayment('pay-1', { amount: '50.00' });
    expect(r).toMatchObject({ kind: 'unknown_outcome', reason: 'unresolved_after_ambiguous', idempotencyKey: 'pay-1' });
    expect((r as UnknownOutcome).lastError).toMatchObject({ status: 409, upstreamCode: 'ALREADY_CAPTURED' });
    expect(server.seen.filter((s) => s.url === '/gateway/payments/pay-1/capture').map((s) => s.body)).toEqual([
      '{"amount":50.00}',
      '{"amount":50.00}',
    ]);
  });

  it('a 503 is "not processed": retried, and exhausting on 503 alone throws instead of UnknownOutcome', async () => {
    h = harness(server.url);
    server.handler = (req, res) => {
      if (req.url.endsWith('/oauth/token')) return token(res);
      json(res, 503, { error: { code: 'UNAVAILABLE', message: 'try later' } });
    };
    const err = await rejection(h.clients.gateway.voidPayment('pay-2'));
    expect(err).toMatchObject({ kind: 'server_error', status: 503 });
    expect(server.paths('/gateway/payments/pay-2/void')).toHaveLength(3);
  });

  it('a definite refusal (4xx, no earlier ambiguity) is thrown, not unknown', async () => {
    h = harness(server.url);
    server.handler = (req, res) => {
      if (req.url.endsWith('/oauth/token')) return token(res);
      json(res, 409, { error: { code: 'ALREADY_CAPTURED', message: 'payment already captured' } });
    };
    const err = await rejection(h.clients.gateway.capturePayment('pay-3'));
    expect(err).toMatchObject({ kind: 'rejected', status: 409, upstreamCode: 'ALREADY_CAPTURED' });
    expect(server.paths('/gateway/payments/pay-3/capture')).toHaveLength(1);
  });

  it('a 2xx whose body is unreadable after a payment is unknown, not failed', async () => {
    h = harness(server.url, { UPSTREAM_RETRY_MAX_ATTEMPTS: '1' });
    server.handler = (req, res) => {
      if (req.url.endsWith('/oauth/token')) return token(res);
      json(res, 200, { paymentId: 'x' });
    };
    const r = await h.clients.gateway.createPayment(paymentRequest());
    expect(r).toMatchObject({ kind: 'unknown_outcome', reason: 'invalid_response' });
  });
});

describe('observability', () => {
  it('logs requests and responses at debug with secrets and PII redacted', async () => {
    h = harness(server.url);
    server.handler = (req, res) => {
      if (req.url.endsWith('/oauth/token')) return token(res);
      json(res, 200, paymentResponse((req.json as { externalPaymentId: string }).externalPaymentId));
    };
    const req = paymentRequest({ cardToken: '3f1c2a9e-8b7d-4c6e-9f00-123456789abc' });
    await h.clients.gateway.createPayment(req);
    const text = h.logs.text;
    expect(text).toContain('upstream request');
    expect(text).toContain('upstream response');
    for (const secret of [
      'sandbox-secret', // GATEWAY_CLIENT_SECRET default
      'tok-1', // access token (response and Authorization header)
      '3f1c2a9e-8b7d-4c6e-9f00-123456789abc', // card token
      'ana.silva@example.com',
      'joao.souza@example.com', // PIX key
      '12345678901', // document number
      '+5511999990000',
      'Silva',
    ])
      expect(text).not.toContain(secret);
    expect(text).toContain('[REDACTED]');
    // and the non-sensitive parts are still there
    expect(text).toContain(req.externalPaymentId);
  });

  it('counts and times every call by service, operation and outcome', async () => {
    h = harness(server.url);
    let n = 0;
    server.handler = (req, res) => {
      if (req.url.endsWith('/oauth/token')) return token(res);
      if (++n === 1) return json(res, 502, { error: { code: 'BAD_GATEWAY', message: 'x' } });
      json(res, 200, [{ providerId: 'p', balances: [] }]);
    };
    await h.clients.gateway.getPayerBalance();
    expect(await metricValue(h.metrics, { service: 'gateway', operation: 'token', outcome: 'success' })).toBe(1);
    expect(await metricValue(h.metrics, { service: 'gateway', operation: 'getPayerBalance', outcome: 'server_error' })).toBe(1);
    expect(await metricValue(h.metrics, { service: 'gateway', operation: 'getPayerBalance', outcome: 'success' })).toBe(1);
    const text = await h.metrics.registry.metrics();
    expect(text).toMatch(/upstream_request_duration_seconds_count\{service="gateway",operation="getPayerBalance",outcome="success"\} 1/);
  });
});
