import { createHmac } from 'node:crypto';
import type { PaymentFacts } from '@remittance-bff/sandbox';
import {
  agentHeaders,
  ALL_EVENTS,
  call,
  type Harness,
  Receiver,
  sleep,
  startHarness,
  subscribe,
  TENANT,
  tenantHeaders,
  waitFor,
} from './remittances.harness';

let h: Harness;
let base: string;
let rx: Receiver;
const R = '/remittances';
const hooks = `${R}/organizations/${TENANT}/webhooks`;

beforeAll(async () => {
  h = await startHarness({ options: { lifecycleStepMs: 5, webhookRetryDelaysMs: [30, 30] } });
  base = h.url;
});
afterAll(async () => h.close());
beforeEach(async () => {
  h.ctx.reset();
  rx = await new Receiver().start();
});
afterEach(async () => rx.close());

const createAgent = (n = 1) =>
  call(base, 'POST', `${R}/agents`, { headers: tenantHeaders(), json: { email: `a${n}@example.com`, businessName: `Agent ${n}` } });

/** Independent check of X-Service-Signature: t=<digits>,v1=<hex HMAC-SHA256(secret, t.body)>. */
function verifySignature(header: string, raw: string, secret: string): number {
  const m = /^t=(\d+),v1=([0-9a-f]{64})$/.exec(header);
  if (!m) throw new Error(`bad signature header ${header}`);
  const expected = createHmac('sha256', secret).update(`${m[1]}.${raw}`).digest('hex');
  expect(m[2]).toBe(expected);
  return Number(m[1]);
}

describe('signatures', () => {
  it('unsigned without a secret; signed (verified independently) with one; rotation switches at once; delete → unsigned', async () => {
    const id = await subscribe(base, rx.url, ['AgentUpdatedEvents']);
    await createAgent(1);
    await waitFor(() => rx.received.length === 1);
    expect(rx.received[0].headers['x-service-signature']).toBeUndefined();
    expect(rx.received[0].headers['content-type']).toBe('application/json');

    const s1 = (await call(base, 'POST', `${hooks}/${id}/secret`, { headers: agentHeaders() })).body.signingSecret;
    h.ctx.advanceClock(1000);
    await createAgent(2);
    await waitFor(() => rx.received.length === 2);
    const t = verifySignature(rx.received[1].headers['x-service-signature'] as string, rx.received[1].raw, s1);
    // signed with the real time, not the sandbox clock moved 1000 s ahead: a receiver's ±300 s window still accepts it
    expect(Math.abs(t - Math.floor(Date.now() / 1000))).toBeLessThanOrEqual(2);
    expect(Math.floor(h.ctx.nowMs() / 1000) - t).toBeGreaterThanOrEqual(998);

    const s2 = (await call(base, 'POST', `${hooks}/${id}/secret`, { headers: agentHeaders() })).body.signingSecret;
    await createAgent(3);
    await waitFor(() => rx.received.length === 3);
    verifySignature(rx.received[2].headers['x-service-signature'] as string, rx.received[2].raw, s2);
    expect(() => verifySignature(rx.received[2].headers['x-service-signature'] as string, rx.received[2].raw, s1)).toThrow();

    expect((await call(base, 'DELETE', `${hooks}/${id}/secret`, { headers: agentHeaders() })).status).toBe(204);
    await createAgent(4);
    await waitFor(() => rx.received.length === 4);
    expect(rx.received[3].headers['x-service-signature']).toBeUndefined();
  });
});

describe('matching', () => {
  it('matches case-insensitively and echoes the registered spelling; other subscriptions get nothing', async () => {
    const other = await new Receiver().start();
    try {
      await subscribe(base, rx.url, ['AGENTUPDATEDEVENTS']);
      await subscribe(base, other.url, ['DocumentUpdatedEvents']);
      await createAgent();
      await waitFor(() => rx.received.length === 1);
      await sleep(50);
      expect(rx.received[0].json.event).toBe('AGENTUPDATEDEVENTS');
      expect(other.received).toHaveLength(0);
    } finally {
      await other.close();
    }
  });

  it('a deleted subscription receives nothing more', async () => {
    const id = await subscribe(base, rx.url, ['AgentUpdatedEvents']);
    await call(base, 'DELETE', `${hooks}/${id}`, { headers: tenantHeaders() });
    await createAgent();
    await sleep(50);
    expect(rx.received).toHaveLength(0);
  });
});

