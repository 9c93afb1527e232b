import { gql, startTestApp, type TestApp } from '../helpers/app';
import { bankLookups, clearSandboxCalls, sandboxCalls } from '../helpers/surface';

let t: TestApp;
let customer: string;

beforeAll(async () => {
  t = await startTestApp({ RATE_LIMIT_ALIAS_LOOKUPS_PER_MINUTE: '1000' });
  customer = await t.token('dir-customer', 'customer');
}, 90_000);
afterAll(() => t?.close());

const ALIAS = `query($c: String!, $t: String!, $k: String!) {
  resolveAlias(countryCode: $c, keyType: $t, key: $k) {
    __typename
    ... on AliasFound { found countryCode system keyType account { bankCode bankName accountType accountNumberMasked branchCode bank { name swift } } holder { displayName documentType documentMasked type } }
    ... on AliasNotFound { found countryCode system keyType message }
  }
}`;

describe('resolveAlias', () => {
  it('found: masked account and holder, the key never echoed', async () => {
    const key = '12345678909';
    const { body } = await gql<any>(t.url, ALIAS, { token: customer, variables: { c: 'BR', t: 'CPF', k: key } });
    expect(body.errors).toBeUndefined();
    const r = body.data.resolveAlias;
    expect(r).toMatchObject({ __typename: 'AliasFound', found: true, countryCode: 'BR', system: 'PIX', keyType: 'CPF' });
    expect(r.account.accountNumberMasked).toMatch(/^\*+[^*]{1,4}$|^[*\W]*[\w]{0,4}$/);
    expect(r.account.accountNumberMasked.replace(/[^0-9A-Za-z]/g, '').length).toBeLessThanOrEqual(4);
    expect(r.holder.displayName).toMatch(/^\S+ \S\.$/); // "Maria S."
    expect(r.holder.documentMasked.replace(/[^0-9]/g, '').length).toBeLessThanOrEqual(2);
    expect(r.account.bank?.name).toBeTruthy();
    expect(JSON.stringify(body)).not.toContain(key);
  });

  it('not found is a result, not an error', async () => {
    const { body } = await gql<any>(t.url, ALIAS, { token: customer, variables: { c: 'BR', t: 'CPF', k: '00000000000' } });
    expect(body.errors).toBeUndefined();
    expect(body.data.resolveAlias).toMatchObject({ __typename: 'AliasNotFound', found: false, countryCode: 'BR', keyType: 'CPF' });
    expect(body.data.resolveAlias.message).toMatch(/No account/);
  });

  it('bad country, key type or key format → BAD_USER_INPUT with a message the user can act on', async () => {
    const country = await gql<any>(t.url, ALIAS, { token: customer, variables: { c: 'XXX', t: 'CPF', k: '1' } });
    expect(country.body.errors![0]!.extensions!.code).toBe('BAD_USER_INPUT');
    expect(country.body.errors![0]!.extensions!.detail).toMatch(/BR, IN, SG, TH, PH/);
    expect(country.body.errors![0]!.extensions!.fields).toEqual([expect.objectContaining({ path: 'countryCode', code: 'INVALID_CHOICE' })]);
    const keyType = await gql<any>(t.url, ALIAS, { token: customer, variables: { c: 'IN', t: 'CPF', k: '1' } });
    expect(keyType.body.errors![0]!).toMatchObject({ extensions: { code: 'BAD_USER_INPUT' } });
    expect(keyType.body.errors![0]!.extensions!.detail).toMatch(/VPA, MOBILE, AADHAAR/);
    const format = await gql<any>(t.url, ALIAS, { token: customer, variables: { c: 'BR', t: 'CPF', k: 'not-a-cpf' } });
    expect(format.body.errors![0]!.extensions!.code).toBe('BAD_USER_INPUT');
    expect(JSON.stringify(format.body)).not.toContain('not-a-cpf');
  });
});

