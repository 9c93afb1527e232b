/** Contract tests over real HTTP: alias directory (countries, key types, not-found magic, quota), bank directory, payer balance. */
import { startTestSandbox, type TestSandbox } from '../helpers/sandbox';
import { isAbaRoutingNumber } from '@remittance-bff/sandbox';

let sb: TestSandbox;
beforeAll(async () => {
  sb = await startTestSandbox({ options: { aliasQuotaPerMinute: 1000 } });
});
afterAll(async () => {
  await sb.close();
});

describe('POST /v1/alias/directory', () => {
  const valid: Array<[string, string, string, string]> = [
    ['BRA', 'CPF', '12345678909', 'PIX'],
    ['BRA', 'CNPJ', '12345678000195', 'PIX'],
    ['BRA', 'EMAIL', 'ana@example.com.br', 'PIX'],
    ['BRA', 'PHONE', '+5511987654321', 'PIX'],
    ['BRA', 'EVP', '123e4567-e89b-42d3-a456-426614174000', 'PIX'],
    ['IND', 'VPA', 'priya@okbank', 'UPI'],
    ['IND', 'MOBILE', '9876543210', 'UPI'],
    ['IND', 'AADHAAR', '123412341234', 'UPI'],
    ['SGP', 'NRIC_FIN', 'S1234567D', 'PayNow'],
    ['SGP', 'UEN', '201912345K', 'PayNow'],
    ['SGP', 'MOBILE', '+6591234567', 'PayNow'],
    ['SGP', 'VPA', 'marcus@dbs', 'PayNow'],
    ['THA', 'CITIZEN_ID', '1101700230708', 'PromptPay'],
    ['THA', 'PHONE', '0812345678', 'PromptPay'],
    ['THA', 'TAX_ID', '0105536092641', 'PromptPay'],
    ['PHL', 'MOBILE', '09171234567', 'InstaPay'],
    ['PHL', 'EMAIL', 'juan@example.ph', 'InstaPay'],
    ['PHL', 'ACCOUNT_NUMBER', '001234567890', 'InstaPay'],
  ];

  test.each(valid)('%s %s found, deterministic masked data', async (countryCode, keyType, key, system) => {
    const res = await sb.gateway('POST', '/v1/alias/directory', { countryCode, keyType, key });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ found: true, countryCode, system, keyType, key });
    expect(res.body.account).toMatchObject({
      bankCode: expect.any(String),
      bankName: expect.any(String),
      accountType: expect.stringMatching(/^(CHECKING|SAVINGS)$/),
      accountNumber: expect.stringMatching(/^\*+\d{4}$/),
    });
    expect(res.body.holder).toMatchObject({
      name: expect.any(String),
      documentType: expect.any(String),
      type: expect.stringMatching(/^(INDIVIDUAL|BUSINESS)$/),
    });
    expect(res.body.holder.document).toContain('*');
    const again = await sb.gateway('POST', '/v1/alias/directory', { countryCode, keyType, key });
    expect(again.body).toEqual(res.body);
  });

  test('business keys are BUSINESS holders; Brazil has branch codes, India IFSC', async () => {
    const cnpj = await sb.gateway('POST', '/v1/alias/directory', { countryCode: 'BRA', keyType: 'CNPJ', key: '12345678000195' });
    expect(cnpj.body.holder).toMatchObject({ type: 'BUSINESS', documentType: 'CNPJ' });
    const cpf = await sb.gateway('POST', '/v1/alias/directory', { countryCode: 'BRA', keyType: 'CPF', key: '12345678909' });
    expect(cpf.body.holder).toMatchObject({ type: 'INDIVIDUAL', documentType: 'CPF' });
    expect(cpf.body.account.branchCode).toMatch(/^\d{4}$/);
    const upi = await sb.gateway('POST', '/v1/alias/directory', { countryCode: 'IND', keyType: 'VPA', key: 'priya@okbank' });
    expect(upi.body.account.branchCode).toMatch(/^[A-Z]{4}0\d{6}$/);
  });

  test('key 00000000000 → HTTP 400 found:false with the documented fields', async () => {
    const res = await sb.gateway('POST', '/v1/alias/directory', { countryCode: 'BRA', keyType: 'CPF', key: '00000000000' });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      found: false,
      countryCode: 'BRA',
      system: 'PIX',
      keyType: 'CPF',
      key: '00000000000',
      message: expect.any(String),
    });
    const phl = await sb.gateway('POST', '/v1/alias/directory', { countryCode: 'PHL', keyType: 'EMAIL', key: '00000000000' });
    expect(phl.body).toMatchObject({ found: false, system: 'InstaPay' });
  });

  test('unknown country/keyType combinations, bad key formats, missing fields → 400 VALIDATION_ERROR', async () => {
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ countryCode: 'USA', keyType: 'EMAIL', key: 'a@b.co' }, 'countryCode'],
      [{ countryCode: 'BR', keyType: 'CPF', key: '12345678909' }, 'countryCode'],
      [{ countryCode: 'BRA', keyType: 'VPA', key: 'x@y' }, 'keyType'],
      [{ countryCode: 'IND', keyType: 'CPF', key: '12345678909' }, 'keyType'],
      [{ countryCode: 'BRA', keyType: 'CPF', key: '123' }, 'key'],
      [{ countryCode: 'THA', keyType: 'PHONE', key: '12' }, 'key'],
      [{ countryCode: 'BRA', keyType: 'CPF' }, 'key'],
    ];
    for (const [body, field] of cases) {
      const res = await sb.gateway('POST', '/v1/alias/directory', body);
      expect([body, res.status, res.body.error?.code, res.body.error?.details?.map((d: any) => d.field)]).toEqual([
        body,
        400,
        'VALIDATION_ERROR',
        [field],
      ]);
    }
  });
});

