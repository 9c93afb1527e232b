/**
 * Webhooks end to end, with no test helper feeding events: the sandbox platform delivers signed webhooks to
 * POST /webhooks/remittances, the inbox applies them through the saga, apps observe the result over
 * graphql-ws.
 *
 * WEBHOOK_E2E_TRANSFERS (default 60) sizes the fault-injection run; the full size, 500:
 *   WEBHOOK_E2E_TRANSFERS=500 npx jest test/e2e/webhook-flow.test.ts
 */
import { gql, startTestApp, type TestApp } from '../helpers/app';
import { checkFundingAs, personInput, withSenderLastName } from '../helpers/funding';
import { RECIPIENT } from './transfer-helpers';
import { cardToken, http } from '../helpers/sandbox';
import { collect, wsClient } from '../helpers/ws';
import { END_TO_END_ENV, ownSubscription } from '../integration/webhook.helpers';
import { waitFor } from '../helpers/wait';

const N = Number(process.env.WEBHOOK_E2E_TRANSFERS ?? 60);

let t: TestApp;
let alice: string;
let personId: string;

const transferInput = (quoteId: string, key: string, opts: { card?: string; lastName?: string } = {}) =>
  withSenderLastName(
    { idempotencyKey: key, quoteId, personId, recipient: RECIPIENT, funding: { type: 'CARD', cardToken: cardToken(opts.card ?? '1234') } },
    opts.lastName,
  );

async function must<T>(p: Promise<{ body: { data?: T | null; errors?: unknown } }>): Promise<T> {
  const r = await p;
  if (!r.body.data || r.body.errors) throw new Error(JSON.stringify(r.body.errors));
  return r.body.data;
}
const newQuote = async () =>
  (
    await must<{ createQuote: { id: string } }>(
      gql(t.url, 'mutation($i: CreateQuoteInput!) { createQuote(input: $i) { id } }', {
        token: alice,
        variables: { i: { sourceCurrency: 'USD', destinationCurrency: 'BRL', paymentMethod: 'CARD', sourceAmount: '100.00' } },
      }),
    )
  ).createQuote.id;
const createTransfer = async (input: unknown) => {
  await checkFundingAs(t.url, alice, input);
  return (
    await must<{ createTransfer: { id: string; status: string } }>(
      gql(t.url, 'mutation($i: CreateTransferInput!) { createTransfer(input: $i) { id status } }', {
        token: alice,
        variables: { i: input },
      }),
    )
  ).createTransfer;
};

/** True when the platform's final TransactionStatusChanged → Completed of each transfer was stored once and processed. */
async function completedEventProcessed(transferIds: string[]): Promise<boolean> {
  const rows = await t.app.db.prisma.$queryRaw<{ ext: string; n: bigint; done: bigint }[]>`
    SELECT payload->>'externalTransactionId' AS ext, count(*) AS n, count(processed_at) AS done FROM webhook_inbox
    WHERE payload->>'newStatus' = 'Completed' AND payload->>'externalTransactionId' = ANY(${transferIds}) GROUP BY 1`;
  return rows.length === transferIds.length && rows.every((r) => Number(r.n) === 1 && Number(r.done) === 1);
}

beforeAll(async () => {
  t = await startTestApp(END_TO_END_ENV);
  alice = await t.token('alice', 'customer');
  personId = (
    await must<{ createPerson: { id: string } }>(
      gql(t.url, 'mutation($i: PersonInput!) { createPerson(input: $i) { id } }', { token: alice, variables: { i: personInput() } }),
    )
  ).createPerson.id;
}, 60_000);
afterAll(async () => t?.close());

