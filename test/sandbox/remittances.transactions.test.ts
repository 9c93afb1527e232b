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
const fx = `${R}/organizations/${TENANT}/fx/transactions`;
let n = 0;

beforeAll(async () => {
  h = await startHarness({ options: { lifecycleStepMs: 5 } });
  base = h.url;
});
afterAll(async () => h.close());
beforeEach(async () => {
  h.ctx.reset();
  rx = await new Receiver().start();
  await subscribe(base, rx.url, ALL_EVENTS);
});
afterEach(async () => rx.close());

function facts(senderLastName = 'Doe', recipientLastName = 'Silva'): PaymentFacts {
  n++;
  return {
    paymentId: `gw-pay-${n}`,
    externalPaymentId: `ext-${n}-${Date.now()}`,
    amount: { total: 100.1, currency: 'USD' },
    recipientAmount: { total: 501.23, currency: 'BRL' },
    senderLastName,
    recipientLastName,
  };
}

const statuses = (ext: string) =>
  rx
    .events('TransactionStatusChanged')
    .filter((e) => e.externalTransactionId === ext)
    .map((e) => [e.oldStatus, e.newStatus]);
const compliance = (ext: string) =>
  rx
    .events('TransactionComplianceStatusChangedEvent')
    .filter((e) => e.externalTransactionId === ext)
    .map((e) => [e.oldComplianceStatus, e.newComplianceStatus]);
const payouts = (ext: string) => rx.events('TransactionPayoutStatusChanged').filter((e) => e.externalTransactionId === ext);
const reached = (ext: string, status: string) => () => statuses(ext).some(([, s]) => s === status);

