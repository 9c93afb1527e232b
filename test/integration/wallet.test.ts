import { gql, startTestApp, type TestApp } from '../helpers/app';

let t: TestApp;
let alice: string;
let bob: string;
let staff: string;

beforeAll(async () => {
  t = await startTestApp();
  [alice, bob, staff] = await Promise.all([
    t.token('wallet-alice', 'customer'),
    t.token('wallet-bob', 'customer'),
    t.token('ops', 'backoffice'),
  ]);
}, 90_000);
afterAll(() => t?.close());

const CREATE = `mutation($i: CreateWalletInput!) { createWallet(input: $i) { id currency type status ownerId createdAt } }`;

describe('wallets', () => {
  let walletId: string;

  it('createWallet: the caller owns it', async () => {
    const r = await gql<any>(t.url, CREATE, { token: alice, variables: { i: { currency: 'USD' } } });
    expect(r.body.errors).toBeUndefined();
    expect(r.body.data.createWallet).toMatchObject({ currency: 'USD', type: 'PERSONAL', status: 'ACTIVE', ownerId: 'wallet-alice' });
    walletId = r.body.data.createWallet.id;
    const row = await t.app.db.prisma.walletOwner.findUnique({ where: { walletId } });
    expect(row?.ownerId).toBe('wallet-alice');
  });

  it('bad currency → BAD_USER_INPUT with an actionable message', async () => {
    const r = await gql<any>(t.url, CREATE, { token: alice, variables: { i: { currency: 'us dollars' } } });
    expect(r.body.errors![0]!.extensions!.code).toBe('BAD_USER_INPUT');
    expect(r.body.errors![0]!.extensions!.detail).toMatch(/currency must be 2 to 10 capital letters or digits/);
    expect(r.body.errors![0]!.extensions!.fields).toEqual([expect.objectContaining({ path: 'input.currency', code: 'INVALID_FORMAT' })]);
  });

  it('wallet, balance and statement: owner and back-office yes; another customer NOT_FOUND (same as unknown)', async () => {
    const q = `query($id: ID!) { wallet(id: $id) { id currency } walletBalance(walletId: $id) { walletId available { amount currency } held { amount } total { amount } } }`;
    const own = await gql<any>(t.url, q, { token: alice, variables: { id: walletId } });
    expect(own.body.errors).toBeUndefined();
    // Money always carries the currency's minor units, as transfers do ("100.00"): a USD balance of zero is "0.00"
    expect(own.body.data.walletBalance).toEqual({
      walletId,
      available: { amount: '0.00', currency: 'USD' },
      held: { amount: '0.00' },
      total: { amount: '0.00' },
    });
    const ops = await gql<any>(t.url, q, { token: staff, variables: { id: walletId } });
    expect(ops.body.errors).toBeUndefined();

    for (const query of [
      `query($id: ID!) { wallet(id: $id) { id } }`,
      `query($id: ID!) { walletBalance(walletId: $id) { walletId } }`,
      `query($id: ID!) { walletStatement(walletId: $id) { totalCount } }`,
    ]) {
      const other = await gql<any>(t.url, query, { token: bob, variables: { id: walletId } });
      expect(other.body.data).toBeNull();
      expect(other.body.errors![0]!.extensions!.code).toBe('NOT_FOUND');
      const unknown = await gql<any>(t.url, query, { token: bob, variables: { id: '00000000-0000-4000-8000-000000000000' } });
      expect(unknown.body.errors![0]!).toMatchObject({
        message: other.body.errors![0]!.message,
        extensions: { code: 'NOT_FOUND', detail: other.body.errors![0]!.extensions!.detail },
      });
    }
  });

  it('walletStatement: empty connection with date filters; from after until → BAD_USER_INPUT', async () => {
    const q = `query($id: ID!, $from: DateTime, $until: DateTime) { walletStatement(walletId: $id, from: $from, until: $until, first: 5) { totalCount edges { node { type amount { amount currency } } } pageInfo { hasNextPage endCursor } } }`;
    const r = await gql<any>(t.url, q, {
      token: alice,
      variables: { id: walletId, from: '2020-01-01T00:00:00Z', until: '2099-01-01T00:00:00Z' },
    });
    expect(r.body.errors).toBeUndefined();
    expect(r.body.data.walletStatement).toEqual({ totalCount: 0, edges: [], pageInfo: { hasNextPage: false, endCursor: null } });
    const bad = await gql<any>(t.url, q, {
      token: alice,
      variables: { id: walletId, from: '2030-01-01T00:00:00Z', until: '2020-01-01T00:00:00Z' },
    });
    expect(bad.body.errors![0]!).toMatchObject({
      extensions: {
        code: 'BAD_USER_INPUT',
        detail: 'from must not be after until',
        fields: [expect.objectContaining({ path: 'from', code: 'OUT_OF_RANGE' })],
      },
    });
  });
});