test('happy path with no test helper: createTransfer → signed sandbox webhooks → capture → payout → COMPLETED, seen by a graphql-ws subscriber', async () => {
  const tr = await createTransfer(transferInput(await newQuote(), 'wh-e2e-happy'));
  const { client } = wsClient(t.wsUrl, alice);
  const sub = collect<{ transferUpdated: { id: string; status: string; version: number } }>(
    client,
    'subscription($id: ID!) { transferUpdated(transferId: $id) { id status version } }',
    { id: tr.id },
  );
  try {
    await waitFor(() => sub.results.some((r) => r.data?.transferUpdated.status === 'COMPLETED'), {
      timeoutMs: 20_000,
      intervalMs: 25,
      what: 'COMPLETED over graphql-ws',
    });
    expect(sub.error).toBeUndefined();
    const seen = sub.results.map((r) => r.data!.transferUpdated);
    const versions = seen.map((s) => s.version);
    expect(versions).toEqual([...versions].sort((a, b) => a - b));
    expect(new Set(versions).size).toBe(versions.length);
    expect(versions.at(-1)! - versions[0]!).toBe(versions.length - 1); // none skipped
    const statuses = [...new Set(seen.map((s) => s.status))];
    expect(statuses).toEqual(expect.arrayContaining(['CAPTURED', 'PAYOUT_PENDING', 'COMPLETED']));
    expect(statuses.at(-1)).toBe('COMPLETED');
  } finally {
    sub.dispose();
    await client.dispose();
  }
  // it was the webhooks: signed deliveries, applied by the inbox
  const sub2 = await ownSubscription(t);
  expect(sub2.deliveries.length).toBeGreaterThan(0);
  expect(sub2.deliveries.every((d) => d.signed && d.status === 200)).toBe(true);
  const applied = await t.app.db.prisma.webhookInbox.count({
    where: { outcome: 'applied', payload: { path: ['externalTransactionId'], equals: tr.id } },
  });
  expect(applied).toBeGreaterThan(0);
  // the platform's last event (Completed, after Paid) arrives too, and is processed without changing a terminal transfer
  await waitFor(() => completedEventProcessed([tr.id]), { timeoutMs: 10_000, intervalMs: 25, what: 'platform Completed processed' });
  const row = await t.app.db.prisma.transfer.findUnique({ where: { id: tr.id } });
  expect(row).toMatchObject({ status: 'COMPLETED', complianceStatus: 'Approved' });
}, 40_000);

test('after the sandbox clock moved forward (as a quote-expiry test does), its webhooks still verify (signed with the real time) and the transfer completes on them; DELETE /__sandbox/clock brings the clock back', async () => {
  const sandbox = t.app.sandbox!.url;
  const seen = (await ownSubscription(t)).deliveries.length;
  // beyond the receiver's 300 s tolerance: a signature on the sandbox clock would be refused from now on
  expect((await http('POST', `${sandbox}/__sandbox/clock`, { body: { advanceSeconds: 900 } })).body.offsetSeconds).toBeGreaterThanOrEqual(
    900,
  );
  try {
    const tr = await createTransfer(transferInput(await newQuote(), 'wh-e2e-clock-moved'));
    await waitFor(async () => (await t.app.db.prisma.transfer.findUnique({ where: { id: tr.id } }))?.status === 'COMPLETED', {
      timeoutMs: 20_000,
      intervalMs: 25,
      what: 'COMPLETED on the webhooks sent after the clock moved',
    });
    const after = (await ownSubscription(t)).deliveries.slice(seen);
    expect(after.length).toBeGreaterThan(0);
    expect(after.filter((d) => !(d.signed && d.status === 200))).toEqual([]);
    expect(
      await t.app.db.prisma.webhookInbox.count({
        where: { outcome: 'applied', payload: { path: ['externalTransactionId'], equals: tr.id } },
      }),
    ).toBeGreaterThan(0);
  } finally {
    const back = await http('DELETE', `${sandbox}/__sandbox/clock`);
    expect([back.status, back.body.offsetSeconds]).toEqual([200, 0]);
  }
}, 40_000);