describe('transaction lifecycle', () => {
  it('happy path: authorized → waits for capture → completed, with the documented payloads', async () => {
    const f = facts();
    h.ctx.bus.emit('payment.authorized', f);
    await waitFor(reached(f.externalPaymentId, 'ReviewApproved'));
    await sleep(60);
    expect(statuses(f.externalPaymentId).map(([, s]) => s)).not.toContain('PaymentCaptured'); // waits for capture
    h.ctx.bus.emit('payment.captured', { ...f, capturedAmount: 90.5 });
    await waitFor(reached(f.externalPaymentId, 'Completed'));
    await sleep(30);

    expect(statuses(f.externalPaymentId)).toEqual([
      [null, 'Created'],
      ['Created', 'PaymentProcessing'],
      ['PaymentProcessing', 'PaymentAuthorized'],
      ['PaymentAuthorized', 'ProcessingPayout'],
      ['ProcessingPayout', 'PayoutAccepted'],
      ['PayoutAccepted', 'ReviewApproved'],
      ['ReviewApproved', 'PaymentCaptured'],
      ['PaymentCaptured', 'WaitingPayout'],
      ['WaitingPayout', 'Paid'],
      ['Paid', 'Completed'],
    ]);
    expect(compliance(f.externalPaymentId)).toEqual([
      [null, 'Pending'],
      ['Pending', 'Approved'],
    ]);
    const p = payouts(f.externalPaymentId);
    expect(p.map((e) => [e.oldPayoutStatus, e.newPayoutStatus])).toEqual([
      [null, 'AUTHORIZED'],
      ['AUTHORIZED', 'PENDING'],
      ['PENDING', 'CAPTURED'],
    ]);
    expect(p[2]).toEqual({
      event: 'TransactionPayoutStatusChanged',
      transactionId: expect.stringMatching(/^[0-9a-f-]{36}$/),
      externalTransactionId: f.externalPaymentId,
      tenantId: TENANT,
      oldPayoutStatus: 'PENDING',
      newPayoutStatus: 'CAPTURED',
      gatewayPaymentId: f.paymentId,
      gmtReceipt: null,
      amount: { total: 90.5, currency: 'USD' },
      newStatusMessages: expect.any(Array),
    });
    const first = rx.events('TransactionStatusChanged')[0];
    expect(first).toEqual({
      event: 'TransactionStatusChanged',
      transactionId: p[0].transactionId,
      externalTransactionId: f.externalPaymentId,
      tenantId: TENANT,
      oldStatus: null,
      newStatus: 'Created',
      newStatusMessages: expect.any(Array),
    });
    expect(rx.events('TransactionComplianceStatusChangedEvent')[1]).toEqual({
      event: 'TransactionComplianceStatusChangedEvent',
      transactionId: p[0].transactionId,
      externalTransactionId: f.externalPaymentId,
      tenantId: TENANT,
      oldComplianceStatus: 'Pending',
      newComplianceStatus: 'Approved',
      newStatusMessages: expect.any(Array),
    });

    // the same story through the agent API
    const tx = await call(base, 'GET', `${fx}/${f.externalPaymentId}`, { headers: agentHeaders() });
    expect(tx.status).toBe(200);
    expect(tx.body).toMatchObject({
      transactionId: p[0].transactionId,
      externalTransactionId: f.externalPaymentId,
      status: 'Completed',
      complianceStatus: 'Approved',
      payoutStatus: 'CAPTURED',
      gatewayPaymentId: f.paymentId,
    });
    const history = await call(base, 'GET', `${fx}/${p[0].transactionId}/statusHistory`, { headers: agentHeaders() });
    expect(history.body.history.map((e: any) => [e.oldStatus, e.newStatus])).toEqual(statuses(f.externalPaymentId));
  });

  it('a capture that arrives early is applied after the approval', async () => {
    const f = facts();
    h.ctx.bus.emit('payment.authorized', f);
    h.ctx.bus.emit('payment.captured', { ...f, capturedAmount: 100.1 });
    await waitFor(reached(f.externalPaymentId, 'Completed'));
    expect(statuses(f.externalPaymentId)).toHaveLength(10);
  });

  it('Compliance-Reject: compliance Rejected, then the void → Voided / payout VOIDED', async () => {
    const f = facts('Compliance-Reject');
    h.ctx.bus.emit('payment.authorized', f);
    await waitFor(reached(f.externalPaymentId, 'ReviewRejected'));
    expect(compliance(f.externalPaymentId)).toEqual([
      [null, 'Pending'],
      ['Pending', 'Rejected'],
    ]);
    h.ctx.bus.emit('payment.voided', f);
    await waitFor(reached(f.externalPaymentId, 'Voided'));
    await sleep(30);
    expect(statuses(f.externalPaymentId).slice(-2)).toEqual([
      ['PayoutAccepted', 'ReviewRejected'],
      ['ReviewRejected', 'Voided'],
    ]);
    expect(payouts(f.externalPaymentId).map((e) => e.newPayoutStatus)).toEqual(['AUTHORIZED', 'PENDING', 'VOIDED']);
    expect(compliance(f.externalPaymentId)).toHaveLength(2); // no change, no event
  });

  it('Compliance-Review: held in ManualReview until the control API decides', async () => {
    const f = facts('Compliance-Review');
    h.ctx.bus.emit('payment.authorized', f);
    await waitFor(reached(f.externalPaymentId, 'ManualReview'));
    h.ctx.bus.emit('payment.captured', { ...f, capturedAmount: 100.1 });
    await sleep(60);
    expect(statuses(f.externalPaymentId).at(-1)).toEqual(['PayoutAccepted', 'ManualReview']);
    expect(compliance(f.externalPaymentId)).toEqual([[null, 'Pending']]);

    const bad = await call(base, 'POST', `/__sandbox/transactions/${f.externalPaymentId}/compliance`, { json: { decision: 'Maybe' } });
    expect(bad.status).toBe(400);
    expect((await call(base, 'POST', `/__sandbox/transactions/nope/compliance`, { json: { decision: 'Approved' } })).status).toBe(404);
    const ok = await call(base, 'POST', `/__sandbox/transactions/${f.externalPaymentId}/compliance`, { json: { decision: 'Approved' } });
    expect(ok.status).toBe(200);
    expect(ok.body).toMatchObject({ externalTransactionId: f.externalPaymentId, decision: 'Approved' });
    await waitFor(reached(f.externalPaymentId, 'Completed'));
    expect(compliance(f.externalPaymentId)).toEqual([
      [null, 'Pending'],
      ['Pending', 'Approved'],
    ]);
    expect(statuses(f.externalPaymentId).map(([, s]) => s)).toContain('ReviewApproved');
    const again = await call(base, 'POST', `/__sandbox/transactions/${f.externalPaymentId}/compliance`, { json: { decision: 'Rejected' } });
    expect(again.status).toBe(409);
  });

  it('Compliance-Review rejected by the control API', async () => {
    const f = facts('Compliance-Review');
    h.ctx.bus.emit('payment.authorized', f);
    await waitFor(reached(f.externalPaymentId, 'ManualReview'));
    await call(base, 'POST', `/__sandbox/transactions/${f.externalPaymentId}/compliance`, { json: { decision: 'Rejected' } });
    await waitFor(reached(f.externalPaymentId, 'ReviewRejected'));
    expect(compliance(f.externalPaymentId).at(-1)).toEqual(['Pending', 'Rejected']);
  });

  it('declined → PaymentDeclined with payout DECLINED', async () => {
    const f = facts();
    h.ctx.bus.emit('payment.declined', f);
    await waitFor(reached(f.externalPaymentId, 'PaymentDeclined'));
    await sleep(20);
    expect(statuses(f.externalPaymentId)).toEqual([
      [null, 'Created'],
      ['Created', 'PaymentProcessing'],
      ['PaymentProcessing', 'PaymentDeclined'],
    ]);
    expect(payouts(f.externalPaymentId).map((e) => [e.oldPayoutStatus, e.newPayoutStatus])).toEqual([[null, 'DECLINED']]);
  });

  it('auto-cancel after 7 days → Cancelled; void before capture → Voided', async () => {
    const a = facts();
    const b = facts();
    h.ctx.bus.emit('payment.authorized', a);
    h.ctx.bus.emit('payment.authorized', b);
    await waitFor(reached(a.externalPaymentId, 'ReviewApproved'));
    await waitFor(reached(b.externalPaymentId, 'ReviewApproved'));
    h.ctx.bus.emit('payment.cancelled', a);
    h.ctx.bus.emit('payment.voided', b);
    await waitFor(reached(a.externalPaymentId, 'Cancelled'));
    await waitFor(reached(b.externalPaymentId, 'Voided'));
    // The payout event is a delivery of its own: it may land just after the status one.
    await waitFor(() => payouts(b.externalPaymentId).at(-1)?.newPayoutStatus === 'VOIDED');
    expect(payouts(b.externalPaymentId).at(-1).newPayoutStatus).toBe('VOIDED');
  });

  it('Payout-Reject recipient: captured, then PayoutRejected with payout DECLINED, never Paid', async () => {
    const f = facts('Doe', 'Payout-Reject');
    h.ctx.bus.emit('payment.authorized', f);
    h.ctx.bus.emit('payment.captured', { ...f, capturedAmount: 100.1 });
    await waitFor(reached(f.externalPaymentId, 'PayoutRejected'));
    await sleep(30);
    expect(statuses(f.externalPaymentId).slice(-3)).toEqual([
      ['ReviewApproved', 'PaymentCaptured'],
      ['PaymentCaptured', 'WaitingPayout'],
      ['WaitingPayout', 'PayoutRejected'],
    ]);
    expect(payouts(f.externalPaymentId).map((e) => e.newPayoutStatus)).toEqual(['AUTHORIZED', 'PENDING', 'CAPTURED', 'DECLINED']);
    expect(statuses(f.externalPaymentId).some(([, st]) => st === 'Paid')).toBe(false);
  });

  it('cancel of a captured transaction before Paid: CancelRequested → Cancelled, payout VOIDED, no Paid; once paid: 409', async () => {
    // a slow lifecycle, so the cancel lands between the capture and the payout
    h.ctx.options.lifecycleStepMs = 40;
    try {
      const f = facts();
      h.ctx.bus.emit('payment.authorized', f);
      h.ctx.bus.emit('payment.captured', { ...f, capturedAmount: 100.1 });
      await waitFor(reached(f.externalPaymentId, 'PaymentCaptured'));
      const cancelled = await call(base, 'POST', `${fx}/${f.externalPaymentId}/cancel`, { headers: agentHeaders() });
      expect(cancelled.status).toBe(200);
      expect(cancelled.body.status).toBe('CancelRequested');
      await waitFor(reached(f.externalPaymentId, 'Cancelled'));
      await sleep(200);
      expect(statuses(f.externalPaymentId).some(([, st]) => st === 'Paid' || st === 'Completed')).toBe(false);
      expect(payouts(f.externalPaymentId).at(-1).newPayoutStatus).toBe('VOIDED');
      const twice = await call(base, 'POST', `${fx}/${f.externalPaymentId}/cancel`, { headers: agentHeaders() });
      expect(twice.status).toBe(409);

      const paid = facts();
      h.ctx.bus.emit('payment.authorized', paid);
      h.ctx.bus.emit('payment.captured', { ...paid, capturedAmount: 100.1 });
      await waitFor(reached(paid.externalPaymentId, 'Paid'));
      expect((await call(base, 'POST', `${fx}/${paid.externalPaymentId}/cancel`, { headers: agentHeaders() })).status).toBe(409);
    } finally {
      h.ctx.options.lifecycleStepMs = 5;
    }
  });

  it('reset stops a running lifecycle', async () => {
    const f = facts();
    h.ctx.bus.emit('payment.authorized', f);
    await waitFor(reached(f.externalPaymentId, 'Created'));
    h.ctx.reset();
    await sleep(20); // a delivery already on the wire may still land
    const count = rx.received.length;
    await sleep(60);
    expect(rx.received.length).toBe(count);
  });
});

