/** Contract tests over real HTTP: bank-account checks (forms A and B), card checks (v2 and legacy), the 3DS page. */
import { cardToken, http, startTestSandbox, type TestSandbox } from '../helpers/sandbox';
import { pullPushBody, uniqueId } from './gateway.fixtures';

let sb: TestSandbox;
beforeAll(async () => {
  sb = await startTestSandbox();
});
afterAll(async () => {
  await sb.close();
});

const formB = (over: Record<string, unknown> = {}, pm: Record<string, unknown> = {}) => ({
  externalPaymentId: uniqueId('chkb'),
  ipAddress: '198.51.100.4',
  sender: {
    firstName: 'Jane',
    lastName: 'Doe',
    email: 'jane@example.com',
    phoneNumber: '4155550100',
    documents: [{ document: 'X1234567', type: 'PASSPORT', countryCode: 'USA' }],
    address: { countryCode: 'US', stateCode: 'CA', city: 'San Francisco', line1: '1 Market St', zipCode: '94105' },
    paymentMethod: {
      type: 'BANK_ACCOUNT',
      accountType: 'CHECKING',
      routingNumber: '021000021',
      accountNumber: '000123456789',
      countryCode: 'US',
      ...pm,
    },
    ...over,
  },
});

describe('POST /check-account', () => {
  test('form A (bank-linking token) → VERIFIED with a reusable accountTokenId; idempotent replay', async () => {
    const body = {
      externalPaymentId: uniqueId('chka'),
      sender: {
        paymentMethod: { type: 'BANK_DEPOSIT', countryCode: 'US', accountCheckToken: 'public-sandbox-abc', accountCheckId: 'item-1' },
      },
    };
    const res = await sb.gateway('POST', '/check-account', body);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      paymentId: expect.any(String),
      parentPaymentId: res.body.paymentId,
      externalPaymentId: body.externalPaymentId,
      accountTokenId: expect.any(String),
      created: expect.stringMatching(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/),
      approved: true,
      accessToken: expect.stringMatching(/^access-sandbox-/),
      status: 'VERIFIED',
      bankAccountName: expect.any(String),
      accountNumberMasked: expect.stringMatching(/^\*+\d{4}$/),
      routingNumberMasked: expect.stringMatching(/^\*+\d{4}$/),
    });
    expect((await sb.gateway('POST', '/check-account', body)).body).toEqual(res.body);
    const conflict = await sb.gateway('POST', '/check-account', {
      ...body,
      sender: { paymentMethod: { ...body.sender.paymentMethod, accountCheckId: 'item-2' } },
    });
    expect([conflict.status, conflict.body.error.code]).toEqual([409, 'IDEMPOTENCY_CONFLICT']);
    const missing = await sb.gateway('POST', '/check-account', {
      externalPaymentId: uniqueId(),
      sender: { paymentMethod: { type: 'BANK_DEPOSIT' } },
    });
    expect(missing.status).toBe(400);
    expect(missing.body.error.details.map((d: any) => d.field).sort()).toEqual([
      'sender.paymentMethod.accountCheckId',
      'sender.paymentMethod.accountCheckToken',
      'sender.paymentMethod.countryCode',
    ]);
  });

  test('form A magic: only a token of the sandbox widget (public-sandbox-…) verifies; any other is DECLINED (HTTP 200, no accountTokenId, replayed alike)', async () => {
    const formA = (accountCheckToken: string) => ({
      externalPaymentId: uniqueId('chka'),
      sender: { paymentMethod: { type: 'BANK_DEPOSIT', countryCode: 'US', accountCheckToken, accountCheckId: 'item-1' } },
    });
    expect((await sb.gateway('POST', '/check-account', formA('public-sandbox-transfer'))).body).toMatchObject({
      approved: true,
      status: 'VERIFIED',
      accountTokenId: expect.any(String),
    });
    for (const madeUp of ['tok', 'public-token', 'public-production-abc', 'PUBLIC-SANDBOX-abc', 'public-sandbox']) {
      const body = formA(madeUp);
      const res = await sb.gateway('POST', '/check-account', body);
      expect([madeUp, res.status, res.body]).toEqual([
        madeUp,
        200,
        {
          paymentId: expect.any(String),
          parentPaymentId: res.body.paymentId,
          externalPaymentId: body.externalPaymentId,
          created: expect.any(String),
          approved: false,
          status: 'DECLINED',
          message: expect.any(String),
        },
      ]);
      expect((await sb.gateway('POST', '/check-account', body)).body).toEqual(res.body);
    }
  });

  test('form B → APPROVED / VALID with the account type', async () => {
    const res = await sb.gateway('POST', '/check-account', formB());
    expect(res.body).toEqual({
      paymentId: expect.any(String),
      externalPaymentId: expect.any(String),
      status: 'APPROVED',
      accountVerification: { accountStatus: 'VALID', accountType: 'CHECKING' },
    });
  });

  test('form B magic: account ending 0000 and a bad ABA checksum → DECLINED / INVALID with a message (HTTP 200)', async () => {
    const a = await sb.gateway('POST', '/check-account', formB({}, { accountNumber: '12340000' }));
    expect(a.status).toBe(200);
    expect(a.body).toMatchObject({ status: 'DECLINED', accountVerification: { accountStatus: 'INVALID', message: 'Account not found' } });
    expect(a.body.accountVerification.accountType).toBeUndefined();
    const b = await sb.gateway('POST', '/check-account', formB({}, { routingNumber: '021000022' }));
    expect(b.body).toMatchObject({
      status: 'DECLINED',
      accountVerification: { accountStatus: 'INVALID', message: 'Invalid routing number' },
    });
  });

  test('form B limits: phone 7–15 digits, documents with alpha-3 country, address and account fields', async () => {
    for (const phone of ['4155550', '+123456789012345']) {
      expect([phone, (await sb.gateway('POST', '/check-account', formB({ phoneNumber: phone }))).status]).toEqual([phone, 200]);
    }
    for (const phone of ['415555', '1234567890123456', '415-555-0100']) {
      const res = await sb.gateway('POST', '/check-account', formB({ phoneNumber: phone }));
      expect([phone, res.status, res.body.error.details]).toEqual([
        phone,
        400,
        [{ field: 'sender.phoneNumber', issue: 'must have 7 to 15 digits' }],
      ]);
    }
    const cases: Array<[Record<string, unknown>, Record<string, unknown>, string]> = [
      [{ documents: [] }, {}, 'sender.documents'],
      [{ documents: [{ document: 'X', type: 'PASSPORT', countryCode: 'US' }] }, {}, 'sender.documents[0].countryCode'],
      [{ documents: [{ type: 'PASSPORT', countryCode: 'USA' }] }, {}, 'sender.documents[0].document'],
      [{ address: { countryCode: 'US', stateCode: 'CA', city: 'SF', line1: 'x' } }, {}, 'sender.address.zipCode'],
      [{ email: 'nope' }, {}, 'sender.email'],
      [{}, { accountType: 'BROKERAGE' }, 'sender.paymentMethod.accountType'],
      [{}, { routingNumber: '1234' }, 'sender.paymentMethod.routingNumber'],
      [{}, { countryCode: 'MX', routingNumber: undefined }, 'sender.paymentMethod.bankCode'],
    ];
    for (const [over, pm, field] of cases) {
      const res = await sb.gateway('POST', '/check-account', formB(over, pm));
      expect([field, res.status, res.body.error.details.map((d: any) => d.field)]).toEqual([field, 400, [field]]);
    }
    const noIp = formB();
    delete (noIp as any).ipAddress;
    expect((await sb.gateway('POST', '/check-account', noIp)).body.error.details).toEqual([{ field: 'ipAddress', issue: 'required' }]);
  });
});