test(
  `${N} transfers' event streams with duplicates, shuffling and delays end in exactly the in-order states`,
  async () => {
    const sandbox = t.app.sandbox!.url;
    const faults = await http('POST', `${sandbox}/__sandbox/faults`, {
      body: { webhookDuplicateRate: 0.3, webhookShuffle: true, webhookDelayMs: 30, seed: 20260101 },
    });
    expect(faults.status).toBe(200);
    try {
      // what in-order delivery gives (test/e2e happy/compliance paths): approved → COMPLETED, compliance reject → VOIDED, declined card → DECLINED
      const kinds = Array.from({ length: N }, (_, i) => (i % 10 === 3 ? 'reject' : i % 10 === 7 ? 'declined' : 'happy'));
      const expected = { happy: 'COMPLETED', reject: 'VOIDED', declined: 'DECLINED' } as const;
      const ids: string[] = [];
      for (let i = 0; i < N; i += 10) {
        // quotes right before use (they expire after 5 minutes, which a large N would outlast)
        const batch = kinds
          .slice(i, i + 10)
          .map(async (k, j) =>
            createTransfer(
              transferInput(
                await newQuote(),
                `wh-e2e-many-${i + j}`,
                k === 'reject' ? { lastName: 'Compliance-Reject' } : k === 'declined' ? { card: '0004' } : {},
              ),
            ),
          );
        ids.push(...(await Promise.all(batch)).map((x) => x.id));
      }
      const terminal = ['COMPLETED', 'VOIDED', 'DECLINED', 'FAILED', 'EXPIRED', 'REJECTED'];
      try {
        await waitFor(
          async () => (await t.app.db.prisma.transfer.count({ where: { id: { in: ids }, status: { in: terminal as never } } })) === N,
          { timeoutMs: Math.max(60_000, N * 2_000), intervalMs: 25, what: 'every transfer terminal' },
        );
      } catch (e) {
        // say where they are stuck: transfer statuses, and the inbox's unprocessed rows
        const byStatus = await t.app.db.prisma.transfer.groupBy({ by: ['status'], where: { id: { in: ids } }, _count: true });
        const stuck = await t.app.db.prisma.webhookInbox.groupBy({ by: ['lastError'], where: { processedAt: null }, _count: true });
        const outcomes = await t.app.db.prisma.webhookInbox.groupBy({ by: ['outcome'], _count: true });
        const failures = await t.app.db.prisma.transfer.groupBy({
          by: ['status', 'failureCode'],
          where: { id: { in: ids } },
          _count: true,
        });
        if (process.env.WEBHOOK_E2E_DEBUG) {
          const subs = await ownSubscription(t);
          console.log(
            JSON.stringify({ notOk: subs.deliveries.filter((d) => d.status !== 200).slice(0, 10), total: subs.deliveries.length }),
          );
          const open = await t.app.db.prisma.transfer.findMany({ where: { id: { in: ids }, status: { notIn: terminal as never } } });
          for (const o of open) {
            const ev = await t.app.db.prisma.transferEvent.findMany({ where: { transferId: o.id }, orderBy: { seq: 'asc' } });
            const rf = await t.app.db.prisma.transferRefusal.findMany({ where: { transferId: o.id } });
            const st = await t.app.db.prisma.sagaStep.findMany({ where: { transferId: o.id } });
            const inbox = await t.app.db.prisma.webhookInbox.findMany({
              where: { streamKey: `tx:${o.externalTransactionId}` },
              orderBy: { seq: 'asc' },
            });
            console.log(
              JSON.stringify({
                id: o.id,
                status: o.status,
                compliance: o.complianceStatus,
                platform: o.upstreamTransactionStatus,
                payout: o.payoutStatus,
                next: o.nextRunAt,
                ev: ev.map((x) => [x.toStatus, x.cause, x.detail]),
                rf: rf.map((x) => [x.toStatus, x.reason]),
                st: st.map((x) => [x.step, x.state, x.lastError]),
                inbox: inbox.map((x) => [x.eventName, x.outcome, (x.payload as any).newStatus ?? (x.payload as any).newComplianceStatus]),
              }),
            );
          }
        }
        throw new Error(`${(e as Error).message}: ${JSON.stringify({ byStatus, failures, stuckInbox: stuck, outcomes })}`, { cause: e });
      }
      // and every platform event processed: the happy ones' last event (Completed) included, late, shuffled, duplicated
      const happyIds = ids.filter((_, i) => kinds[i] === 'happy');
      await waitFor(() => completedEventProcessed(happyIds), { timeoutMs: 60_000, intervalMs: 25, what: 'platform Completed processed' });
      await waitFor(async () => (await t.app.db.prisma.webhookInbox.count({ where: { processedAt: null } })) === 0, {
        timeoutMs: 30_000,
        intervalMs: 25,
        what: 'inbox drained',
      });
      const rows = await t.app.db.prisma.transfer.findMany({ where: { id: { in: ids } } });
      const byId = new Map(rows.map((r) => [r.id, r]));
      const wrong = ids
        .map((id, i) => ({ i, kind: kinds[i]!, status: byId.get(id)!.status }))
        .filter((x) => x.status !== expected[x.kind as keyof typeof expected]);
      expect(wrong).toEqual([]);
      for (const [i, id] of ids.entries())
        if (kinds[i] === 'happy') expect(byId.get(id)).toMatchObject({ status: 'COMPLETED', complianceStatus: 'Approved' });
      // the faults really happened, and duplicates were stored once
      const deliveries = (await ownSubscription(t)).deliveries;
      expect(deliveries.some((d) => d.duplicate)).toBe(true);
    } finally {
      await http('POST', `${sandbox}/__sandbox/faults`, { body: { webhookDuplicateRate: 0, webhookShuffle: false, webhookDelayMs: 0 } });
    }
  },
  Math.max(240_000, N * 4_000),
);