describe('fx/transactions API (agent auth)', () => {
  it('needs agent credentials', async () => {
    expect((await call(base, 'GET', fx, { headers: tenantHeaders() })).status).toBe(403);
  });

  it('create, get, list, metadata, cancel, limits', async () => {
    const created = await call(base, 'POST', fx, {
      headers: agentHeaders(),
      json: { externalTransactionId: 'api-1', amount: { total: 25, currency: 'USD' }, metadata: { a: 1 } },
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      externalTransactionId: 'api-1',
      status: 'Created',
      complianceStatus: 'Pending',
      metadata: { a: 1 },
    });
    const id = created.body.transactionId;
    expect((await call(base, 'POST', fx, { headers: agentHeaders(), json: { externalTransactionId: 'api-1' } })).status).toBe(409);
    expect((await call(base, 'GET', `${fx}/${id}`, { headers: agentHeaders() })).body.transactionId).toBe(id);
    const list = await call(base, 'GET', `${fx}?externalTransactionId=api-1`, { headers: agentHeaders() });
    expect(list.body).toMatchObject({ total: 1, transactions: [{ transactionId: id }] });
    await call(base, 'PATCH', `${fx}/${id}/metadata`, { headers: agentHeaders(), json: { b: 2 } });
    expect((await call(base, 'GET', `${fx}/${id}/metadata`, { headers: agentHeaders() })).body).toEqual({ metadata: { a: 1, b: 2 } });
    await call(base, 'PUT', `${fx}/${id}/metadata`, { headers: agentHeaders(), json: { c: 3 } });
    expect((await call(base, 'GET', `${fx}/${id}/metadata`, { headers: agentHeaders() })).body).toEqual({ metadata: { c: 3 } });
    const cancelled = await call(base, 'POST', `${fx}/${id}/cancel`, { headers: agentHeaders() });
    expect(cancelled.status).toBe(200);
    expect(cancelled.body.status).toBe('CancelRequested');
    await waitFor(reached('api-1', 'Cancelled'));
    expect((await call(base, 'POST', `${fx}/${id}/cancel`, { headers: agentHeaders() })).status).toBe(409);
    const history = await call(base, 'GET', `${fx}/${id}/statusHistory`, { headers: agentHeaders() });
    expect(history.body.history.map((e: any) => e.newStatus)).toEqual(['Created', 'CancelRequested', 'Cancelled']);
    const limits = await call(base, 'GET', `${fx}/limits`, { headers: agentHeaders() });
    expect(limits.body.perTransaction).toEqual({ min: '1.00', max: '2999.00' });
    expect((await call(base, 'GET', `${fx}/nope`, { headers: agentHeaders() })).status).toBe(404);
  });
});

