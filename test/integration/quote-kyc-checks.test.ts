import { gql, startTestApp, type TestApp } from '../helpers/app';
import { personInput } from '../helpers/funding';
import { cardToken } from '../helpers/sandbox';
import { CATALOGS } from '../../src/shared/messages';

const CREATE_QUOTE = `mutation($input: CreateQuoteInput!) { createQuote(input: $input) { id fxId rate source { amount currency } destination { amount currency } paymentMethod expiresAt } }`;
const CREATE_PERSON = `mutation($input: PersonInput!) { createPerson(input: $input) { id status message } }`;
const VALIDATE_PERSON = `mutation($input: PersonInput!) { validatePerson(input: $input) { id status message } }`;
const CHECK_CARD = `mutation($input: CheckCardInput!) { checkCard(input: $input) { status redirectUrl reasons avs cvc lastFour canFund } }`;
const CHECK_BANK = `mutation($input: CheckBankAccountInput!) { checkBankAccount(input: $input) { status accountStatus message accountToken } }`;

export const person = personInput;

let t: TestApp;
let token: string;
/** alice's KYC'd person: the card and account holder of her checks */
let personId: string;
beforeAll(async () => {
  t = await startTestApp();
  token = await t.token('alice', 'customer');
  personId = (await gql<any>(t.url, CREATE_PERSON, { token, variables: { input: person() } })).body.data.createPerson.id;
});

/** The gateway calls made while `run` runs. */
async function gatewayCallsDuring(run: () => Promise<void>): Promise<unknown[]> {
  await fetch(`${t.app.sandbox!.url}/__sandbox/calls`, { method: 'DELETE' });
  await run();
  return (await (await fetch(`${t.app.sandbox!.url}/__sandbox/calls?path=/gateway`)).json()) as unknown[];
}
afterAll(() => t.close());

