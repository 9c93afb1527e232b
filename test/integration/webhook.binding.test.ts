/**
 * Every platform event is checked against what the service already knows before it has an effect: our tenant
 * (REMITTANCES_TENANT_ID) for every kind, and for transaction events the platform transaction id recorded for
 * the transfer. Correctly signed events (signed with the secret the service holds) that contradict what we know
 * change nothing; they are recorded with outcome `mismatch` and a reason, counted, and listed for the
 * back-office (rejectedWebhookEvents).
 */
import { randomUUID } from 'node:crypto';
import { request } from 'undici';
import { gql, startTestApp, type TestApp } from '../helpers/app';
import { createTransfer, newPerson, newQuote, transferInput } from '../e2e/transfer-helpers';
import { documentEvent, ownSubscription, postSigned } from './webhook.helpers';
import { waitFor } from '../helpers/wait';

let t: TestApp;
let secret: string;
let alice: string;
let personId: string;

beforeAll(async () => {
  t = await startTestApp({ WEBHOOK_POLL_INTERVAL_MS: '50' });
  secret = (await ownSubscription(t)).signingSecret!;
  alice = await t.token('alice-binding', 'customer');
  personId = await newPerson(t.url, alice);
}, 90_000);
afterAll(async () => t?.close());

const row = (id: string) => t.app.db.prisma.transfer.findUniqueOrThrow({ where: { id } });

/** A transfer held in manual compliance review: AUTHORIZED, compliance Pending, its platform transaction id recorded. */
async function heldTransfer(key: string) {
  const quoteId = await newQuote(t.url, alice);
  const r = await createTransfer(t.url, alice, transferInput({ quoteId, personId, key, lastName: 'Compliance-Review' }));
  if (!r.body.data) throw new Error(JSON.stringify(r.body.errors));
  const id = r.body.data.createTransfer.id as string;
  return waitFor(
    async () => {
      const tr = await row(id);
      return tr.status === 'AUTHORIZED' && tr.externalTransactionId && tr.upstreamTransactionStatus === 'ManualReview' ? tr : null;
    },
    { timeoutMs: 20_000, intervalMs: 25, what: 'an AUTHORIZED transfer in manual review' },
  );
}

const complianceEvent = (o: { transactionId: string; externalTransactionId: string | null; tenantId?: string; value: string }) => ({
  event: 'TransactionComplianceStatusChangedEvent',
  transactionId: o.transactionId,
  externalTransactionId: o.externalTransactionId,
  ...(o.tenantId === undefined ? {} : { tenantId: o.tenantId }),
  oldComplianceStatus: 'Pending',
  newComplianceStatus: o.value,
  newStatusMessages: [`Compliance ${o.value}`],
});

async function outcomeOf(payloadMatch: (p: any) => boolean) {
  return waitFor(
    async () => {
      const rows = await t.app.db.prisma.webhookInbox.findMany({
        where: { processedAt: { not: null } },
        orderBy: { seq: 'desc' },
        take: 50,
      });
      return rows.find((r) => payloadMatch(r.payload));
    },
    { timeoutMs: 10_000, intervalMs: 25, what: 'the event to be processed' },
  );
}

async function rejectedMetric(reason: string): Promise<number> {
  const text = await (await request(`${t.url}/metrics`)).body.text();
  const m = new RegExp(`^webhook_events_rejected_total\\{reason="${reason}"\\} (\\d+)`, 'm').exec(text);
  return m ? Number(m[1]) : 0;
}

