/** Contract tests over real HTTP: gateway token, bearer checks, FX v1/v2, person schema and person rules. */
import { http, startTestSandbox, type TestSandbox } from '../helpers/sandbox';

let sb: TestSandbox;
beforeAll(async () => {
  sb = await startTestSandbox({ options: { quoteLifetimeS: 120, gatewayTokenLifetimeS: 600 } });
});
afterAll(async () => {
  await sb.close();
});

describe('POST /oauth/token and bearer tokens', () => {
  test('default credentials give a Bearer token with its lifetime', async () => {
    const res = await sb.request('POST', '/gateway/oauth/token', { body: { clientId: 'sandbox-client', secretID: 'sandbox-secret' } });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ access_token: expect.stringMatching(/^gw_[0-9a-f]{48}$/), token_type: 'Bearer', expires_in: 600 });
  });

  test('unknown credentials → 401 INVALID_CLIENT; missing fields → 400', async () => {
    const bad = await sb.request('POST', '/gateway/oauth/token', { body: { clientId: 'sandbox-client', secretID: 'wrong' } });
    expect([bad.status, bad.body.error.code]).toEqual([401, 'INVALID_CLIENT']);
    const missing = await sb.request('POST', '/gateway/oauth/token', { body: { clientId: 'sandbox-client' } });
    expect([missing.status, missing.body.error.code]).toEqual([400, 'VALIDATION_ERROR']);
    expect(missing.body.error.details).toEqual([{ field: 'secretID', issue: 'required' }]);
  });

  test('missing, unknown and expired tokens → 401 on every endpoint', async () => {
    const endpoints: Array<[string, string]> = [
      ['POST', '/foreign-exchange'],
      ['POST', '/v2/foreign-exchange'],
      ['POST', '/wallets'],
      ['GET', '/wallets/x'],
      ['GET', '/wallets/x/balance'],
      ['GET', '/wallets/x/statement'],
      ['POST', '/person'],
      ['POST', '/person/validate'],
      ['GET', '/schema/person?countryCode=US'],
      ['POST', '/check-account'],
      ['POST', '/v2/check-card-account'],
      ['POST', '/check-card-account'],
      ['POST', '/v1/alias/directory'],
      ['GET', '/bank?bankNumber=001&countryCode=BR'],
      ['GET', '/bank/list?countryCode=BR'],
      ['GET', '/payer/balance'],
      ['POST', '/v2/payment'],
      ['POST', '/payments/x/capture'],
      ['POST', '/payments/x/void'],
    ];
    for (const [method, path] of endpoints) {
      const none = await sb.request(method, `/gateway${path}`, { body: method === 'POST' ? {} : undefined });
      expect([method, path, none.status, none.body.error.code]).toEqual([method, path, 401, 'UNAUTHORIZED']);
      expect(none.headers['www-authenticate']).toContain('Bearer');
      const unknown = await sb.request(method, `/gateway${path}`, { token: 'gw_nope', body: method === 'POST' ? {} : undefined });
      expect(unknown.status).toBe(401);
    }
    const token = await sb.gatewayToken();
    expect((await sb.request('GET', '/gateway/payer/balance', { token })).status).toBe(200);
    await sb.control.advanceClock(599);
    expect((await sb.request('GET', '/gateway/payer/balance', { token })).status).toBe(200);
    await sb.control.advanceClock(1);
    const expired = await sb.request('GET', '/gateway/payer/balance', { token });
    expect([expired.status, expired.body.error.message]).toEqual([401, 'access token expired']);
  });

  test('credentials come from options (GATEWAY_CLIENT_ID / GATEWAY_CLIENT_SECRET in sandbox.main)', async () => {
    const other = await startTestSandbox({ options: { gatewayClientId: 'svc', gatewayClientSecret: 's3cret' } });
    try {
      expect((await other.request('POST', '/gateway/oauth/token', { body: { clientId: 'svc', secretID: 's3cret' } })).status).toBe(200);
      expect(
        (await other.request('POST', '/gateway/oauth/token', { body: { clientId: 'sandbox-client', secretID: 'sandbox-secret' } })).status,
      ).toBe(401);
    } finally {
      await other.close();
    }
  });

  test('unknown gateway route → 404 in the error envelope', async () => {
    const res = await sb.gateway('GET', '/nope');
    expect([res.status, res.body.error.code]).toEqual([404, 'NOT_FOUND']);
  });
});