const cardCheck = (token: string, over: Record<string, unknown> = {}) => ({
  externalPaymentId: uniqueId('card'),
  ipAddress: '198.51.100.4',
  sender: {
    firstName: 'Jane',
    lastName: 'Doe',
    email: 'jane@example.com',
    phoneNumber: '+14155550100',
    documents: [{ document: 'X1234567', type: 'PASSPORT', countryCode: 'USA' }],
    address: { countryCode: 'USA', stateCode: 'CA', city: 'San Francisco', line1: '1 Market St', zipCode: '94105' },
    paymentMethod: { type: 'CARD', cardTokenId: token },
    ...over,
  },
});

describe('POST /v2/check-card-account', () => {
  test('approved card: documented shape', async () => {
    const res = await sb.gateway('POST', '/v2/check-card-account', cardCheck(cardToken('1234')));
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      card: {
        created: expect.stringMatching(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/),
        issuerName: expect.any(String),
        issuerCountry: 'US',
        bin: expect.stringMatching(/^4\d{5}$/),
        lastFour: expect.stringMatching(/^\d{4}$/),
      },
      verificationResults: { avs: 'APPROVED', cvc: 'APPROVED', aavCardholderName: 'APPROVED' },
      octStatus: { capable: true, highPerforming: true, lowPerforming: false },
      aftStatus: { capable: true, highPerforming: true, lowPerforming: false },
      redirectAcsUrl: '',
    });
  });

  test('every documented result value is reachable through a magic token', async () => {
    const expectations: Array<[string, Record<string, string>]> = [
      ['0003', { cvc: 'FAILED' }],
      ['0004', { avs: 'APPROVED', cvc: 'APPROVED', aavCardholderName: 'APPROVED' }],
      ['0005', { avs: 'PARTIAL_MATCH' }],
      ['0006', { avs: 'FAILED' }],
      ['0007', { avs: 'NOT_SUPPORTED' }],
      ['0008', { cvc: 'NOT_SUPPORTED' }],
      ['0009', { cvc: 'NOT_SENT' }],
      ['0010', { aavCardholderName: 'PARTIAL_MATCH' }],
      ['0011', { aavCardholderName: 'FAILED' }],
      ['0012', { aavCardholderName: 'NOT_SUPPORTED' }],
    ];
    for (const [suffix, results] of expectations) {
      const res = await sb.gateway('POST', '/v2/check-card-account', cardCheck(cardToken(suffix)));
      expect([suffix, res.body.verificationResults]).toEqual([suffix, expect.objectContaining(results)]);
    }
    expect((await sb.gateway('POST', '/v2/check-card-account', cardCheck(cardToken('0012')))).body.card.bin).toMatch(/^5[1-5]/);
    expect((await sb.gateway('POST', '/v2/check-card-account', cardCheck(cardToken('0013')))).body.octStatus.capable).toBe(false);
    expect((await sb.gateway('POST', '/v2/check-card-account', cardCheck(cardToken('0014')))).body.aftStatus.capable).toBe(false);
    const noAddress = cardCheck(cardToken('1234'));
    delete (noAddress.sender as any).address;
    expect((await sb.gateway('POST', '/v2/check-card-account', noAddress)).body.verificationResults.avs).toBe('NOT_SENT');
  });

  test('limits: names ≤ 35 characters without prefixes/suffixes, E.164 phone, at least one document', async () => {
    const ok35 = 'A'.repeat(35);
    expect(
      (await sb.gateway('POST', '/v2/check-card-account', cardCheck(cardToken('1234'), { firstName: ok35, lastName: ok35 }))).status,
    ).toBe(200);
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ firstName: 'A'.repeat(36) }, 'sender.firstName'],
      [{ lastName: 'B'.repeat(36) }, 'sender.lastName'],
      [{ firstName: 'Dr. Jane' }, 'sender.firstName'],
      [{ lastName: 'Doe Jr.' }, 'sender.lastName'],
      [{ phoneNumber: '4155550100' }, 'sender.phoneNumber'],
      [{ phoneNumber: '+0155550100' }, 'sender.phoneNumber'],
      [{ documents: [] }, 'sender.documents'],
      [{ documents: undefined }, 'sender.documents'],
      [{ email: undefined }, 'sender.email'],
      [{ birthDate: '1990-02-30' }, 'sender.birthDate'],
      [{ address: { countryCode: 'US', stateCode: 'CA', city: 'SF', line1: 'x', zipCode: '94105' } }, 'sender.address.countryCode'],
      [{ paymentMethod: { type: 'CARD', cardTokenId: 'tok_123' } }, 'sender.paymentMethod.cardTokenId'],
    ];
    for (const [over, field] of cases) {
      const res = await sb.gateway('POST', '/v2/check-card-account', cardCheck(cardToken('1234'), over));
      expect([over, res.status, res.body.error.details.map((d: any) => d.field)]).toEqual([over, 400, [field]]);
    }
    expect(
      (
        await sb.gateway(
          'POST',
          '/v2/check-card-account',
          cardCheck(cardToken('1234'), { birthDate: '1990-02-28', birthCountryCode: 'BR' }),
        )
      ).status,
    ).toBe(200);
  });

  test('3DS: token ending 0002 → redirectAcsUrl page; Authenticate form completes it; the same check then approves', async () => {
    const token = cardToken('0002', 'eeeeeeee-bbbb-4ccc-8ddd');
    const body = cardCheck(token);
    const first = await sb.gateway('POST', '/v2/check-card-account', body);
    expect(first.status).toBe(200);
    expect(first.body.verificationResults).toEqual({ avs: 'N/A', cvc: 'N/A', aavCardholderName: 'N/A' });
    expect(first.body.card.created).toBeUndefined();
    expect(first.body.octStatus).toBeUndefined();
    expect(first.body.aftStatus).toBeUndefined();
    const url: string = first.body.redirectAcsUrl;
    expect(url.startsWith(`${sb.url}/gateway/3ds/`)).toBe(true);
    // pending: the same check answers the same challenge
    expect((await sb.gateway('POST', '/v2/check-card-account', body)).body.redirectAcsUrl).toBe(url);

    // the page: no bearer token needed, HTML with an Authenticate form
    const page = await http('GET', url, { headers: { accept: 'text/html' } });
    expect(page.status).toBe(200);
    expect(page.headers['content-type']).toContain('text/html');
    const form = /<form method="post" action="([^"]+)">([\s\S]*?)<\/form>/.exec(page.text);
    expect(form).not.toBeNull();
    expect(form![2]).toMatch(/<button[^>]*type="submit"[^>]*>Authenticate<\/button>/);
    const fields = [...form![2].matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g)].map((m): [string, string] => [
      m[1],
      m[2],
    ]);
    const action = new URL(form![1].replace(/&amp;/g, '&'), url).toString();
    const submitted = await http('POST', action, {
      body: new URLSearchParams(fields).toString(),
      headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'text/html' },
    });
    expect(submitted.status).toBe(200);
    expect(submitted.text).toContain('AUTHENTICATED');
    expect((await http('GET', url)).text).toContain('AUTHENTICATED');

    const after = await sb.gateway('POST', '/v2/check-card-account', body);
    expect(after.body.redirectAcsUrl).toBe('');
    expect(after.body.verificationResults).toEqual({ avs: 'APPROVED', cvc: 'APPROVED', aavCardholderName: 'APPROVED' });
    expect(after.body.card.created).toEqual(expect.any(String));
    // and a payment with that card is no longer declined for missing authentication
    const { body: payment } = await pullPushBody(sb, { token });
    expect((await sb.gateway('POST', '/v2/payment', payment)).body).toMatchObject({ approved: true, status: 'AUTHORIZED' });

    expect((await http('GET', `${sb.url}/gateway/3ds/unknown`)).status).toBe(404);
  });

  test('3DS page with returnUrl redirects back after authenticating', async () => {
    const first = await sb.gateway('POST', '/v2/check-card-account', cardCheck(cardToken('0002', 'ffffffff-bbbb-4ccc-8ddd')));
    const url = `${first.body.redirectAcsUrl}?returnUrl=${encodeURIComponent('https://app.example/3ds-done')}`;
    const page = await http('GET', url);
    expect(page.text).toContain('name="redirect" value="1"');
    const res = await http('POST', url, {
      body: 'action=authenticate&redirect=1',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(res.status).toBe(303);
    expect(res.headers.location).toBe('https://app.example/3ds-done');
  });

  test('the card digits agree: a token ending 0002 is the card ending 0002 in the check and on the 3DS page; other magic suffixes too', async () => {
    const token = cardToken('0002', 'abababab-bbbb-4ccc-8ddd');
    const ch = await sb.gateway('POST', '/v2/check-card-account', cardCheck(token));
    expect(ch.body.card.lastFour).toBe('0002');
    const page = await http('GET', ch.body.redirectAcsUrl, { headers: { accept: 'text/html' } });
    expect(page.text).toContain('card ending 0002');
    for (const suffix of ['1234', '0004', '0013']) {
      const res = await sb.gateway('POST', '/v2/check-card-account', cardCheck(cardToken(suffix)));
      expect([suffix, res.body.card.lastFour]).toEqual([suffix, suffix]);
    }
    // a token whose last four are not all digits: four digits derived from it, the same on every check and on the page
    const hex = 'abababab-bbbb-4ccc-8ddd-00000000abcd';
    const a = (await sb.gateway('POST', '/v2/check-card-account', cardCheck(hex))).body.card.lastFour;
    expect(a).toMatch(/^\d{4}$/);
    expect((await sb.gateway('POST', '/v2/check-card-account', cardCheck(hex))).body.card.lastFour).toBe(a);
  });

  test('same externalPaymentId with a different body → 409', async () => {
    const body = cardCheck(cardToken('1234'));
    expect((await sb.gateway('POST', '/v2/check-card-account', body)).status).toBe(200);
    expect((await sb.gateway('POST', '/v2/check-card-account', body)).status).toBe(200);
    const other = await sb.gateway('POST', '/v2/check-card-account', { ...body, ipAddress: '198.51.100.5' });
    expect([other.status, other.body.error.code]).toEqual([409, 'IDEMPOTENCY_CONFLICT']);
  });
});

