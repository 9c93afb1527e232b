/**
 * The remittances platform's "other endpoints" through GraphQL (src/modules/platform), against the built-in
 * sandbox over real HTTP: each operation reaches its endpoint (asserted on the sandbox's call log) and
 * answers the platform's resource; refusals map to BAD_USER_INPUT / NOT_FOUND; FX transaction creation is
 * idempotent by externalTransactionId. Roles are covered by roles.test.ts.
 */
import { gql, startTestApp, type TestApp } from '../helpers/app';
import { clearSandboxCalls, sandboxCalls } from '../helpers/surface';

let t: TestApp;
let admin: string;
let backoffice: string;

beforeAll(async () => {
  t = await startTestApp({ RATE_LIMIT_MUTATIONS_PER_MINUTE: '1000', RATE_LIMIT_UPSTREAM_POINTS_PER_MINUTE: '1000' });
  admin = await t.token('platform-admin', 'admin');
  backoffice = await t.token('platform-backoffice', 'backoffice');
}, 90_000);
afterAll(() => t?.close());

/** Runs an operation that must succeed; returns its data. */
async function ok<T = any>(query: string, variables?: Record<string, unknown>, token = admin): Promise<T> {
  const r = await gql<T>(t.url, query, { token, variables });
  expect({ query, errors: r.body.errors }).toEqual({ query, errors: undefined });
  return r.body.data as T;
}

/** The sandbox calls made while `run` ran, as "METHOD /path" (service prefix and query string dropped). */
async function callsDuring(run: () => Promise<void>): Promise<string[]> {
  await clearSandboxCalls(t);
  await run();
  return (await sandboxCalls(t, '/remittances')).map((c) => `${c.method} ${c.path.replace(/^\/remittances/, '').split('?')[0]}`);
}