describe('transaction events are bound to the transfer and tenant we know', () => {
  it("X's transactionId + Y's externalTransactionId + another tenant: Y untouched, mismatch recorded, counted, listed", async () => {
    const x = await heldTransfer('binding-x');
    const y = await heldTransfer('binding-y');
    const before = {
      tenant: await rejectedMetric('tenant'),
      conflict: await rejectedMetric('transaction_conflict'),
      id: await rejectedMetric('transaction_id'),
    };

    const forged = [
      // the reported attack: everything wrong at once
      complianceEvent({
        transactionId: x.externalTransactionId!,
        externalTransactionId: y.externalPaymentId,
        tenantId: 'other-tenant',
        value: 'Rejected',
      }),
      // our tenant, but X's platform transaction with Y's external id
      complianceEvent({
        transactionId: x.externalTransactionId!,
        externalTransactionId: y.externalPaymentId,
        tenantId: 'sandbox-tenant',
        value: 'Rejected',
      }),
      // our tenant, Y's external id, a platform transaction id Y never had
      complianceEvent({
        transactionId: randomUUID(),
        externalTransactionId: y.externalPaymentId,
        tenantId: 'sandbox-tenant',
        value: 'Rejected',
      }),
      // no tenant at all
      complianceEvent({ transactionId: y.externalTransactionId!, externalTransactionId: y.externalPaymentId, value: 'Rejected' }),
    ];
    for (const e of forged) expect((await postSigned(t.url, secret, e)).status).toBe(200);

    const outcomes: { id: string; outcome: string | null; outcomeReason: string | null }[] = [];
    for (const e of forged)
      outcomes.push(
        await outcomeOf(
          (p) => p.transactionId === e.transactionId && p.tenantId === e.tenantId && p.externalTransactionId === e.externalTransactionId,
        ),
      );
    expect(outcomes.map((o) => [o.outcome, o.outcomeReason])).toEqual([
      ['mismatch', 'tenant'],
      ['mismatch', 'transaction_conflict'],
      ['mismatch', 'transaction_id'],
      ['mismatch', 'tenant'],
    ]);

    // Y and X untouched: still AUTHORIZED, compliance Pending, same version; no void at the gateway
    for (const tr of [x, y]) {
      const now = await row(tr.id);
      expect({ status: now.status, compliance: now.complianceStatus, version: now.version, txId: now.externalTransactionId }).toEqual({
        status: 'AUTHORIZED',
        compliance: 'Pending',
        version: tr.version,
        txId: tr.externalTransactionId,
      });
      expect(await t.app.db.prisma.sagaStep.count({ where: { transferId: tr.id, step: 'void' } })).toBe(0);
    }

    expect(await rejectedMetric('tenant')).toBe(before.tenant + 2);
    expect(await rejectedMetric('transaction_conflict')).toBe(before.conflict + 1);
    expect(await rejectedMetric('transaction_id')).toBe(before.id + 1);

    const backoffice = await t.token('bo', 'backoffice');
    const listed = await gql<any>(
      t.url,
      '{ rejectedWebhookEvents(first: 50) { totalCount edges { node { id outcome reason eventName streamKey transferId payload } } } }',
      { token: backoffice },
    );
    expect(listed.body.errors).toBeUndefined();
    const ids = listed.body.data.rejectedWebhookEvents.edges.map((e: any) => e.node.id);
    for (const o of outcomes) expect(ids).toContain(o.id);
    const node = listed.body.data.rejectedWebhookEvents.edges.find((e: any) => e.node.id === outcomes[1]!.id).node;
    expect(node).toMatchObject({
      outcome: 'mismatch',
      reason: 'transaction_conflict',
      eventName: 'TransactionComplianceStatusChangedEvent',
      // the transfer whose platform transaction it named (X), and what it said, redacted
      transferId: x.id,
      payload: expect.objectContaining({ transactionId: x.externalTransactionId, externalTransactionId: y.externalPaymentId }),
    });
    // the third names a transaction no transfer has: it concerned Y, by the external id it gave
    const third = listed.body.data.rejectedWebhookEvents.edges.find((e: any) => e.node.id === outcomes[2]!.id).node;
    expect(third.transferId).toBe(y.id);
    // never a name, never a tenant
    expect(JSON.stringify(listed.body)).not.toMatch(/Jane|Doe|sandbox-tenant|other-tenant/);
    const customer: any = await gql<any>(t.url, '{ rejectedWebhookEvents(first: 1) { totalCount } }', { token: alice });
    expect(customer.body.errors[0].extensions.code).toBe('FORBIDDEN');

    // the genuine decision still applies afterwards
    const genuine = complianceEvent({
      transactionId: y.externalTransactionId!,
      externalTransactionId: y.externalPaymentId,
      tenantId: 'sandbox-tenant',
      value: 'Approved',
    });
    expect((await postSigned(t.url, secret, genuine)).status).toBe(200);
    expect((await outcomeOf((p) => p.transactionId === y.externalTransactionId && p.newComplianceStatus === 'Approved')).outcome).toBe(
      'applied',
    );
  }, 90_000);

  it('a signed event that comes before the platform id is recorded cannot bind the transfer to an id of its choosing', async () => {
    // compliance will be Rejected by the platform: a forged Approved with a made-up transaction id, sent before the
    // genuine first event links the transfer, must neither capture nor lock the genuine events out
    const quoteId = await newQuote(t.url, alice);
    const r = await createTransfer(t.url, alice, transferInput({ quoteId, personId, key: 'prelink-1', lastName: 'Compliance-Reject' }));
    const id = r.body.data.createTransfer.id as string;
    const before = await row(id);
    expect(before.externalTransactionId).toBeNull();
    const bogus = randomUUID();
    const res = await postSigned(
      t.url,
      secret,
      complianceEvent({
        transactionId: bogus,
        externalTransactionId: before.externalPaymentId,
        tenantId: 'sandbox-tenant',
        value: 'Approved',
      }),
    );
    expect(res.status).toBe(200);
    const forged = await outcomeOf((p) => p.transactionId === bogus);
    expect([forged.outcome, forged.outcomeReason]).toEqual(['mismatch', 'transaction_id']);
    // the platform's own events still apply: rejected compliance voids the authorization
    const final = await waitFor(
      async () => {
        const tr = await row(id);
        return ['VOIDED', 'REJECTED'].includes(tr.status) ? tr : null;
      },
      { timeoutMs: 30_000, intervalMs: 25, what: 'the platform rejection applied' },
    );
    expect(final.externalTransactionId).not.toBe(bogus);
    expect(final.complianceStatus).toBe('Rejected');
    const steps = await t.app.db.prisma.sagaStep.findMany({ where: { transferId: id, step: 'capture' } });
    expect(steps).toEqual([]);
  }, 60_000);

  it('documents and agents of another tenant (or none) have no effect', async () => {
    const docId = randomUUID();
    const other = { ...documentEvent(docId, 'VERIFIED', new Date().toISOString()), tenantId: 'other-tenant' };
    const { tenantId: _none, ...noTenant } = documentEvent(randomUUID(), 'VERIFIED', new Date().toISOString());
    const agentId = randomUUID();
    const agent = {
      event: 'AgentUpdatedEvents',
      id: agentId,
      before: null,
      after: { id: agentId, email: null, businessName: 'Agent', externalId: null, status: 'ACTIVE', createdAt: new Date().toISOString() },
      tenantId: 'other-tenant',
      version: 1,
    };
    for (const e of [other, noTenant, agent]) expect((await postSigned(t.url, secret, e)).status).toBe(200);
    for (const e of [other, noTenant, agent]) expect((await outcomeOf((p) => p.id === e.id)).outcome).toBe('mismatch');
    expect(await t.app.db.prisma.platformDocument.count({ where: { id: { in: [docId, noTenant.id] } } })).toBe(0);
    expect(await t.app.db.prisma.platformAgent.count({ where: { id: agentId } })).toBe(0);
  }, 30_000);
});
