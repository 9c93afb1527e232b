import { approvedPersonRow } from '../helpers/funding';
/**
 * Back-office search on `transfers` (owner, corridor, amount range, with status/date from before) and the
 * `myTransfers` list subscription over a real graphql-ws socket.
 */
import { randomUUID } from 'node:crypto';
import { gql, startTestApp, type TestApp } from '../helpers/app';
import { countQueries } from '../helpers/db';
import { collect, wsClient } from '../helpers/ws';
import { waitFor } from '../helpers/wait';
import { insertTransfer } from './transfer-fixtures';

let t: TestApp;
let alice: string;
let bob: string;
let staff: string;
const rows: { id: string; ownerId: string; send: string; sendCurrency: string; receiveCurrency: string; country: string }[] = [];

const CORRIDORS = [
  { sendCurrency: 'USD', receiveCurrency: 'BRL', country: 'BR' },
  { sendCurrency: 'USD', receiveCurrency: 'MXN', country: 'MX' },
  { sendCurrency: 'EUR', receiveCurrency: 'BRL', country: 'BR' },
  { sendCurrency: 'USD', receiveCurrency: 'USD', country: 'SV' },
];
const AMOUNTS = ['5.00', '49.99', '50.00', '100.00', '250.50', '1000.00'];

beforeAll(async () => {
  t = await startTestApp({
    SAGA_WORKER_ENABLED: 'false',
    RATE_LIMIT_MUTATIONS_PER_MINUTE: '100000',
    RATE_LIMIT_UPSTREAM_POINTS_PER_MINUTE: '100000',
    // query counts below must see only the request's statements, not the webhook inbox's poll
    WEBHOOK_POLL_INTERVAL_MS: '600000',
  });
  alice = await t.token('search-alice', 'customer');
  bob = await t.token('search-bob', 'customer');
  staff = await t.token('search-bo', 'backoffice');
  const base = Date.parse('2026-04-01T00:00:00Z');
  for (let i = 0; i < 24; i++) {
    const c = CORRIDORS[i % CORRIDORS.length]!;
    const send = AMOUNTS[i % AMOUNTS.length]!;
    const ownerId = i % 3 === 0 ? 'search-bob' : 'search-alice';
    const tr = await insertTransfer(t.app.db.prisma, { ownerId, createdAt: new Date(base + Math.floor(i / 3) * 60_000) });
    await t.app.db.prisma.transfer.update({
      where: { id: tr.id },
      data: { sendAmount: send, sendCurrency: c.sendCurrency, receiveCurrency: c.receiveCurrency, destinationCountry: c.country },
    });
    rows.push({ id: tr.id, ownerId, send, ...c });
  }
}, 120_000);
afterAll(() => t.close());

const LIST = `query($first: Int, $after: String, $filter: TransferFilter) { transfers(first: $first, after: $after, filter: $filter) {
  edges { cursor node { id ownerId sendAmount { amount currency } receiveAmount { currency } destinationCountry createdAt events(first: 5) { edges { node { seq } } } } }
  pageInfo { hasNextPage endCursor } } }`;

/** Every page of the list (page size 4) — also proves the cursors are stable under the filter. */
async function all(token: string, filter: Record<string, unknown>): Promise<any[]> {
  const out: any[] = [];
  let after: string | null = null;
  for (let i = 0; i < 50; i++) {
    const r: any = await gql<any>(t.url, LIST, { token, variables: { first: 4, after, filter } });
    if (r.body.errors) throw Object.assign(new Error(r.body.errors[0].message), { errors: r.body.errors });
    out.push(...r.body.data.transfers.edges.map((e: any) => e.node));
    if (!r.body.data.transfers.pageInfo.hasNextPage) break;
    after = r.body.data.transfers.pageInfo.endCursor;
  }
  const keys = out.map((n) => `${n.createdAt}|${n.id}`);
  expect(keys).toEqual([...keys].sort().reverse()); // newest first, (createdAt, id) descending, no repeats
  expect(new Set(keys).size).toBe(keys.length);
  return out;
}
const ids = (nodes: any[]) => nodes.map((n) => n.id).sort();
const expectIds = (pred: (r: (typeof rows)[number]) => boolean) =>
  rows
    .filter(pred)
    .map((r) => r.id)
    .sort();

test('owner filter: staff by any owner; a customer with its own id gets its own, with another id FORBIDDEN', async () => {
  expect(ids(await all(staff, { ownerId: 'search-bob' }))).toEqual(expectIds((r) => r.ownerId === 'search-bob'));
  expect(ids(await all(alice, { ownerId: 'search-alice' }))).toEqual(expectIds((r) => r.ownerId === 'search-alice'));
  const denied = await gql<any>(t.url, LIST, { token: alice, variables: { filter: { ownerId: 'search-bob' } } });
  expect(denied.body.errors?.[0]?.extensions?.code).toBe('FORBIDDEN');
  expect(denied.body.data ?? null).toBeNull();
}, 60_000);