describe('FX quotes', () => {
  test('v1: fxId, conversionRate, quoteIdExpiryDateTime only; defaults USD→BRL', async () => {
    const before = Date.parse((await http('GET', `${sb.controlUrl}/clock`)).body.now);
    const res = await sb.gateway('POST', '/foreign-exchange', { sourceCurrencyCode: 'USD', destinationCurrencyCode: 'BRL' });
    expect(res.status).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual(['conversionRate', 'fxId', 'quoteIdExpiryDateTime']);
    expect(res.body.conversionRate).toBe(5.0123);
    const expiry = Date.parse(res.body.quoteIdExpiryDateTime);
    expect(expiry - before).toBeGreaterThanOrEqual(120_000);
    expect(expiry - before).toBeLessThan(125_000);
    const defaults = await sb.gateway('POST', '/foreign-exchange', {});
    expect(defaults.body.conversionRate).toBe(5.0123);
    const bad = await sb.gateway('POST', '/foreign-exchange', { sourceCurrencyCode: 'XXX' });
    expect([bad.status, bad.body.error.details[0].field]).toEqual([400, 'sourceCurrencyCode']);
  });

  test('v2: full shape with amounts; deterministic cross rates; destination amount only with a source amount', async () => {
    const res = await sb.gateway('POST', '/v2/foreign-exchange', {
      sourceCurrencyCode: 'USD',
      destinationCurrencyCode: 'BRL',
      paymentMethod: 'BANK_ACCOUNT',
      sourceCurrencyAmount: 250.5,
    });
    expect(res.body).toEqual({
      fxId: expect.any(String),
      conversionRate: 5.0123,
      sourceCurrencyCode: 'USD',
      sourceCurrencyAmount: 250.5,
      destinationCurrencyCode: 'BRL',
      destinationCurrencyAmount: 1255.58, // 250.5 × 5.0123 = 1255.58115
      paymentMethod: 'BANK_ACCOUNT',
      quoteIdExpiryDateTime: expect.any(String),
    });
    const noAmount = await sb.gateway('POST', '/v2/foreign-exchange', {
      sourceCurrencyCode: 'EUR',
      destinationCurrencyCode: 'JPY',
      paymentMethod: 'CARD',
    });
    expect(noAmount.body.sourceCurrencyAmount).toBeUndefined();
    expect(noAmount.body.destinationCurrencyAmount).toBeUndefined();
    const again = await sb.gateway('POST', '/v2/foreign-exchange', {
      sourceCurrencyCode: 'EUR',
      destinationCurrencyCode: 'JPY',
      paymentMethod: 'CARD',
    });
    expect(again.body.conversionRate).toBe(noAmount.body.conversionRate);
    expect(again.body.fxId).not.toBe(noAmount.body.fxId);
    expect(noAmount.body.conversionRate).toBeCloseTo(151.37 / 0.9215, 3);
    // zero-decimal currency amounts are rounded to whole units
    const jpy = await sb.gateway('POST', '/v2/foreign-exchange', {
      sourceCurrencyCode: 'USD',
      destinationCurrencyCode: 'JPY',
      paymentMethod: 'CARD',
      sourceCurrencyAmount: 10,
    });
    expect(jpy.body.destinationCurrencyAmount).toBe(1514);
  });

  test('v2: destinationCountryCode narrows the rate to a corridor (deterministic, ≤ reference)', async () => {
    const body = { sourceCurrencyCode: 'USD', destinationCurrencyCode: 'BRL', paymentMethod: 'WALLET', destinationCountryCode: 'BR' };
    const a = await sb.gateway('POST', '/v2/foreign-exchange', body);
    const b = await sb.gateway('POST', '/v2/foreign-exchange', body);
    expect(a.body.conversionRate).toBe(b.body.conversionRate);
    expect(a.body.conversionRate).toBeLessThanOrEqual(5.0123);
    expect(a.body.conversionRate).toBeGreaterThan(5.0123 * 0.997);
    expect(a.body.destinationCountryCode).toBe('BR');
  });

  test('v2 validation: required fields, paymentMethod values, currencies, country, amount', async () => {
    const none = await sb.gateway('POST', '/v2/foreign-exchange', {});
    expect(none.status).toBe(400);
    expect(none.body.error.details.map((d: any) => d.field).sort()).toEqual([
      'destinationCurrencyCode',
      'paymentMethod',
      'sourceCurrencyCode',
    ]);
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ paymentMethod: 'PAYPAL' }, 'paymentMethod'],
      [{ destinationCurrencyCode: 'ABC' }, 'destinationCurrencyCode'],
      [{ destinationCountryCode: 'BRA' }, 'destinationCountryCode'],
      [{ sourceCurrencyAmount: 0 }, 'sourceCurrencyAmount'],
      [{ sourceCurrencyAmount: '10' }, 'sourceCurrencyAmount'],
      [{ sourceCurrencyAmount: 1.234 }, 'sourceCurrencyAmount'],
    ];
    for (const [patch, field] of cases) {
      const res = await sb.gateway('POST', '/v2/foreign-exchange', {
        sourceCurrencyCode: 'USD',
        destinationCurrencyCode: 'MXN',
        paymentMethod: 'CASH',
        ...patch,
      });
      expect([patch, res.status, res.body.error.details.map((d: any) => d.field)]).toEqual([patch, 400, [field]]);
    }
    for (const method of [
      'CARD',
      'CREDIT_CARD',
      'DEBIT_CARD',
      'ACH',
      'BANK_ACCOUNT',
      'WALLET',
      'AFT',
      'CASH',
      'CHECK',
      'MONEY_ORDER',
      'OTHER',
      'VENDORA_PAY',
      'VENDORB_PAY',
    ]) {
      const res = await sb.gateway('POST', '/v2/foreign-exchange', {
        sourceCurrencyCode: 'USD',
        destinationCurrencyCode: 'PHP',
        paymentMethod: method,
      });
      expect([method, res.status]).toEqual([method, 200]);
    }
  });
});