describe('createQuote', () => {
  test('FX v2 quote with amounts as exact decimal strings, stored for the caller', async () => {
    const r = await gql<any>(t.url, CREATE_QUOTE, {
      token,
      variables: { input: { sourceCurrency: 'USD', destinationCurrency: 'BRL', paymentMethod: 'WALLET', sourceAmount: '100.10' } },
    });
    expect(r.body.errors).toBeUndefined();
    const q = r.body.data.createQuote;
    expect(q.rate).toBe('5.0123');
    expect(q.source).toEqual({ amount: '100.10', currency: 'USD' });
    expect(q.destination).toEqual({ amount: '501.73', currency: 'BRL' });
    const row = await t.app.db.prisma.quote.findUniqueOrThrow({ where: { id: q.id } });
    expect(row.ownerId).toBe('alice');
  });

  test('sourceAmount and destinationCountry null: a quote without them, as when they are left out (not an internal error)', async () => {
    const r = await gql<any>(t.url, CREATE_QUOTE, {
      token,
      variables: {
        input: { sourceCurrency: 'USD', destinationCurrency: 'BRL', paymentMethod: 'WALLET', sourceAmount: null, destinationCountry: null },
      },
    });
    expect(r.body.errors).toBeUndefined();
    expect(r.body.data.createQuote).toMatchObject({ source: null, destination: null, rate: '5.0123' });
    const row = await t.app.db.prisma.quote.findUniqueOrThrow({ where: { id: r.body.data.createQuote.id } });
    expect(row.sourceAmount).toBeNull();
  });

  test('bad currency / country → BAD_USER_INPUT naming the field, never the value', async () => {
    const r = await gql<any>(t.url, CREATE_QUOTE, {
      token,
      variables: { input: { sourceCurrency: 'XXY', destinationCurrency: 'BRL', paymentMethod: 'WALLET', destinationCountry: 'BRA' } },
    });
    expect(r.body.errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
    const fields = (r.body.errors![0].extensions!.fields as { path: string }[]).map((f) => f.path).sort();
    expect(fields).toEqual(['input.destinationCountry', 'input.sourceCurrency']);
    expect(JSON.stringify(r.body)).not.toContain('XXY');
  });

  test('anonymous → UNAUTHENTICATED', async () => {
    const r = await gql<any>(t.url, CREATE_QUOTE, {
      variables: { input: { sourceCurrency: 'USD', destinationCurrency: 'BRL', paymentMethod: 'WALLET' } },
    });
    expect(r.body.errors?.[0]?.extensions?.code).toBe('UNAUTHENTICATED');
  });
});

describe('persons', () => {
  test('createPerson APPROVED gets an id; lastName Rejected → REJECTED without id', async () => {
    const ok = await gql<any>(t.url, CREATE_PERSON, { token, variables: { input: person() } });
    expect(ok.body.data.createPerson).toMatchObject({ status: 'APPROVED', message: null });
    expect(ok.body.data.createPerson.id).toEqual(expect.any(String));
    const no = await gql<any>(t.url, CREATE_PERSON, { token, variables: { input: person('Rejected') } });
    expect(no.body.data.createPerson).toMatchObject({ id: null, status: 'REJECTED' });
    expect(no.body.data.createPerson.message).toEqual(expect.any(String));
  });

  test('validatePerson stores nothing', async () => {
    const before = await t.app.db.prisma.person.count();
    const r = await gql<any>(t.url, VALIDATE_PERSON, { token, variables: { input: person() } });
    expect(r.body.data.validatePerson).toEqual({ id: null, status: 'APPROVED', message: null });
    expect(await t.app.db.prisma.person.count()).toBe(before);
  });

  test('invalid email / phone → BAD_USER_INPUT', async () => {
    const p = person();
    const r = await gql<any>(t.url, CREATE_PERSON, { token, variables: { input: { ...p, email: 'nope', phoneNumber: '12' } } });
    expect(r.body.errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
    expect(JSON.stringify(r.body)).not.toContain('nope');
  });
});

describe('checks', () => {
  test('card magic values: approved, 3DS challenge, cvc FAILED', async () => {
    const run = (suffix: string) =>
      gql<any>(t.url, CHECK_CARD, { token, variables: { input: { cardToken: cardToken(suffix), personId } } });
    expect((await run('1234')).body.data.checkCard).toMatchObject({ status: 'APPROVED', reasons: [], redirectUrl: null, canFund: true });
    const challenge = (await run('0002')).body.data.checkCard;
    expect(challenge.status).toBe('CHALLENGE');
    expect(challenge.redirectUrl).toMatch(/\/gateway\/3ds\//);
    expect((await run('0003')).body.data.checkCard).toMatchObject({ status: 'FAILED', cvc: 'FAILED', reasons: ['cvc FAILED'] });
  });

  test("the cardholder is the KYC'd person: its address goes to the gateway (address verification runs)", async () => {
    const r = await gql<any>(t.url, CHECK_CARD, { token, variables: { input: { cardToken: cardToken('1234'), personId } } });
    expect(r.body.data.checkCard.status).toBe('APPROVED');
    expect(r.body.data.checkCard.avs).not.toBe('NOT_SENT'); // the sandbox answers NOT_SENT when the check carries no address
  });

  test('a person whose name cannot be a cardholder name (> 35 characters, a prefix) → BAD_USER_INPUT before the gateway', async () => {
    const long = (
      await gql<any>(t.url, CREATE_PERSON, { token, variables: { input: { ...person(), firstName: 'Dr Jane', lastName: 'x'.repeat(36) } } })
    ).body.data.createPerson.id;
    const calls = await gatewayCallsDuring(async () => {
      const r = await gql<any>(t.url, CHECK_CARD, { token, variables: { input: { cardToken: cardToken('1234'), personId: long } } });
      expect(r.body.errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
      expect(r.body.errors![0].extensions!.detail).toMatch(/firstName and lastName cannot be a cardholder name/);
      expect(r.body.errors![0].extensions!.fields).toEqual([
        { path: 'input.personId', code: 'INVALID_CARDHOLDER_NAME', message: CATALOGS.en.fields.INVALID_CARDHOLDER_NAME },
      ]);
      expect(JSON.stringify(r.body)).not.toContain('x'.repeat(36));
    });
    expect(calls).toEqual([]);
  });

  test("another caller's person, an unknown one, or one that cannot send → refused before the gateway", async () => {
    const bob = await t.token('bob', 'customer');
    const calls = await gatewayCallsDuring(async () => {
      const theirs = await gql<any>(t.url, CHECK_CARD, { token: bob, variables: { input: { cardToken: cardToken('1234'), personId } } });
      expect(theirs.body.errors?.[0]?.extensions?.code).toBe('NOT_FOUND');
      const unknown = await gql<any>(t.url, CHECK_BANK, {
        token,
        variables: {
          input: {
            personId: 'nope',
            account: {
              type: 'BANK_ACCOUNT',
              accountType: 'CHECKING',
              accountNumber: '123456789',
              routingNumber: '011000015',
              countryCode: 'US',
            },
          },
        },
      });
      expect(unknown.body.errors?.[0]?.extensions?.code).toBe('NOT_FOUND');
    });
    expect(calls).toEqual([]);
    // a person without an address can be KYC'd but not hold a card or account for a check
    const bare = (
      await gql<any>(t.url, CREATE_PERSON, { token, variables: { input: { type: 'INDIVIDUAL', firstName: 'Ana', lastName: 'Bare' } } })
    ).body.data.createPerson.id;
    const noAddress = await gatewayCallsDuring(async () => {
      const r = await gql<any>(t.url, CHECK_CARD, { token, variables: { input: { cardToken: cardToken('1234'), personId: bare } } });
      expect(r.body.errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
      expect(r.body.errors![0].extensions!.detail).toMatch(/personId: the person has no/);
      expect(r.body.errors![0].extensions!.fields).toEqual([
        { path: 'input.personId', code: 'INCOMPLETE', message: CATALOGS.en.fields.INCOMPLETE },
      ]);
    });
    expect(noAddress).toEqual([]);
  });

  test('bank account raw details: valid and declined (account ending 0000)', async () => {
    const account = {
      type: 'BANK_ACCOUNT',
      accountType: 'CHECKING',
      accountNumber: '123456789',
      routingNumber: '011000015',
      countryCode: 'US',
    };
    const ok = await gql<any>(t.url, CHECK_BANK, { token, variables: { input: { personId, account } } });
    expect(ok.body.data.checkBankAccount).toMatchObject({ status: 'APPROVED', accountStatus: 'VALID' });
    const bad = await gql<any>(t.url, CHECK_BANK, {
      token,
      variables: { input: { personId, account: { ...account, accountNumber: '12340000' } } },
    });
    expect(bad.body.data.checkBankAccount).toMatchObject({ status: 'DECLINED', accountStatus: 'INVALID' });
  });

  test('bank-linking token → reusable accountToken', async () => {
    const r = await gql<any>(t.url, CHECK_BANK, {
      token,
      variables: { input: { linked: { accountCheckToken: 'public-sandbox-abc', accountCheckId: 'acc-1', countryCode: 'US' } } },
    });
    expect(r.body.errors).toBeUndefined();
    expect(r.body.data.checkBankAccount.status).toBe('VERIFIED');
    expect(r.body.data.checkBankAccount.accountToken).toEqual(expect.any(String));
  });
});