describe('alias directory quota', () => {
  test('options.aliasQuotaPerMinute per client, by the sandbox clock → 429 with Retry-After', async () => {
    const limited = await startTestSandbox({ options: { aliasQuotaPerMinute: 3 } });
    try {
      const lookup = () => limited.gateway('POST', '/v1/alias/directory', { countryCode: 'BRA', keyType: 'CPF', key: '12345678909' });
      for (let i = 0; i < 3; i++) expect((await lookup()).status).toBe(200);
      const over = await lookup();
      expect([over.status, over.body.error.code]).toEqual([429, 'RATE_LIMITED']);
      expect(Number(over.headers['retry-after'])).toBeGreaterThanOrEqual(1);
      expect(Number(over.headers['retry-after'])).toBeLessThanOrEqual(60);
      expect((await lookup()).status).toBe(429); // refused lookups do not count, still over
      await limited.control.advanceClock(61);
      expect((await lookup()).status).toBe(200);
    } finally {
      await limited.close();
    }
  });
});

describe('bank directory', () => {
  test('GET /bank by national code; 404 unknown; 400 missing params; alpha-3 accepted', async () => {
    const bb = await sb.gateway('GET', '/bank?bankNumber=001&countryCode=BR');
    expect(bb.body).toEqual({ bankCode: '001', bankName: 'Banco do Brasil S.A.', countryCode: 'BR', swift: 'BRASBRRJ' });
    expect((await sb.gateway('GET', '/bank?bankNumber=001&countryCode=BRA')).body.bankCode).toBe('001');
    const chase = await sb.gateway('GET', '/bank?bankNumber=021000021&countryCode=US');
    expect(chase.body.bankName).toMatch(/Chase/);
    const hdfc = await sb.gateway('GET', '/bank?bankNumber=HDFC&countryCode=IN');
    expect(hdfc.body.swift).toBe('HDFCINBB');
    const missing = await sb.gateway('GET', '/bank?bankNumber=999&countryCode=BR');
    expect([missing.status, missing.body.error.code]).toEqual([404, 'BANK_NOT_FOUND']);
    const bad = await sb.gateway('GET', '/bank?bankNumber=001');
    expect([bad.status, bad.body.error.details]).toEqual([400, [{ field: 'countryCode', issue: 'required' }]]);
    expect((await sb.gateway('GET', '/bank?countryCode=BR')).status).toBe(400);
    expect((await sb.gateway('GET', '/bank?bankNumber=001&countryCode=ZZ')).status).toBe(400);
  });

  test('GET /bank/list: zero-based paging over a deterministic list of several hundred banks', async () => {
    let total = 0;
    for (const country of ['US', 'BR', 'MX', 'IN', 'PH', 'SG', 'TH', 'GB', 'CO', 'GT', 'DE']) {
      const res = await sb.gateway('GET', `/bank/list?countryCode=${country}&resultsPerPage=100`);
      expect(res.status).toBe(200);
      expect(res.body.totalResults).toBeGreaterThanOrEqual(10);
      total += res.body.totalResults;
    }
    expect(total).toBeGreaterThanOrEqual(400);

    const first = await sb.gateway('GET', '/bank/list?countryCode=BR');
    expect(first.body).toMatchObject({ page: 0, resultsPerPage: 20 });
    expect(first.body.banks).toHaveLength(20);
    const all: any[] = [];
    for (let page = 0; page * 7 < first.body.totalResults; page++) {
      const res = await sb.gateway('GET', `/bank/list?countryCode=BR&page=${page}&resultsPerPage=7`);
      expect(res.body).toMatchObject({ page, resultsPerPage: 7, totalResults: first.body.totalResults });
      all.push(...res.body.banks);
    }
    expect(all).toHaveLength(first.body.totalResults);
    expect(new Set(all.map((b) => b.bankCode)).size).toBe(all.length);
    expect(all.slice(0, 20)).toEqual(first.body.banks);
    for (const b of all) expect(Object.keys(b).sort()).toEqual(['bankCode', 'bankName', 'countryCode', 'swift']);
    const past = await sb.gateway('GET', `/bank/list?countryCode=BR&page=1000`);
    expect(past.body.banks).toEqual([]);
    const none = await sb.gateway('GET', '/bank/list?countryCode=AQ');
    expect(none.body).toEqual({ banks: [], page: 0, resultsPerPage: 20, totalResults: 0 });

    const us = await sb.gateway('GET', '/bank/list?countryCode=US&resultsPerPage=100&page=1');
    for (const b of us.body.banks) expect([b.bankCode, isAbaRoutingNumber(b.bankCode)]).toEqual([b.bankCode, true]);

    for (const q of ['page=-1', 'page=x', 'resultsPerPage=0', 'resultsPerPage=101', '']) {
      const res = await sb.gateway('GET', `/bank/list?${q}${q.startsWith('page') || q.startsWith('results') ? '&countryCode=BR' : ''}`);
      expect([q, res.status]).toEqual([q, 400]);
    }
  });
});

describe('GET /payer/balance', () => {
  test('array of providers with balances per currency', async () => {
    const res = await sb.gateway('GET', '/payer/balance');
    expect(res.status).toBe(200);
    expect(Array.isArray(res.body)).toBe(true);
    expect(res.body.map((p: any) => p.providerId).sort()).toEqual(['sandbox-ach', 'sandbox-pix', 'sandbox-wallets']);
    for (const p of res.body) {
      for (const b of p.balances) expect(b).toEqual({ currencyCode: expect.stringMatching(/^[A-Z]{3}$/), balance: 1_000_000 });
    }
  });
});
