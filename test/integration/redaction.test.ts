import { gql, startTestApp, type TestApp } from '../helpers/app';
import { createTransfer, newQuote, personInput, transferInput, waitForStatus } from '../e2e/transfer-helpers';

let t: TestApp;

beforeAll(async () => {
  // debug: the upstream clients log every request and response (through the redaction rules)
  t = await startTestApp({ LOG_LEVEL: 'debug', CARD_CHECK_LEGACY_ENABLED: 'true' });
}, 90_000);
afterAll(() => t?.close());

describe('no secrets or PII in the logs of a full flow of the directory, wallet, verification and admin operations', () => {
  it('card token, alias key, document and account numbers, API keys, client secrets, bearer tokens: none logged', async () => {
    const customer = await t.token('redaction-customer', 'customer');
    const admin = await t.token('redaction-admin', 'admin');
    const cardToken = 'aaaaaaaa-bbbb-4ccc-8ddd-00000000c0de';
    const cpf = '39053344705';
    const email = 'agent-redaction@example.com';

    const ops: [string, string, Record<string, unknown>?][] = [
      [customer, `{ fxQuoteV1(sourceCurrency: "USD", destinationCurrency: "BRL") { rate } }`],
      [customer, `{ personRequirements(countryCode: "BR") { countryCode } }`],
      [
        customer,
        `query($k: String!) { resolveAlias(countryCode: "BR", keyType: "CPF", key: $k) { ... on AliasFound { account { accountNumberMasked bank { name } } holder { documentMasked } } } }`,
        { k: cpf },
      ],
      [customer, `query($k: String!) { resolveAlias(countryCode: "BR", keyType: "CPF", key: $k) { __typename } }`, { k: '00000000000' }],
      [customer, `{ banks(countryCode: "BR", first: 3) { totalCount } bank(countryCode: "BR", bankCode: "001") { name } }`],
      [customer, `mutation { startVerificationSession { id } }`],
      [customer, `mutation { createWallet(input: { currency: "USD" }) { id } }`],
      [
        customer,
        `mutation($i: CheckCardLegacyInput!) { checkCardLegacy(input: $i) { status } }`,
        { i: { idempotencyKey: 'r1', cardToken, firstName: 'Ana', lastName: 'Silva', email: 'ana@example.com' } },
      ],
      [admin, `{ payerBalances { providerId } }`],
      [admin, `mutation($i: CreateAgentInput!) { createAgent(input: $i) { apiKey } }`, { i: { email, businessName: 'Redaction Shop' } }],
    ];
    let apiKey = '';
    const aliasMasked: string[] = [];
    for (const [token, q, variables] of ops) {
      const r = await gql<any>(t.url, q, { token, variables });
      expect({ q, errors: r.body.errors }).toEqual({ q, errors: undefined });
      if (r.body.data.createAgent) apiKey = r.body.data.createAgent.apiKey;
      if (r.body.data.resolveAlias?.account) aliasMasked.push(r.body.data.resolveAlias.account.accountNumberMasked);
    }
    expect(apiKey).not.toBe('');

    const logs = t.logs.join('\n');
    expect(logs).toMatch(/alias\/directory|lookupAlias/); // the upstream calls were logged (debug), so the checks below mean something
    expect(logs).toMatch(/createAgent/);
    const forbidden = {
      cardToken,
      cpf,
      agentApiKey: apiKey,
      gatewaySecret: t.app.config.gateway.clientSecret,
      remittancesApiKey: t.app.config.remittances.apiKey,
      agentKey: t.app.config.remittances.agentApiKey,
      verificationSecret: t.app.config.verification.clientSecret,
      customerJwt: customer,
      adminJwt: admin,
      agentEmail: email,
    };
    const found = Object.entries(forbidden)
      .filter(([, v]) => logs.includes(v))
      .map(([k]) => k);
    expect(found).toEqual([]);
    // no upstream bearer token either (they look like long base64url strings after "Bearer ")
    expect(logs).not.toMatch(/Bearer [A-Za-z0-9._-]{20,}/);
  });
});

describe('no secrets or PII in the logs of a full transfer flow', () => {
  it('card token, bank account and routing numbers, document numbers, names and contact data: none logged', async () => {
    const customer = await t.token('redaction-sender', 'customer');
    const staff = await t.token('redaction-ops', 'backoffice');
    const person = { ...personInput(), identification: '445-66-7788', email: 'sender-pii@example.com', phoneNumber: '+14155550177' };
    const created = await gql<any>(t.url, `mutation($i: PersonInput!) { createPerson(input: $i) { id status } }`, {
      token: customer,
      variables: { i: person },
    });
    expect(created.body.errors).toBeUndefined();
    expect(created.body.data.createPerson.status).toBe('APPROVED'); // an identification of the US format (else REJECTED, no id)
    const personId = created.body.data.createPerson.id as string;

    // A bank-account check with raw details (account and routing numbers; the holder's document, e-mail and phone)
    const accountNumber = '123456789012';
    const routingNumber = '011000015';
    const check = await gql<any>(t.url, `mutation($i: CheckBankAccountInput!) { checkBankAccount(input: $i) { __typename } }`, {
      token: customer,
      variables: {
        i: {
          personId, // the holder: the person above (its document number, e-mail and phone go to the gateway)
          account: { type: 'BANK_ACCOUNT', accountType: 'CHECKING', accountNumber, routingNumber, countryCode: 'US' },
        },
      },
    });
    // the exact input shape belongs to the checks module; what matters here is that it ran or was refused cleanly
    expect({ errors: check.body.errors }).toEqual({ errors: undefined });

    // A card-funded transfer to COMPLETED (webhooks, capture, payout), all at debug level
    const cardToken = 'aaaaaaaa-bbbb-4ccc-8ddd-00000000f00d';
    const quoteId = await newQuote(t.url, customer);
    const input = transferInput({ quoteId, personId, key: 'redaction-transfer-1', funding: { type: 'CARD', cardToken } });
    // the sender (and its identification, 445-66-7788) is the person's
    const r = await createTransfer(t.url, customer, input);
    expect(r.body.errors).toBeUndefined();
    await waitForStatus(t, staff, r.body.data.createTransfer.id, ['COMPLETED'], 60_000);

    const logs = t.logs.join('\n');
    expect(logs).toMatch(/v2\/payment|createPayment/); // the payment call was logged (debug), so the checks below mean something
    const forbidden = {
      cardToken,
      accountNumber,
      routingNumber,
      senderDocument: '445-66-7788',
      identification: '987-65-4321',
      email: 'sender-pii@example.com',
      phone: '4155550177',
      pixKey: 'maria@example.com',
      customerJwt: customer,
      gatewaySecret: t.app.config.gateway.clientSecret,
      remittancesApiKey: t.app.config.remittances.apiKey,
    };
    const found = Object.entries(forbidden)
      .filter(([, v]) => logs.includes(v))
      .map(([k]) => k);
    expect(found).toEqual([]);
  }, 120_000);
});