const person = (over: Record<string, unknown> = {}, addr: Record<string, unknown> = {}) => ({
  type: 'INDIVIDUAL',
  firstName: 'Ana',
  lastName: 'Silva',
  identificationType: 'CPF',
  identification: '123.456.789-09',
  gender: 'F',
  address: {
    addressLine1: 'Av. Paulista 1000',
    city: 'São Paulo',
    state: 'SP',
    postalCode: '01310-100',
    countryCode: 'BR',
    phoneNumber: '+5511987654321',
    emailAddress: 'ana@example.com.br',
    ...addr,
  },
  ...over,
});

describe('persons', () => {
  test('GET /schema/person: country-specific rules, default for others, 400 without a valid country', async () => {
    const us = (await sb.gateway('GET', '/schema/person?countryCode=US')).body;
    expect(us).toMatchObject({ countryCode: 'US', default: false });
    expect(us.individual.requiredFields).toEqual(
      expect.arrayContaining(['firstName', 'lastName', 'identificationType', 'identification', 'address.postalCode']),
    );
    expect(us.individual.identificationTypes).toEqual(['SSN', 'TAX_ID']);
    const br = (await sb.gateway('GET', '/schema/person?countryCode=BR')).body;
    expect(br.individual.identificationTypes).toEqual(['CPF']);
    expect(br.business.identificationTypes).toEqual(['CNPJ']);
    const mx = (await sb.gateway('GET', '/schema/person?countryCode=MX')).body;
    expect(mx.individual.requiredFields).toContain('gender');
    for (const c of ['IN', 'PH', 'GB']) expect((await sb.gateway('GET', `/schema/person?countryCode=${c}`)).body.default).toBe(false);
    const fr = (await sb.gateway('GET', '/schema/person?countryCode=FR')).body;
    expect(fr.default).toBe(true);
    expect(fr.individual.requiredFields).not.toContain('identification');
    expect(fr.business.requiredFields).toContain('companyName');
    expect((await sb.gateway('GET', '/schema/person')).status).toBe(400);
    expect((await sb.gateway('GET', '/schema/person?countryCode=XX')).status).toBe(400);
  });

  test('validate approves without creating; create returns an id', async () => {
    const v = await sb.gateway('POST', '/person/validate', person());
    expect(v.body).toEqual({ type: 'INDIVIDUAL', firstName: 'Ana', lastName: 'Silva', status: 'APPROVED' });
    const c = await sb.gateway('POST', '/person', person());
    expect(c.body).toMatchObject({ id: expect.any(String), type: 'INDIVIDUAL', status: 'APPROVED' });
  });

  test('rules → HTTP 200 REJECTED with a message; lastName Rejected → REJECTED; rejected persons get no id', async () => {
    const cases: Array<[unknown, RegExp]> = [
      [person({ lastName: 'Rejected' }), /KYC/],
      [person({ firstName: undefined }), /firstName is required/],
      [person({ identificationType: 'PASSPORT' }), /identificationType must be one of CPF/],
      [person({ identification: '12345' }), /identification has an invalid format/],
      [person({}, { postalCode: 'ABC' }), /postalCode/],
      [person({}, { city: '' }), /address.city is required/],
      [person({}, { phoneNumber: '12' }), /phoneNumber/],
      [person({}, { emailAddress: 'nope' }), /emailAddress/],
      [person({ gender: 'X' }), /gender/],
      [person({ type: 'ROBOT' }), /type/],
      [{ type: 'BUSINESS', address: person().address }, /companyName is required/],
      [
        person(
          { identificationType: 'SSN', identification: '123-45-6789' },
          { countryCode: 'US', state: 'California', postalCode: '94105' },
        ),
        /2-letter state/,
      ],
      [
        person(
          { gender: undefined, identificationType: 'NATIONAL_ID', identification: 'GODE561231HDFRRN09' },
          { countryCode: 'MX', postalCode: '06600' },
        ),
        /gender is required/,
      ],
      [
        person({ identificationType: 'TAX_ID', identification: 'ABCDE1234' }, { countryCode: 'IN', postalCode: '400001' }),
        /identification/,
      ],
    ];
    for (const [body, message] of cases) {
      const res = await sb.gateway('POST', '/person', body);
      expect(res.status).toBe(200);
      expect(res.body.status).toBe('REJECTED');
      expect(res.body.message).toMatch(message);
      expect(res.body.id).toBeUndefined();
    }
    const okUs = await sb.gateway(
      'POST',
      '/person/validate',
      person({ identificationType: 'SSN', identification: '123-45-6789' }, { countryCode: 'US', state: 'CA', postalCode: '94105' }),
    );
    expect(okUs.body.status).toBe('APPROVED');
    const okBusiness = await sb.gateway('POST', '/person', {
      type: 'BUSINESS',
      companyName: 'Padaria Ltda',
      identificationType: 'CNPJ',
      identification: '12.345.678/0001-95',
      address: person().address,
    });
    expect(okBusiness.body).toMatchObject({ type: 'BUSINESS', companyName: 'Padaria Ltda', status: 'APPROVED', id: expect.any(String) });
    const noAddress = await sb.gateway('POST', '/person/validate', { firstName: 'A', lastName: 'B' });
    expect(noAddress.body.status).toBe('APPROVED');
    const notObject = await sb.gateway('POST', '/person', [1, 2]);
    expect([notObject.status, notObject.body.error.code]).toEqual([400, 'INVALID_REQUEST']);
  });
});