describe('platform people, compliance, documents, addresses', () => {
  let personId: string;

  it('createPlatformPerson → POST /people; platformPerson → GET /organizations/{t}/people/{id}; updatePlatformPerson → PATCH /people/{id}', async () => {
    const calls = await callsDuring(async () => {
      const created = await ok(`mutation($p: JSONObject!) { createPlatformPerson(person: $p) }`, {
        p: { firstName: 'Ana', lastName: 'Souza', email: 'ana@example.com', dateOfBirth: '1990-01-01' },
      });
      personId = created.createPlatformPerson.id;
      expect(created.createPlatformPerson).toMatchObject({ firstName: 'Ana', lastName: 'Souza', status: 'ACTIVE' });
      const read = await ok(`query($id: ID!) { platformPerson(id: $id) }`, { id: personId }, backoffice);
      expect(read.platformPerson.id).toBe(personId);
      const updated = await ok(`mutation($id: ID!) { updatePlatformPerson(id: $id, patch: { phone: "+5511999990000" }) }`, {
        id: personId,
      });
      expect(updated.updatePlatformPerson).toMatchObject({ id: personId, phone: '+5511999990000', lastName: 'Souza' });
    });
    expect(calls).toEqual(['POST /people', `GET /organizations/sandbox-tenant/people/${personId}`, `PATCH /people/${personId}`]);
  });

  it("invalid person → BAD_USER_INPUT with the platform's reason; unknown person → NOT_FOUND", async () => {
    const bad = await gql<any>(t.url, `mutation { createPlatformPerson(person: { firstName: "NoLastName" }) }`, { token: admin });
    expect(bad.body.errors![0]!.extensions!.code).toBe('BAD_USER_INPUT');
    expect(bad.body.errors![0]!.extensions!.detail).toMatch(/remittances platform refused the request/);
    const missing = await gql<any>(t.url, `{ platformPerson(id: "00000000-0000-4000-8000-000000000000") }`, { token: admin });
    expect(missing.body.errors![0]!.extensions!.code).toBe('NOT_FOUND');
  });

  it('platformComplianceLevels → GET /participants/{id}/complianceLevels; uploadPlatformDocument → POST /people/{id}/documents[/{type}]', async () => {
    const calls = await callsDuring(async () => {
      const levels = await ok(`query($id: ID!) { platformComplianceLevels(participantId: $id) }`, { id: personId });
      expect(levels.platformComplianceLevels).toMatchObject({ participantId: personId });
      const doc = await ok(
        `mutation($id: ID!) { uploadPlatformDocument(personId: $id, document: { documentType: "PASSPORT", fileName: "p.pdf" }) }`,
        { id: personId },
      );
      expect(doc.uploadPlatformDocument).toMatchObject({ entityId: personId, documentType: 'PASSPORT', verificationStatus: 'PENDING' });
      const typed = await ok(
        `mutation($id: ID!) { uploadPlatformDocument(personId: $id, documentType: "DRIVERS_LICENSE", document: { fileName: "d.pdf" }) }`,
        { id: personId },
      );
      expect(typed.uploadPlatformDocument.documentType).toBe('DRIVERS_LICENSE');
    });
    expect(calls).toEqual([
      `GET /participants/${personId}/complianceLevels`,
      `POST /people/${personId}/documents`,
      `POST /people/${personId}/documents/DRIVERS_LICENSE`,
    ]);
  });

  it('platformAddressCheck → GET /addresses/check; an incomplete address is refused before the platform', async () => {
    const calls = await callsDuring(async () => {
      const r = await ok(
        `{ platformAddressCheck(address: { line1: " 1 Main St ", city: "Springfield", region: "California", regionCode: "ca", postalCode: "94105", countryCode: "US" }) }`,
        undefined,
        backoffice,
      );
      expect(r.platformAddressCheck).toMatchObject({
        valid: true,
        problems: [],
        normalized: { line1: '1 Main St', state: 'CA', country: 'US' },
      });
      // AddressInput requires city, region, postalCode and countryCode: the API refuses, the platform is not asked
      const incomplete = await gql<any>(t.url, `{ platformAddressCheck(address: { line1: "1 Main St" }) }`, { token: backoffice });
      expect(incomplete.body.errors?.[0]?.extensions?.code).toBe('GRAPHQL_VALIDATION_FAILED');
    });
    expect(calls).toEqual(['GET /addresses/check']);
  });

  it('payout: quote, funding account, recipient account (agent endpoints)', async () => {
    const calls = await callsDuring(async () => {
      const q = await ok(
        `mutation { createPlatformPayoutQuote(request: { sourceCurrency: "USD", destinationCurrency: "BRL", sourceAmount: "100.00", destinationCountry: "BR" }) }`,
      );
      expect(q.createPlatformPayoutQuote).toMatchObject({ sourceCurrency: 'USD', destinationCurrency: 'BRL', rate: '5.0123' });
      const f = await ok(
        `mutation($id: ID!) { createPlatformFundingAccount(participantId: $id, account: { type: "BANK_ACCOUNT", accountNumber: "000123456789" }) }`,
        { id: personId },
        backoffice,
      );
      expect(f.createPlatformFundingAccount).toMatchObject({
        participantId: personId,
        type: 'BANK_ACCOUNT',
        status: 'ACTIVE',
        last4: '6789',
      });
      const r = await ok(
        `mutation($id: ID!) { createPlatformRecipientAccount(participantId: $id, account: { pixKey: "ana@example.com" }) }`,
        { id: personId },
      );
      expect(r.createPlatformRecipientAccount).toMatchObject({ participantId: personId, provider: 'gateway', status: 'ACTIVE' });
    });
    expect(calls).toEqual([
      'POST /payout/quotes',
      `POST /payout/participants/${personId}/fundingAccounts`,
      `POST /payout/participants/${personId}/recipientAccounts/gateway`,
    ]);
  });
});