describe('banks', () => {
  it('Relay connection over zero-based pages: every bank once, in order, across unaligned pages', async () => {
    const all = await gql<any>(
      t.url,
      `{ banks(countryCode: "BR", first: 100) { totalCount edges { node { bankCode } } pageInfo { hasNextPage } } }`,
      { token: customer },
    );
    expect(all.body.errors).toBeUndefined();
    const total = all.body.data.banks.totalCount as number;
    const expected = all.body.data.banks.edges.map((e: any) => e.node.bankCode).slice(0, Math.min(total, 100));
    expect(total).toBeGreaterThan(7);

    // first page of 3, then pages of 4 (cursor offsets not aligned with the page size)
    const seen: string[] = [];
    let after: string | null = null;
    let first = 3;
    for (let i = 0; i < 50; i++) {
      const r: any = await gql<any>(
        t.url,
        `query($a: String, $f: Int) { banks(countryCode: "BR", first: $f, after: $a) { edges { cursor node { bankCode } } pageInfo { hasNextPage hasPreviousPage endCursor } } }`,
        {
          token: customer,
          variables: { a: after, f: first },
        },
      );
      expect(r.body.errors).toBeUndefined();
      const c = r.body.data.banks;
      expect(c.pageInfo.hasPreviousPage).toBe(after !== null);
      seen.push(...c.edges.map((e: any) => e.node.bankCode));
      if (!c.pageInfo.hasNextPage) break;
      after = c.pageInfo.endCursor;
      first = 4;
    }
    if (total <= 100)
      expect(seen).toEqual(expected); // every bank exactly once, in order
    else expect(seen).toEqual(expected.slice(0, seen.length));
  });

  it('bad arguments → BAD_USER_INPUT', async () => {
    const r = await gql<any>(t.url, `{ banks(countryCode: "BR", first: 1000) { totalCount } }`, { token: customer });
    expect(r.body.errors![0]!.extensions!.code).toBe('BAD_USER_INPUT');
    const c = await gql<any>(t.url, `{ banks(countryCode: "BR", after: "garbage") { totalCount } }`, { token: customer });
    expect(c.body.errors![0]!.extensions!.code).toBe('BAD_USER_INPUT');
  });

  it('bank lookups: N rows → one upstream call per distinct bank (DataLoader), then none while cached', async () => {
    await clearSandboxCalls(t);
    const codes = ['001', '033', '001', '237', '033', '001', '237', '001', '033', '001'];
    const q = `{ ${codes.map((c, i) => `b${i}: bank(countryCode: "BR", bankCode: "${c}") { bankCode name }`).join(' ')} }`;
    const r1 = await gql<any>(t.url, q, { token: customer });
    expect(r1.body.errors).toBeUndefined();
    expect(r1.body.data.b0.bankCode).toBe('001');
    expect(r1.body.data.b3.name).toBeTruthy();
    expect(bankLookups(await sandboxCalls(t, '/gateway/bank'))).toHaveLength(3);

    const r2 = await gql<any>(t.url, q, { token: await t.token('another', 'customer') });
    expect(r2.body.data).toEqual(r1.body.data);
    expect(bankLookups(await sandboxCalls(t, '/gateway/bank'))).toHaveLength(3); // served from the 5-minute cache
  });

  it('unknown bank → null', async () => {
    const r = await gql<any>(t.url, `{ bank(countryCode: "BR", bankCode: "999999") { name } }`, { token: customer });
    expect(r.body.errors).toBeUndefined();
    expect(r.body.data.bank).toBeNull();
  });
});

describe('fxQuoteV1 and personRequirements', () => {
  it('fxQuoteV1: rate as an exact decimal string', async () => {
    const r = await gql<any>(
      t.url,
      `{ fxQuoteV1(sourceCurrency: "USD", destinationCurrency: "BRL") { fxId rate expiresAt sourceCurrency } }`,
      { token: customer },
    );
    expect(r.body.errors).toBeUndefined();
    expect(r.body.data.fxQuoteV1.rate).toMatch(/^\d+(\.\d{1,8})?$/);
    expect(typeof r.body.data.fxQuoteV1.rate).toBe('string');
    expect(Date.parse(r.body.data.fxQuoteV1.expiresAt)).toBeGreaterThan(Date.now() - 60_000);
  });

  it('fxQuoteV1: a lower-case currency → BAD_USER_INPUT naming the field', async () => {
    const r = await gql<any>(t.url, `{ fxQuoteV1(sourceCurrency: "usd") { fxId } }`, { token: customer });
    expect(r.body.errors![0]!.extensions!.code).toBe('BAD_USER_INPUT');
    expect(r.body.errors![0]!.extensions!.detail).toMatch(/sourceCurrency must be a 3-letter ISO 4217 code/);
    expect(r.body.errors![0]!.extensions!.fields).toEqual([expect.objectContaining({ path: 'sourceCurrency', code: 'INVALID_FORMAT' })]);
  });

  it("personRequirements: the country's required fields", async () => {
    const r = await gql<any>(
      t.url,
      `{ personRequirements(countryCode: "BR") { countryCode isDefault individual { requiredFields identificationTypes identificationPattern } business { requiredFields } } }`,
      { token: customer },
    );
    expect(r.body.errors).toBeUndefined();
    expect(r.body.data.personRequirements).toMatchObject({ countryCode: 'BR', isDefault: false });
    expect(r.body.data.personRequirements.individual.requiredFields).toContain('lastName');
    expect(r.body.data.personRequirements.individual.identificationTypes).toContain('CPF');
  });
});