test('corridor: source currency, destination currency, destination country — alone and combined; customers stay scoped', async () => {
  const mine = (r: (typeof rows)[number]) => r.ownerId === 'search-alice';
  expect(ids(await all(staff, { sourceCurrency: 'USD', destinationCurrency: 'BRL' }))).toEqual(
    expectIds((r) => r.sendCurrency === 'USD' && r.receiveCurrency === 'BRL'),
  );
  expect(ids(await all(staff, { destinationCountry: 'BR' }))).toEqual(expectIds((r) => r.country === 'BR'));
  expect(ids(await all(staff, { sourceCurrency: 'eur', destinationCountry: 'BR' }))).toEqual(
    expectIds((r) => r.sendCurrency === 'EUR' && r.country === 'BR'),
  );
  expect(ids(await all(staff, { destinationCurrency: 'MXN' }))).toEqual(expectIds((r) => r.receiveCurrency === 'MXN'));
  expect(ids(await all(alice, { destinationCountry: 'BR' }))).toEqual(expectIds((r) => mine(r) && r.country === 'BR'));
  const bad = await gql<any>(t.url, LIST, { token: staff, variables: { filter: { destinationCountry: 'BRA' } } });
  expect(bad.body.errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
}, 60_000);

test('amount range on sendAmount: inclusive bounds compared as decimals; bad ranges are BAD_USER_INPUT', async () => {
  const cmp = (a: string, b: string) => Number(a) - Number(b); // test-side oracle only (values are exact in binary to the cent here)
  expect(ids(await all(staff, { minSendAmount: '50', maxSendAmount: '250.50' }))).toEqual(
    expectIds((r) => cmp(r.send, '50') >= 0 && cmp(r.send, '250.50') <= 0),
  );
  expect(ids(await all(staff, { minSendAmount: '49.995' }))).toEqual(expectIds((r) => cmp(r.send, '49.995') >= 0));
  expect(ids(await all(staff, { maxSendAmount: '49.99', sourceCurrency: 'USD' }))).toEqual(
    expectIds((r) => cmp(r.send, '49.99') <= 0 && r.sendCurrency === 'USD'),
  );
  const combined = await all(staff, {
    ownerId: 'search-alice',
    sourceCurrency: 'USD',
    destinationCountry: 'BR',
    minSendAmount: '10',
    status: ['PENDING'],
  });
  expect(ids(combined)).toEqual(
    expectIds((r) => r.ownerId === 'search-alice' && r.sendCurrency === 'USD' && r.country === 'BR' && cmp(r.send, '10') >= 0),
  );
  for (const filter of [{ minSendAmount: '10', maxSendAmount: '9.99' }, { minSendAmount: '-1' }, { maxSendAmount: 'ten' }]) {
    const r = await gql<any>(t.url, LIST, { token: staff, variables: { filter } });
    expect(r.body.errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
  }
}, 60_000);

test('filtered lists keep the constant query count (N = 2 vs N = 12 with their events)', async () => {
  const counter = countQueries(t.app.db);
  const filter = { sourceCurrency: 'USD', minSendAmount: '1' };
  const small = await counter.measure(() => gql<any>(t.url, LIST, { token: staff, variables: { first: 2, filter } }));
  const large = await counter.measure(() => gql<any>(t.url, LIST, { token: staff, variables: { first: 12, filter } }));
  counter.dispose();
  expect(large.result.body.data.transfers.edges).toHaveLength(12);
  expect(large.count).toBe(small.count);
  expect(large.count).toBeLessThanOrEqual(3);
}, 60_000);

test('the search uses the new indexes (EXPLAIN with sequential scans off shows an index on each filter)', async () => {
  const prisma = t.app.db.prisma;
  const plan = async (where: string) => {
    const out = await prisma.$transaction(async (tx) => {
      await tx.$executeRawUnsafe('SET LOCAL enable_seqscan = off');
      return tx.$queryRawUnsafe<{ 'QUERY PLAN': string }[]>(
        `EXPLAIN SELECT id FROM transfers WHERE ${where} ORDER BY created_at DESC, id DESC LIMIT 21`,
      );
    });
    return out.map((r) => r['QUERY PLAN']).join('\n');
  };
  expect(await plan(`send_currency = 'USD' AND receive_currency = 'BRL'`)).toContain(
    'transfers_send_currency_receive_currency_created_at_id_idx',
  );
  expect(await plan(`destination_country = 'BR'`)).toContain('transfers_destination_country_created_at_id_idx');
  expect(await plan(`true`)).toContain('transfers_created_at_id_idx');
  expect(await plan(`send_currency = 'USD' AND send_amount BETWEEN 10 AND 20`)).toMatch(
    /transfers_send_currency_(send_amount|receive_currency_created_at_id)_idx/,
  );
}, 60_000);

const MY = `subscription($owner: ID) { myTransfers(ownerId: $owner) { id ownerId status version } }`;

test('myTransfers over graphql-ws: each caller gets the changed transfer (current state) of its own list; staff all or by owner; another owner is FORBIDDEN', async () => {
  const subsBefore = t.app.pubsub.subscriptionCount();
  const a = wsClient(t.wsUrl, alice);
  const b = wsClient(t.wsUrl, bob);
  const s = wsClient(t.wsUrl, staff);
  const aliceSub = collect<any>(a.client, MY, {});
  const bobSub = collect<any>(b.client, MY, {});
  const staffAll = collect<any>(s.client, MY, {});
  const staffAlice = collect<any>(s.client, MY, { owner: 'search-alice' });
  await waitFor(() => t.app.pubsub.subscriptionCount() >= subsBefore + 4, {
    timeoutMs: 30_000,
    intervalMs: 20,
    what: 'the 4 subscriptions to start',
  });
  const repo = t.app.transfers.repository;
  const aliceT = rows.find((r) => r.ownerId === 'search-alice')!.id;
  const bobT = rows.find((r) => r.ownerId === 'search-bob')!.id;
  await repo.transition({ transferId: aliceT, to: 'AUTHORIZED', cause: 'worker', actor: 'worker' });
  await aliceSub.next(1, 30_000);
  expect(aliceSub.results[0]!.data.myTransfers).toMatchObject({ id: aliceT, ownerId: 'search-alice', status: 'AUTHORIZED' });
  await repo.transition({ transferId: bobT, to: 'DECLINED', cause: 'worker', actor: 'worker' });
  await repo.transition({ transferId: aliceT, to: 'CAPTURED', cause: 'worker', actor: 'worker' });
  await aliceSub.next(2, 30_000);
  await bobSub.next(1, 30_000);
  await staffAll.next(3, 30_000);
  await staffAlice.next(2, 30_000);

  const seen = (c: typeof aliceSub) =>
    c.results.map((r) => `${r.data.myTransfers.id === aliceT ? 'alice' : 'bob'}:${r.data.myTransfers.status}`);
  expect(seen(aliceSub)).toEqual(['alice:AUTHORIZED', 'alice:CAPTURED']);
  expect(seen(bobSub)).toEqual(['bob:DECLINED']);
  expect(seen(staffAll)).toEqual(['alice:AUTHORIZED', 'bob:DECLINED', 'alice:CAPTURED']);
  expect(seen(staffAlice)).toEqual(['alice:AUTHORIZED', 'alice:CAPTURED']);
  // current state: version is the transfer's version after that change
  const cur = await t.app.transfers.repository.get(aliceT);
  expect(aliceSub.results[1]!.data.myTransfers.version).toBe(cur!.version);

  const denied = collect<any>(a.client, MY, { owner: 'search-bob' });
  await denied.next(1, 30_000);
  expect(denied.results[0]?.data ?? null).toBeNull();
  expect(denied.results[0]?.errors?.[0]?.extensions?.code ?? (denied.error as any)?.[0]?.extensions?.code).toBe('FORBIDDEN');

  for (const c of [aliceSub, bobSub, staffAll, staffAlice]) c.dispose();
  await Promise.all([a.client.dispose(), b.client.dispose(), s.client.dispose()]);
  await waitFor(() => t.app.pubsub.subscriptionCount() <= subsBefore, {
    timeoutMs: 30_000,
    intervalMs: 20,
    what: () => `pub/sub subscriptions to close (${t.app.pubsub.subscriptionCount() - subsBefore} left open)`,
  });
}, 90_000);

const MY_SINCE = `subscription($owner: ID, $since: DateTime) { myTransfers(ownerId: $owner, changedSince: $since) { id ownerId status version updatedAt } }`;

test('myTransfers(changedSince): first what changed since (own list only, oldest change first), then live — nothing changed between reading the list and subscribing is missed', async () => {
  const repo = t.app.transfers.repository;
  // the app reads its list and keeps the latest updatedAt it saw
  const list = await gql<any>(t.url, '{ transfers(first: 100) { edges { node { id updatedAt } } } }', { token: alice });
  const since: string = list.body.data.transfers.edges
    .map((e: any) => e.node.updatedAt)
    .sort()
    .at(-1);
  // changes in the gap, before the subscription exists (alice's two, and one of bob's)
  const [a1, a2] = rows
    .filter((r) => r.ownerId === 'search-alice')
    .slice(-2)
    .map((r) => r.id);
  const b1 = rows.filter((r) => r.ownerId === 'search-bob').at(-1)!.id;
  await new Promise((r) => setTimeout(r, 5)); // updated_at has millisecond precision: the gap's changes come strictly after
  await repo.transition({ transferId: a1!, to: 'AUTHORIZED', cause: 'worker', actor: 'worker' });
  await repo.transition({ transferId: b1, to: 'DECLINED', cause: 'worker', actor: 'worker' });
  await repo.transition({ transferId: a2!, to: 'DECLINED', cause: 'worker', actor: 'worker' });
  const a = wsClient(t.wsUrl, alice);
  const sub = collect<any>(a.client, MY_SINCE, { since });
  // replayed: alice's transfers updated at or after `since` (the instant itself included: one she may already have),
  // oldest change first, in their current state — the gap's two among them, in order
  const expected = (await repo.changedSince('search-alice', new Date(since), 100)).map((r) => `${r.id}:${r.status}`);
  expect(expected.length).toBeGreaterThanOrEqual(2);
  await sub.next(expected.length, 30_000);
  const got = () => sub.results.map((r) => `${r.data?.myTransfers?.id}:${r.data?.myTransfers?.status}`);
  expect(got()).toEqual(expected);
  expect(expected.slice(-2)).toEqual([`${a1}:AUTHORIZED`, `${a2}:DECLINED`]);
  for (const r of sub.results) expect(r.data.myTransfers.updatedAt >= since).toBe(true);
  // then live
  await repo.transition({ transferId: a1!, to: 'CAPTURED', cause: 'worker', actor: 'worker' });
  await sub.next(expected.length + 1, 30_000);
  expect(got().at(-1)).toBe(`${a1}:CAPTURED`);
  for (const r of sub.results) expect(r.data.myTransfers.ownerId).toBe('search-alice');
  // a client that gives an instant after everything gets nothing replayed: the first message is the next live change
  const later = new Date(Date.now() + 1000).toISOString();
  const subsBefore = t.app.pubsub.subscriptionCount();
  const quiet = collect<any>(a.client, MY_SINCE, { since: later });
  await waitFor(() => t.app.pubsub.subscriptionCount() > subsBefore, {
    timeoutMs: 30_000,
    intervalMs: 20,
    what: 'the subscription to start',
  });
  await repo.transition({ transferId: a1!, to: 'PAYOUT_PENDING', cause: 'webhook', actor: 'webhook' });
  await quiet.next(1, 30_000);
  expect(quiet.results.map((r) => `${r.data.myTransfers.id}:${r.data.myTransfers.status}`)).toEqual([`${a1}:PAYOUT_PENDING`]);
  sub.dispose();
  quiet.dispose();
  await a.client.dispose();
}, 90_000);

test('myTransfers(changedSince) replays at most 500 transfers: beyond, BAD_USER_INPUT (re-read the list)', async () => {
  const owner = 'search-carol';
  const person = await t.app.db.prisma.person.create({ data: { ...approvedPersonRow(owner) } });
  const ids = Array.from({ length: 501 }, () => randomUUID());
  const now = new Date();
  await t.app.db.prisma.quote.createMany({
    data: ids.map((id) => ({
      id,
      ownerId: owner,
      fxId: randomUUID(),
      rate: '5.0123',
      sourceCurrency: 'USD',
      destinationCurrency: 'BRL',
      sourceAmount: '100.00',
      destinationAmount: '501.23',
      paymentMethod: 'WALLET',
      expiresAt: new Date(now.getTime() + 300_000),
      usedByTransferId: id,
    })),
  });
  await t.app.db.prisma.transfer.createMany({
    data: ids.map((id) => ({
      id,
      ownerId: owner,
      status: 'PENDING' as never,
      version: 1,
      eventSeq: 1,
      quoteId: id,
      personId: person.id,
      sendAmount: '100.00',
      sendCurrency: 'USD',
      receiveAmount: '501.23',
      receiveCurrency: 'BRL',
      rate: '5.0123',
      externalPaymentId: id,
      fundingType: 'card',
      details: {},
      createdAt: now,
      updatedAt: now,
    })),
  });
  const carol = await t.token(owner, 'customer');
  const c = wsClient(t.wsUrl, carol);
  const sub = collect<any>(c.client, MY_SINCE, { since: new Date(now.getTime() - 1000).toISOString() });
  await sub.next(1, 30_000);
  const code = sub.results[0]?.errors?.[0]?.extensions?.code ?? (sub.error as any)?.[0]?.extensions?.code;
  expect(code).toBe('BAD_USER_INPUT');
  expect(sub.results.some((r) => r.data?.myTransfers)).toBe(false);
  sub.dispose();
  await c.client.dispose();
}, 90_000);