describe('retries', () => {
  it('500, 500, then 200 → 3 deliveries of the same body, recorded in GET /__sandbox/webhooks', async () => {
    rx.respond = (_r, i) => (i < 2 ? 500 : 200);
    const id = await subscribe(base, rx.url, ['AgentUpdatedEvents']);
    await call(base, 'POST', `${hooks}/${id}/secret`, { headers: agentHeaders() });
    await createAgent();
    await waitFor(() => rx.received.length === 3);
    await sleep(100);
    expect(rx.received).toHaveLength(3);
    expect(new Set(rx.received.map((r) => r.raw)).size).toBe(1);
    const control = await call(base, 'GET', '/__sandbox/webhooks');
    const sub = control.body.webhooks.find((w: { id: string }) => w.id === id);
    expect(sub.signingSecret).toHaveLength(44);
    expect(sub.deliveries.map((d: any) => [d.event, d.attempt, d.status, d.outcome])).toEqual([
      ['AgentUpdatedEvents', 1, 500, 'failed'],
      ['AgentUpdatedEvents', 2, 500, 'failed'],
      ['AgentUpdatedEvents', 3, 200, 'delivered'],
    ]);
    for (const d of sub.deliveries) expect(Date.parse(d.at)).not.toBeNaN();
  });

  it('an unreachable receiver is retried per the schedule, then given up', async () => {
    const url = rx.url;
    await rx.close();
    const id = await subscribe(base, url, ['AgentUpdatedEvents']);
    await createAgent();
    const final = await (async () => {
      const deadline = Date.now() + 3000;
      for (;;) {
        const c = await call(base, 'GET', '/__sandbox/webhooks');
        const d = c.body.webhooks.find((w: { id: string }) => w.id === id).deliveries;
        if (d.length === 3 || Date.now() > deadline) return d;
        await sleep(20);
      }
    })();
    expect(final.map((d: any) => [d.attempt, d.status, d.outcome, d.willRetry])).toEqual([
      [1, null, 'unreachable', true],
      [2, null, 'unreachable', true],
      [3, null, 'unreachable', false],
    ]);
    rx = await new Receiver().start(); // for afterEach
  });

  it('reset stops pending retries', async () => {
    rx.respond = () => 500;
    await subscribe(base, rx.url, ['AgentUpdatedEvents']);
    await createAgent();
    await waitFor(() => rx.received.length === 1);
    h.ctx.reset();
    await sleep(120);
    expect(rx.received).toHaveLength(1);
  });
});

describe('faults (seeded, reproducible)', () => {
  const facts = (n: number): PaymentFacts => ({
    paymentId: `pay-${n}`,
    externalPaymentId: `ext-${n}`,
    amount: { total: 100.1, currency: 'USD' },
    recipientAmount: { total: 500.5, currency: 'BRL' },
    senderLastName: 'Doe',
    recipientLastName: 'Silva',
  });

  async function runOnce(faults: Record<string, unknown>): Promise<string[]> {
    h.ctx.reset();
    rx.received.length = 0;
    h.ctx.setFaults(faults);
    await subscribe(base, rx.url, ALL_EVENTS);
    h.ctx.bus.emit('payment.authorized', facts(1));
    await waitFor(() => rx.events('TransactionStatusChanged').some((e) => e.newStatus === 'ReviewApproved'));
    h.ctx.bus.emit('payment.captured', { ...facts(1), capturedAmount: 100.1 });
    await waitFor(() => rx.events('TransactionStatusChanged').some((e) => e.newStatus === 'Completed'));
    await sleep(60);
    return rx.received.map((r) => `${r.json.event}:${r.json.newStatus ?? r.json.newComplianceStatus ?? r.json.newPayoutStatus}`);
  }

  it('duplicates and shuffle are reproducible with the same seed, and differ from the natural order', async () => {
    const natural = await runOnce({});
    expect(natural).toHaveLength(15);
    const a = await runOnce({ seed: 42, webhookDuplicateRate: 0.3, webhookShuffle: true });
    const b = await runOnce({ seed: 42, webhookDuplicateRate: 0.3, webhookShuffle: true });
    expect(a).toEqual(b);
    expect(a.length).toBeGreaterThan(natural.length); // some duplicates
    expect(new Set(a)).toEqual(new Set(natural)); // same events
    expect(a.filter((x) => !natural.includes(x))).toEqual([]);
    const dedupedInOrder = a.filter((x, i) => a.indexOf(x) === i);
    expect(dedupedInOrder).not.toEqual(natural); // shuffled
    // the shuffle stays within a pause: everything before the capture arrives before the capture's events
    expect(a.indexOf('TransactionStatusChanged:Completed')).toBeGreaterThan(a.indexOf('TransactionStatusChanged:Created'));
    const c = await runOnce({ seed: 43, webhookDuplicateRate: 0.3, webhookShuffle: true });
    expect(c).not.toEqual(a);
  });

  it('webhookDelayMs delays deliveries', async () => {
    h.ctx.setFaults({ webhookDelayMs: 150, seed: 3 });
    await subscribe(base, rx.url, ['AgentUpdatedEvents']);
    const started = Date.now();
    await createAgent();
    await waitFor(() => rx.received.length === 1);
    expect(rx.received[0].at - started).toBeGreaterThanOrEqual(70);
  });
});
