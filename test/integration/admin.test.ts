import { gql, startTestApp, type TestApp } from '../helpers/app';
import { formatAmount } from '../../src/shared/money';

let t: TestApp;
let admin: string;
let staff: string;

beforeAll(async () => {
  t = await startTestApp({ CARD_CHECK_LEGACY_ENABLED: 'true' });
  [admin, staff] = await Promise.all([t.token('root', 'admin'), t.token('ops', 'backoffice')]);
}, 90_000);
afterAll(() => t?.close());

describe('back-office', () => {
  it("payerBalances: amounts as decimal strings with the currency's minor units", async () => {
    const r = await gql<any>(t.url, `{ payerBalances { providerId balances { amount currency } } }`, { token: staff });
    expect(r.body.errors).toBeUndefined();
    expect(r.body.data.payerBalances.length).toBeGreaterThan(0);
    for (const p of r.body.data.payerBalances)
      for (const b of p.balances) {
        expect(typeof b.amount).toBe('string');
        expect(b.amount).toMatch(/^-?\d+(\.\d+)?$/);
        expect(b.amount).toBe(formatAmount(b.amount, b.currency)); // e.g. "1000000.00" USD, never "1000000"
      }
  });

  it('createAgent shows the API key once; agents lists it without the key; nothing stores or logs it', async () => {
    const r = await gql<any>(
      t.url,
      `mutation($i: CreateAgentInput!) { createAgent(input: $i) { apiKey agent { id email businessName status createdBy } } }`,
      {
        token: admin,
        variables: { i: { email: 'agent@example.com', businessName: 'Corner Shop Ltd', externalId: 'shop-1' } },
      },
    );
    expect(r.body.errors).toBeUndefined();
    const { apiKey, agent } = r.body.data.createAgent;
    expect(apiKey.length).toBeGreaterThan(10);
    expect(agent).toMatchObject({
      email: 'agent@example.com',
      businessName: 'Corner Shop Ltd',
      status: 'PENDING_APPROVAL',
      createdBy: 'root',
    });

    const list = await gql<any>(t.url, `{ agents(first: 10) { totalCount edges { node { id businessName status } } } }`, { token: staff });
    expect(list.body.data.agents.totalCount).toBe(1);
    expect(list.body.data.agents.edges[0].node.id).toBe(agent.id);
    expect(JSON.stringify(list.body)).not.toContain(apiKey);

    const row = await t.app.db.prisma.agent.findUnique({ where: { id: agent.id } });
    expect(JSON.stringify(row)).not.toContain(apiKey);
    expect(t.logs.join('\n')).not.toContain(apiKey);
  });

  it('createAgent: invalid e-mail → BAD_USER_INPUT without echoing it', async () => {
    const r = await gql<any>(t.url, `mutation { createAgent(input: { email: "not-an-email", businessName: "X" }) { apiKey } }`, {
      token: admin,
    });
    expect(r.body.errors![0]!.extensions!.code).toBe('BAD_USER_INPUT');
    expect(r.body.errors![0]!.extensions!.detail).toMatch(/email must be an e-mail address/);
    expect(r.body.errors![0]!.extensions!.fields).toEqual([expect.objectContaining({ path: 'input.email', code: 'INVALID_FORMAT' })]);
    expect(JSON.stringify(r.body)).not.toContain('not-an-email');
  });
});

describe('checkCardLegacy (enabled by configuration)', () => {
  const M = `mutation($i: CheckCardLegacyInput!) { checkCardLegacy(input: $i) { paymentId status redirectUrl avsResult cvcResult cardholderNameResult reasonCode } }`;
  const input = (cardToken: string, key: string) => ({ idempotencyKey: key, cardToken, firstName: 'Ana', lastName: 'Silva' });

  it('approved and challenge are results (typed as documented)', async () => {
    const customer = await t.token('card-owner', 'customer');
    const ok = await gql<any>(t.url, M, { token: customer, variables: { i: input('aaaaaaaa-bbbb-4ccc-8ddd-000000001234', 'k1') } });
    expect(ok.body.errors).toBeUndefined();
    expect(ok.body.data.checkCardLegacy.status).toBe('APPROVED');
    const again = await gql<any>(t.url, M, { token: customer, variables: { i: input('aaaaaaaa-bbbb-4ccc-8ddd-000000001234', 'k1') } });
    expect(again.body.data.checkCardLegacy.status).toBe('APPROVED');
    const challenge = await gql<any>(t.url, M, { token: customer, variables: { i: input('aaaaaaaa-bbbb-4ccc-8ddd-000000000002', 'k2') } });
    expect(challenge.body.data.checkCardLegacy).toMatchObject({ status: 'CHALLENGE' });
    expect(challenge.body.data.checkCardLegacy.redirectUrl).toMatch(/^http/);
  });

  it('a card number instead of a token → BAD_USER_INPUT, not echoed', async () => {
    const customer = await t.token('card-owner', 'customer');
    const r = await gql<any>(t.url, M, { token: customer, variables: { i: input('4111111111111111', 'k3') } });
    expect(r.body.errors![0]!.extensions!.code).toBe('BAD_USER_INPUT');
    expect(JSON.stringify(r.body)).not.toContain('4111111111111111');
  });
});