describe('POST /check-card-account (legacy)', () => {
  const legacy = (token: string, withAddress = true) => ({
    externalPaymentId: uniqueId('legacy'),
    ipAddress: '198.51.100.4',
    sender: {
      firstName: 'Jane',
      lastName: 'Doe',
      ...(withAddress ? { address: { countryCode: 'USA', stateCode: 'CA', city: 'SF', line1: '1 Market St', zipCode: '94105' } } : {}),
      paymentMethod: { type: 'CARD', cardTokenId: token },
    },
  });

  test('APPROVED / REJECTED (PAY_084) / CHALLENGE then APPROVED', async () => {
    const ok = await sb.gateway('POST', '/check-card-account', legacy(cardToken('1234')));
    expect(ok.body).toEqual({
      paymentId: expect.any(String),
      status: 'APPROVED',
      avsResult: 'APPROVED',
      cvcResult: 'APPROVED',
      aavCardholderNameResult: 'APPROVED',
      reasonCode: '00',
    });
    for (const suffix of ['0003', '0006', '0011']) {
      const res = await sb.gateway('POST', '/check-card-account', legacy(cardToken(suffix)));
      expect([suffix, res.status, res.body.status, res.body.reasonCode]).toEqual([suffix, 200, 'REJECTED', 'PAY_084']);
    }
    expect((await sb.gateway('POST', '/check-card-account', legacy(cardToken('1234'), false))).body.avsResult).toBe('NOT_SENT');
    expect((await sb.gateway('POST', '/check-card-account', legacy(cardToken('0012')))).body.aavCardholderNameResult).toBe('N/A');
    expect((await sb.gateway('POST', '/check-card-account', legacy(cardToken('0009')))).body.cvcResult).toBe('NOT_SENT');

    const token = cardToken('0002', '12121212-bbbb-4ccc-8ddd');
    const ch = await sb.gateway('POST', '/check-card-account', legacy(token));
    expect(ch.body).toMatchObject({ status: 'CHALLENGE', avsResult: 'N/A', cvcResult: 'N/A', aavCardholderNameResult: 'N/A' });
    expect(ch.body.redirectAcsUrl).toContain('/gateway/3ds/');
    await http('POST', ch.body.redirectAcsUrl, {
      body: 'action=authenticate',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect((await sb.gateway('POST', '/check-card-account', legacy(token))).body.status).toBe('APPROVED');
  });

  test('validation: externalPaymentId, ipAddress, names, card token required', async () => {
    const res = await sb.gateway('POST', '/check-card-account', { sender: { firstName: 'A'.repeat(36) } });
    expect(res.status).toBe(400);
    expect(res.body.error.details.map((d: any) => d.field).sort()).toEqual([
      'externalPaymentId',
      'ipAddress',
      'sender.firstName',
      'sender.lastName',
      'sender.paymentMethod',
    ]);
  });
});