describe('people, documents and the rest', () => {
  it('people CRUD and compliance levels (tenant auth)', async () => {
    const p = await call(base, 'POST', `${R}/people`, { headers: tenantHeaders(), json: { firstName: 'Ana', lastName: 'Silva' } });
    expect(p.status).toBe(201);
    expect(p.body).toMatchObject({ id: expect.any(String), type: 'INDIVIDUAL', firstName: 'Ana', lastName: 'Silva', status: 'ACTIVE' });
    expect((await call(base, 'POST', `${R}/people`, { headers: tenantHeaders(), json: { firstName: 'A' } })).status).toBe(400);
    const patched = await call(base, 'PATCH', `${R}/people/${p.body.id}`, { headers: tenantHeaders(), json: { email: 'ana@example.com' } });
    expect(patched.body.email).toBe('ana@example.com');
    const got = await call(base, 'GET', `${R}/organizations/${TENANT}/people/${p.body.id}`, { headers: tenantHeaders() });
    expect(got.body.email).toBe('ana@example.com');
    expect((await call(base, 'GET', `${R}/organizations/other/people/${p.body.id}`, { headers: tenantHeaders() })).status).toBe(404);
    const levels = await call(base, 'GET', `${R}/participants/${p.body.id}/complianceLevels`, { headers: tenantHeaders() });
    expect(levels.body).toMatchObject({ participantId: p.body.id, currentLevel: 1 });
  });

  it('documents emit DocumentUpdatedEvents PENDING then VERIFIED (REJECTED for lastName Rejected)', async () => {
    for (const [lastName, decision] of [
      ['Silva', 'VERIFIED'],
      ['Rejected', 'REJECTED'],
    ]) {
      const p = await call(base, 'POST', `${R}/people`, { headers: tenantHeaders(), json: { firstName: 'A', lastName } });
      const d = await call(base, 'POST', `${R}/people/${p.body.id}/documents`, {
        headers: tenantHeaders(),
        json: { documentType: 'PASSPORT' },
      });
      expect(d.status).toBe(201);
      expect(d.body).toMatchObject({
        entityId: p.body.id,
        entityType: 'Participant',
        documentType: 'PASSPORT',
        verificationStatus: 'PENDING',
      });
      const events = await waitFor(() => {
        const e = rx.events('DocumentUpdatedEvents').filter((x) => x.id === d.body.id);
        return e.length === 2 ? e : null;
      });
      expect(events.map((e) => e.verificationStatus)).toEqual(['PENDING', decision]);
      expect(events[1]).toEqual({
        event: 'DocumentUpdatedEvents',
        id: d.body.id,
        entityId: p.body.id,
        entityType: 'Participant',
        documentType: 'PASSPORT',
        verificationStatus: decision,
        occurredAt: expect.any(String),
        tenantId: TENANT,
        version: 1,
      });
    }
    const p = await call(base, 'POST', `${R}/people`, { headers: tenantHeaders(), json: { firstName: 'A', lastName: 'B' } });
    const byPath = await call(base, 'POST', `${R}/people/${p.body.id}/documents/DRIVERS_LICENSE`, { headers: tenantHeaders(), json: {} });
    expect(byPath.body.documentType).toBe('DRIVERS_LICENSE');
  });

  it('quotes, accounts, reference data, wallets (agent auth) and address check (tenant auth)', async () => {
    expect((await call(base, 'POST', `${R}/payout/quotes`, { headers: tenantHeaders(), json: {} })).status).toBe(403);
    const q = await call(base, 'POST', `${R}/payout/quotes`, {
      headers: agentHeaders(),
      json: { sourceCurrency: 'USD', destinationCurrency: 'BRL', sourceAmount: '102.99' },
    });
    expect(q.status).toBe(201);
    expect(q.body).toMatchObject({ sourceAmount: '102.99', destinationAmount: '501.23', rate: '5.0123', fee: '2.99' });
    const unsupported = await call(base, 'POST', `${R}/payout/quotes`, {
      headers: agentHeaders(),
      json: { sourceCurrency: 'USD', destinationCurrency: 'XXX', sourceAmount: '1' },
    });
    expect(unsupported.body.code).toBe('UNSUPPORTED_CORRIDOR');
    const p = await call(base, 'POST', `${R}/people`, { headers: tenantHeaders(), json: { firstName: 'A', lastName: 'B' } });
    const fa = await call(base, 'POST', `${R}/payout/participants/${p.body.id}/fundingAccounts`, {
      headers: agentHeaders(),
      json: { type: 'CARD', cardTokenId: '11111111-1111-4111-8111-111111111111' },
    });
    expect(fa.status).toBe(201);
    expect(fa.body).toMatchObject({ participantId: p.body.id, type: 'CARD', status: 'ACTIVE', last4: '1111' });
    const ra = await call(base, 'POST', `${R}/payout/participants/${p.body.id}/recipientAccounts/gateway`, {
      headers: agentHeaders(),
      json: { bankCode: '001' },
    });
    expect(ra.status).toBe(201);
    expect((await call(base, 'GET', `${R}/payout/destinations`, { headers: agentHeaders() })).body.destinations.length).toBeGreaterThan(0);
    expect((await call(base, 'GET', `${R}/payout/destinations/BR/banks`, { headers: agentHeaders() })).body.banks.length).toBeGreaterThan(
      0,
    );
    expect((await call(base, 'GET', `${R}/payout/schemas/recipient`, { headers: agentHeaders() })).body.fields.length).toBeGreaterThan(0);
    const wallets = `${R}/organizations/${TENANT}/wallets`;
    expect((await call(base, 'GET', wallets, { headers: agentHeaders() })).body.wallets).toEqual([
      { currency: 'USD', available: '10000.00', pending: '0.00' },
    ]);
    const dep = await call(base, 'POST', `${wallets}/USD/deposits`, { headers: agentHeaders(), json: { amount: '0.10' } });
    expect(dep.body.available).toBe('10000.10');
    const addr = await call(base, 'GET', `${R}/addresses/check?line1=1%20Main%20St&city=Miami&state=fl&country=us`, {
      headers: tenantHeaders(),
    });
    expect(addr.body).toMatchObject({ valid: true, normalized: { state: 'FL', country: 'US' } });
  });
});