describe('platform reference data', () => {
  it('destinations, banks, schemas', async () => {
    const calls = await callsDuring(async () => {
      const d = await ok(`{ platformPayoutDestinations }`, undefined, backoffice);
      expect(d.platformPayoutDestinations.destinations).toContainEqual(expect.objectContaining({ country: 'BR', currency: 'BRL' }));
      const b = await ok(`{ platformPayoutBanks(countryCode: "br") }`, undefined, backoffice);
      expect(b.platformPayoutBanks.banks).toContainEqual({ code: '001', name: 'Banco do Brasil' });
      const s = await ok(`{ platformPayoutSchema(kind: RECIPIENT, countryCode: "BR") }`, undefined, backoffice);
      expect(s.platformPayoutSchema).toMatchObject({ kind: 'recipient' });
      expect(s.platformPayoutSchema.fields).toContainEqual(expect.objectContaining({ name: 'lastName', required: true }));
    });
    expect(calls).toEqual(['GET /payout/destinations', 'GET /payout/destinations/BR/banks', 'GET /payout/schemas/recipient']);
    const bad = await gql<any>(t.url, `{ platformPayoutBanks(countryCode: "Brazil") }`, { token: admin });
    expect(bad.body.errors![0]!.extensions!.code).toBe('BAD_USER_INPUT');
  });
});

describe('platform FX transactions', () => {
  const ext = `ops-fx-${Date.now()}`;
  let txId: string;

  it('create (idempotent by externalTransactionId), get, list, status history, limits', async () => {
    const create = `mutation($ext: String!) { createPlatformFxTransaction(input: { externalTransactionId: $ext, amount: { amount: "250.00", currency: "USD" }, metadata: { ticket: "OPS-1" } }) }`;
    const calls = await callsDuring(async () => {
      const first = await ok(create, { ext });
      txId = first.createPlatformFxTransaction.transactionId;
      expect(first.createPlatformFxTransaction).toMatchObject({ externalTransactionId: ext, status: 'Created' });
      const again = await ok(create, { ext });
      expect(again.createPlatformFxTransaction.transactionId).toBe(txId);
      expect(
        (await ok(`query($id: ID!) { platformFxTransaction(id: $id) }`, { id: ext }, backoffice)).platformFxTransaction.transactionId,
      ).toBe(txId);
      const list = await ok(
        `query($ext: String!) { platformFxTransactions(externalTransactionId: $ext, first: 5) { totalCount edges { cursor node } pageInfo { hasNextPage } } }`,
        { ext },
        backoffice,
      );
      expect(list.platformFxTransactions.totalCount).toBe(1);
      expect(list.platformFxTransactions.edges[0].node.transactionId).toBe(txId);
      const history = await ok(`query($id: ID!) { platformFxTransactionStatusHistory(id: $id) }`, { id: txId }, backoffice);
      expect(history.platformFxTransactionStatusHistory.history[0]).toMatchObject({ newStatus: 'Created' });
      const limits = await ok(`{ platformFxTransactionLimits }`, undefined, backoffice);
      expect(limits.platformFxTransactionLimits).toMatchObject({ currency: 'USD', perTransaction: { min: '1.00' } });
    });
    const fx = '/organizations/sandbox-tenant/fx/transactions';
    expect(calls).toEqual([
      `POST ${fx}`,
      `POST ${fx}`, // 409: the reference exists …
      `GET ${fx}/${ext}`, // … so it is read back
      `GET ${fx}/${ext}`,
      `GET ${fx}`,
      `GET ${fx}/${txId}/statusHistory`,
      `GET ${fx}/limits`,
    ]);
  });

  it('pages of the list are a Relay connection over limit/offset', async () => {
    for (let i = 0; i < 3; i++)
      await ok(`mutation($e: String!) { createPlatformFxTransaction(input: { externalTransactionId: $e }) }`, { e: `${ext}-p${i}` });
    const q = `query($after: String) { platformFxTransactions(first: 2, after: $after) { totalCount edges { node } pageInfo { hasNextPage endCursor } } }`;
    const p1 = (await ok(q, {})).platformFxTransactions;
    expect(p1.edges).toHaveLength(2);
    expect(p1.totalCount).toBeGreaterThanOrEqual(4);
    expect(p1.pageInfo.hasNextPage).toBe(true);
    const p2 = (await ok(q, { after: p1.pageInfo.endCursor })).platformFxTransactions;
    const ids1 = p1.edges.map((e: any) => e.node.transactionId);
    for (const e of p2.edges) expect(ids1).not.toContain(e.node.transactionId);
  });

  it('metadata: replace, merge, read; cancel', async () => {
    const calls = await callsDuring(async () => {
      await ok(`mutation($id: ID!) { setPlatformFxTransactionMetadata(id: $id, metadata: { a: 1 }) }`, { id: txId });
      await ok(`mutation($id: ID!) { setPlatformFxTransactionMetadata(id: $id, metadata: { b: "two" }, mode: MERGE) }`, { id: txId });
      const m = await ok(`query($id: ID!) { platformFxTransactionMetadata(id: $id) }`, { id: txId }, backoffice);
      expect(m.platformFxTransactionMetadata.metadata).toEqual({ a: 1, b: 'two' });
      const c = await ok(`mutation($id: ID!) { cancelPlatformFxTransaction(id: $id) }`, { id: txId });
      expect(c.cancelPlatformFxTransaction.transactionId).toBe(txId);
    });
    const base = `/organizations/sandbox-tenant/fx/transactions/${txId}`;
    expect(calls).toEqual([`PUT ${base}/metadata`, `PATCH ${base}/metadata`, `GET ${base}/metadata`, `POST ${base}/cancel`]);
  });
});

