import { dedupeKeyOf, normalizeEvent } from '../../src/modules/webhook/webhook.normalize';

const at = new Date('2026-01-01T00:00:00Z');
const tx = { transactionId: '11111111-1111-4111-8111-111111111111', externalTransactionId: 'ext-1', tenantId: 'sandbox-tenant' };

describe('event normalisation', () => {
  it('event names match case-insensitively (current, legacy lowercase, any case)', () => {
    for (const name of ['TransactionStatusChanged', 'transactionstatuschanged', 'TRANSACTIONSTATUSCHANGED']) {
      const n = normalizeEvent({ event: name, ...tx, oldStatus: null, newStatus: 'created', newStatusMessages: ['m'] }, at);
      expect(n).toMatchObject({
        kind: 'transaction',
        generation: 'current',
        streamKey: `tx:${tx.transactionId}`,
        events: [{ ...tx, occurredAt: at, messages: ['m'], change: { type: 'status', oldStatus: null, newStatus: 'Created' } }],
      });
    }
    for (const name of ['DocumentUpdatedEvents', 'documentUpdatedEvents'])
      expect(
        normalizeEvent(
          {
            event: name,
            id: 'd1',
            entityId: 'p1',
            entityType: 'Participant',
            documentType: 'driver_license',
            verificationStatus: 'verified',
            occurredAt: '2026-01-02T00:00:00Z',
          },
          at,
        ),
      ).toMatchObject({
        kind: 'document',
        streamKey: 'doc:d1',
        document: { documentType: 'DRIVERS_LICENSE', verificationStatus: 'VERIFIED', occurredAt: new Date('2026-01-02T00:00:00Z') },
      });
    for (const name of ['AgentUpdatedEvents', 'agentUpdatedEvents'])
      expect(
        normalizeEvent(
          {
            event: name,
            id: 'a1',
            before: null,
            after: {
              id: 'a1',
              email: 'e@x',
              businessName: 'B',
              externalId: null,
              status: 'PENDING_APPROVAL',
              createdAt: '2026-01-01T00:00:00Z',
            },
            version: 1,
          },
          at,
        ),
      ).toMatchObject({
        kind: 'agent',
        agent: { id: 'a1', status: 'PENDING_APPROVAL', created: true, businessName: 'B' },
      });
  });

  it('compliance and payout events (decimal amount, never a float)', () => {
    expect(
      normalizeEvent(
        {
          event: 'TransactionComplianceStatusChangedEvent',
          ...tx,
          oldComplianceStatus: 'Pending',
          newComplianceStatus: 'APPROVED',
          newStatusMessages: [],
        },
        at,
      ),
    ).toMatchObject({
      events: [{ change: { type: 'compliance', oldStatus: 'Pending', newStatus: 'Approved' } }],
    });
    expect(
      normalizeEvent(
        {
          event: 'TransactionPayoutStatusChanged',
          ...tx,
          oldPayoutStatus: 'authorized',
          newPayoutStatus: 'captured',
          gatewayPaymentId: 'g1',
          gmtReceipt: null,
          amount: { total: 100.1, currency: 'USD' },
          newStatusMessages: [],
        },
        at,
      ),
    ).toMatchObject({
      events: [
        {
          change: {
            type: 'payout',
            oldStatus: 'AUTHORIZED',
            newStatus: 'CAPTURED',
            gatewayPaymentId: 'g1',
            amount: { total: '100.1', currency: 'USD' },
          },
        },
      ],
    });
  });

  it('the earlier payload generation maps to the same changes', () => {
    const earlier = {
      transactionId: tx.transactionId,
      tenantId: 'sandbox-tenant',
      externalId: 'ext-1',
      timestamp: '2026-01-03T00:00:00Z',
      messages: [{ message: 'hello', createdBy: 'x', type: 'info' }],
    };
    expect(normalizeEvent({ event: 'TransactionComplianceStatusChanged', ...earlier, complianceStatus: 'Hold' }, at)).toMatchObject({
      kind: 'transaction',
      generation: 'earlier',
      events: [
        {
          externalTransactionId: 'ext-1',
          occurredAt: new Date('2026-01-03T00:00:00Z'),
          messages: ['hello'],
          change: { type: 'compliance', newStatus: 'Pending' },
        },
      ],
    });
    expect(
      normalizeEvent({ event: 'TransactionStatusChanged', ...earlier, complianceStatus: 'Approved', payoutStatus: 'Paid' }, at),
    ).toMatchObject({
      events: [{ change: { type: 'compliance', newStatus: 'Approved' } }, { change: { type: 'status', newStatus: 'Paid' } }],
    });
    expect(normalizeEvent({ event: 'TransactionStatusChanged', ...earlier, payoutStatus: 'Pending' }, at)).toMatchObject({
      events: [{ change: { type: 'payout', newStatus: 'PENDING' } }],
    });
    expect(normalizeEvent({ event: 'TransactionStatusChanged', ...earlier, payoutStatus: 'Cancelled' }, at)).toMatchObject({
      events: [{ change: { type: 'status', newStatus: 'Cancelled' } }],
    });
    expect(normalizeEvent({ event: 'agentStatusChangedEvent', id: 'a1', status: 'active', tenantId: 't' }, at)).toMatchObject({
      kind: 'agent',
      agent: { id: 'a1', status: 'ACTIVE', created: false },
    });
  });

  it('unknown names are "unknown"; known names without their fields are "invalid"; unknown statuses pass through', () => {
    expect(normalizeEvent({ event: 'SomethingNew', x: 1 }, at).kind).toBe('unknown');
    expect(normalizeEvent([1, 2], at).kind).toBe('unknown');
    expect(normalizeEvent({ event: 'TransactionStatusChanged' }, at).kind).toBe('invalid');
    expect(normalizeEvent({ event: 'DocumentUpdatedEvents', id: 'd' }, at).kind).toBe('invalid');
    expect(normalizeEvent({ event: 'TransactionStatusChanged', ...tx, newStatus: 'Teleported' }, at)).toMatchObject({
      events: [{ change: { type: 'status', newStatus: 'Teleported' } }],
    });
  });

  it('dedupe key: same event whatever the key order, whitespace or name spelling; different events differ', () => {
    const a = { event: 'DocumentUpdatedEvents', id: 'd1', verificationStatus: 'VERIFIED', occurredAt: '2026-01-01T00:00:00Z' };
    const b = { occurredAt: '2026-01-01T00:00:00Z', verificationStatus: 'VERIFIED', id: 'd1', event: 'documentUpdatedEvents' };
    expect(dedupeKeyOf(a.event, a)).toBe(dedupeKeyOf(b.event, b));
    expect(dedupeKeyOf(a.event, a)).not.toBe(dedupeKeyOf(a.event, { ...a, occurredAt: '2026-01-01T00:00:01Z' }));
    expect(dedupeKeyOf('TransactionStatusChanged', { ...tx, newStatus: 'Paid' })).not.toBe(
      dedupeKeyOf('TransactionPayoutStatusChanged', { ...tx, newStatus: 'Paid' }),
    );
  });
});
