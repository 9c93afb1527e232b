import { gql, startTestApp, type TestApp } from '../helpers/app';
import { countQueries } from '../helpers/db';
import { collect, wsClient } from '../helpers/ws';
import { insertTransfer } from './transfer-fixtures';

let t: TestApp;
let alice: string;
let bob: string;
let staff: string;
const ids: string[] = [];

beforeAll(async () => {
  t = await startTestApp({
    SAGA_WORKER_ENABLED: 'false',
    RATE_LIMIT_MUTATIONS_PER_MINUTE: '100000',
    RATE_LIMIT_UPSTREAM_POINTS_PER_MINUTE: '100000',
    // query counts below must see only the request's statements, not the webhook inbox's poll
    WEBHOOK_POLL_INTERVAL_MS: '600000',
  });
  alice = await t.token('alice', 'customer');
  bob = await t.token('bob', 'customer');
  staff = await t.token('bo', 'backoffice');
  const base = Date.parse('2026-03-01T00:00:00Z');
  for (let i = 0; i < 25; i++) {
    // some share a createdAt: the cursor must still be stable (createdAt, id)
    const tr = await insertTransfer(t.app.db.prisma, {
      ownerId: i % 5 === 4 ? 'bob' : 'alice',
      createdAt: new Date(base + Math.floor(i / 2) * 60_000),
    });
    ids.push(tr.id);
    await t.app.transfers.repository.transition({ transferId: tr.id, cause: 'worker', actor: 'worker', detail: { action: 'note' } });
  }
}, 60_000);
afterAll(() => t.close());

const LIST = `query($first: Int, $after: String, $filter: TransferFilter) { transfers(first: $first, after: $after, filter: $filter) {
  edges { cursor node { id ownerId status createdAt events(first: 10) { edges { node { seq toStatus cause } } pageInfo { hasNextPage } } } }
  pageInfo { hasNextPage endCursor } } }`;

test('customers see only their own, newest first, with stable cursors; back-office sees all', async () => {
  const seen: string[] = [];
  let after: string | null = null;
  let prev: { createdAt: string; id: string } | null = null;
  for (let page = 0; page < 10; page++) {
    const r: any = await gql<any>(t.url, LIST, { token: alice, variables: { first: 7, after } });
    for (const e of r.body.data.transfers.edges) {
      expect(e.node.ownerId).toBe('alice');
      if (prev) expect(e.node.createdAt < prev.createdAt || (e.node.createdAt === prev.createdAt && e.node.id < prev.id)).toBe(true);
      prev = { createdAt: e.node.createdAt, id: e.node.id };
      seen.push(e.node.id);
    }
    if (!r.body.data.transfers.pageInfo.hasNextPage) break;
    after = r.body.data.transfers.pageInfo.endCursor;
  }
  expect(seen).toHaveLength(20);
  expect(new Set(seen).size).toBe(20);
  const all = await gql<any>(t.url, LIST, { token: staff, variables: { first: 100 } });
  expect(all.body.data.transfers.edges.length).toBeGreaterThanOrEqual(25);
});

test('filters: status and created range', async () => {
  const r = await gql<any>(t.url, LIST, {
    token: staff,
    variables: { first: 100, filter: { status: ['PENDING'], createdFrom: '2026-03-01T00:02:00Z', createdTo: '2026-03-01T00:04:00Z' } },
  });
  const nodes = r.body.data.transfers.edges.map((e: any) => e.node);
  expect(nodes).toHaveLength(4);
  for (const n of nodes) expect(n.createdAt >= '2026-03-01T00:02:00.000Z' && n.createdAt < '2026-03-01T00:04:00.000Z').toBe(true);
});

test("another customer's transfer is NOT_FOUND (not FORBIDDEN)", async () => {
  const r = await gql<any>(t.url, `query($id: ID!) { transfer(id: $id) { id } }`, { token: bob, variables: { id: ids[0] } });
  expect(r.body.errors?.[0]?.extensions?.code).toBe('NOT_FOUND');
  const s = await gql<any>(t.url, `query($id: ID!) { transfer(id: $id) { id } }`, { token: staff, variables: { id: ids[0] } });
  expect(s.body.data.transfer.id).toBe(ids[0]);
});

test('a list of N transfers with their events costs the same number of queries for N = 3 and N = 25 (DataLoader)', async () => {
  const counter = countQueries(t.app.db);
  const small = await counter.measure(() => gql<any>(t.url, LIST, { token: staff, variables: { first: 3 } }));
  const large = await counter.measure(() => gql<any>(t.url, LIST, { token: staff, variables: { first: 25 } }));
  counter.dispose();
  expect(large.result.body.data.transfers.edges).toHaveLength(25);
  expect(large.result.body.data.transfers.edges[0].node.events.edges.map((e: any) => e.node.seq)).toEqual([1, 2]);
  expect(large.count).toBe(small.count);
  expect(large.count).toBeLessThanOrEqual(3);
});

const SUB = `subscription($id: ID!, $after: Int) { transferUpdated(transferId: $id, afterVersion: $after) { id status version } }`;

test('transferUpdated: current state first, then every version in order (a platform fact alone is none); afterVersion replays what was missed; others get an error', async () => {
  const tr = await insertTransfer(t.app.db.prisma, { ownerId: 'alice' });
  const { client } = wsClient(t.wsUrl, alice);
  const sub = collect<any>(client, SUB, { id: tr.id });
  await sub.next(1);
  expect(sub.results[0].data.transferUpdated).toMatchObject({ status: 'PENDING', version: 1 });
  const repo = t.app.transfers.repository;
  await repo.transition({ transferId: tr.id, to: 'AUTHORIZED', cause: 'worker', actor: 'worker' });
  await repo.transition({ transferId: tr.id, cause: 'webhook', actor: 'webhook', patch: { complianceStatus: 'Approved' } });
  await repo.transition({ transferId: tr.id, to: 'CAPTURED', cause: 'worker', actor: 'worker' });
  await repo.transition({ transferId: tr.id, to: 'PAYOUT_PENDING', cause: 'webhook', actor: 'webhook' });
  await sub.next(4);
  expect(sub.results.map((r) => r.data.transferUpdated.version)).toEqual([1, 2, 3, 4]);
  expect(sub.results.map((r) => r.data.transferUpdated.status)).toEqual(['PENDING', 'AUTHORIZED', 'CAPTURED', 'PAYOUT_PENDING']);
  sub.dispose();

  // reconnect after missing versions 3 and 4
  const again = collect<any>(client, SUB, { id: tr.id, after: 2 });
  await again.next(2);
  expect(again.results.map((r) => r.data.transferUpdated.version)).toEqual([3, 4]);
  await repo.transition({ transferId: tr.id, to: 'COMPLETED', cause: 'webhook', actor: 'webhook' });
  await again.next(3);
  expect(again.results[2].data.transferUpdated).toMatchObject({ version: 5, status: 'COMPLETED' });
  again.dispose();

  const { client: other } = wsClient(t.wsUrl, bob);
  const denied = collect<any>(other, SUB, { id: tr.id });
  await denied.next(1);
  expect(denied.results[0]?.data ?? null).toBeNull();
  expect(denied.results[0]?.errors?.[0]?.extensions?.code ?? (denied.error as any)?.[0]?.extensions?.code).toBe('NOT_FOUND');
  const { client: bo } = wsClient(t.wsUrl, staff);
  const ok = collect<any>(bo, SUB, { id: tr.id });
  await ok.next(1);
  expect(ok.results[0].data.transferUpdated.version).toBe(5);
  await client.dispose();
  await other.dispose();
  await bo.dispose();
});