describe('platform wallets and the legacy agent endpoint', () => {
  it('platformWallets, platformWallet, depositToPlatformWallet', async () => {
    const calls = await callsDuring(async () => {
      const before = await ok(`{ platformWallet(currency: "EUR") }`, undefined, backoffice);
      const dep = await ok(`mutation { depositToPlatformWallet(amount: { amount: "100.50", currency: "EUR" }) }`);
      expect(Number(dep.depositToPlatformWallet.available)).toBeCloseTo(Number(before.platformWallet.available) + 100.5, 2);
      const all = await ok(`{ platformWallets }`, undefined, backoffice);
      expect(all.platformWallets.wallets.map((w: any) => w.currency)).toEqual(expect.arrayContaining(['EUR', 'USD']));
    });
    const w = '/organizations/sandbox-tenant/wallets';
    expect(calls).toEqual([`GET ${w}/EUR`, `POST ${w}/EUR/deposits`, `GET ${w}`]);
    // one money input shape everywhere: a zero amount, too many decimals for the currency, a bad currency — refused
    // before any upstream call
    const refused = await callsDuring(async () => {
      for (const amount of [
        '{ amount: "0", currency: "EUR" }',
        '{ amount: "1.005", currency: "EUR" }',
        '{ amount: "10", currency: "eur" }',
        '{ amount: "1.5", currency: "JPY" }',
      ]) {
        const bad = await gql<any>(t.url, `mutation { depositToPlatformWallet(amount: ${amount}) }`, { token: admin });
        expect(bad.body.errors![0]!.extensions!.code).toBe('BAD_USER_INPUT');
      }
      const fx = await gql<any>(
        t.url,
        `mutation { createPlatformFxTransaction(input: { externalTransactionId: "bad-amount", amount: { amount: "-1", currency: "USD" } }) }`,
        { token: admin },
      );
      expect(fx.body.errors![0]!.extensions!.code).toBe('BAD_USER_INPUT');
    });
    expect(refused).toEqual([]);
  });

  it('createAgentLegacy → POST /agents; the API key is answered once and the agent is listed by `agents`', async () => {
    const calls = await callsDuring(async () => {
      const r = await ok(
        `mutation { createAgentLegacy(input: { email: "legacy@example.com", businessName: "Legacy Ltd" }) { apiKey agent { id businessName status createdBy } } }`,
      );
      expect(r.createAgentLegacy.apiKey).toEqual(expect.any(String));
      expect(r.createAgentLegacy.agent).toMatchObject({ businessName: 'Legacy Ltd', createdBy: 'platform-admin' });
      const list = await ok(`{ agents(first: 5) { edges { node { id businessName } } } }`, undefined, backoffice);
      expect(list.agents.edges.map((e: any) => e.node.id)).toContain(r.createAgentLegacy.agent.id);
    });
    expect(calls).toEqual(['POST /agents']);
  });
});
