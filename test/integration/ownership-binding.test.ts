import { gql, startTestApp, type TestApp } from '../helpers/app';
import { cardToken } from '../helpers/sandbox';
import { newPerson, newQuote, transferInput, TRANSFER_FIELDS } from '../e2e/transfer-helpers';

/**
 * Every credential or id a customer hands us is bound to that customer: Alice creates or checks it, Bob tries it.
 * Bob's attempt gets the answer an unknown id gets (NOT_FOUND, same message), no upstream call is made for it
 * and nothing is stored; Alice's own use still works.
 */

const CHECK_CARD = `mutation($input: CheckCardInput!) { checkCard(input: $input) { status lastFour } }`;
const CHECK_BANK = `mutation($input: CheckBankAccountInput!) { checkBankAccount(input: $input) { status accountToken } }`;
const CREATE = `mutation($i: CreateTransferInput!) { createTransfer(input: $i) { ${TRANSFER_FIELDS} } }`;
const LEGACY = `mutation($i: CheckCardLegacyInput!) { checkCardLegacy(input: $i) { status } }`;

let t: TestApp;
let alice: string;
let bob: string;
let staff: string;
let alicePerson: string;
let bobPerson: string;

beforeAll(async () => {
  // no background worker: every upstream call counted below is one the request under test made
  t = await startTestApp({ CARD_CHECK_LEGACY_ENABLED: 'true', SAGA_WORKER_ENABLED: 'false' });
  [alice, bob, staff] = await Promise.all([
    t.token('bind-alice', 'customer'),
    t.token('bind-bob', 'customer'),
    t.token('bind-ops', 'backoffice'),
  ]);
  [alicePerson, bobPerson] = await Promise.all([newPerson(t.url, alice), newPerson(t.url, bob)]);
}, 90_000);
afterAll(() => t?.close());

const callCount = () => t.app.sandbox!.ctx.calls.length;
const errorOf = (r: { body: { errors?: { message: string; extensions?: Record<string, unknown> }[] } }) => ({
  code: r.body.errors?.[0]?.extensions?.code,
  detail: r.body.errors?.[0]?.extensions?.detail as string | undefined,
});

/** checkCard as alice or bob, each the holder of their own person. */
async function checkCard(token: string, cardToken: string) {
  return gql<any>(t.url, CHECK_CARD, { token, variables: { input: { cardToken, personId: token === alice ? alicePerson : bobPerson } } });
}

async function linkAccount(token: string, widgetToken: string): Promise<string> {
  const r = await gql<any>(t.url, CHECK_BANK, {
    token,
    variables: { input: { linked: { accountCheckToken: widgetToken, accountCheckId: 'acc-1', countryCode: 'US' } } },
  });
  expect(r.body.errors).toBeUndefined();
  expect(r.body.data.checkBankAccount.status).toBe('VERIFIED');
  return r.body.data.checkBankAccount.accountToken;
}

/**
 * Bob's createTransfer with `funding` (his own quote and person): refused as `expected` with no upstream call, and
 * nothing stored — no transfer, his quote still unused, no idempotency record for his key.
 */
async function refusedWithoutEffect(token: string, owner: string, personId: string, funding: Record<string, unknown>, key: string) {
  const quoteId = await newQuote(t.url, token, '20.00', funding.type === 'CARD' ? 'CARD' : 'BANK_ACCOUNT');
  const before = callCount();
  const transfersBefore = await t.app.db.prisma.transfer.count({ where: { ownerId: owner } });
  const r = await gql<any>(t.url, CREATE, { token, variables: { i: transferInput({ quoteId, personId, key, funding }) } });
  expect(callCount()).toBe(before);
  expect(await t.app.db.prisma.transfer.count({ where: { ownerId: owner } })).toBe(transfersBefore);
  expect((await t.app.db.prisma.quote.findUniqueOrThrow({ where: { id: quoteId } })).usedByTransferId).toBeNull();
  expect(await t.app.db.prisma.idempotencyRecord.count({ where: { scope: owner, key } })).toBe(0);
  return errorOf(r);
}

describe('bank account tokens (ACCOUNT_TOKEN funding)', () => {
  test("a linked account's token funds no transfer — Alice's own, Alice's tried by Bob or by back-office, an unknown one: the same BAD_USER_INPUT (FUNDING_NOT_OFFERED), no upstream call, nothing stored, nothing echoed", async () => {
    const aliceToken = await linkAccount(alice, 'public-sandbox-alice-bank');
    const staffPerson = await newPerson(t.url, staff);
    const answers = [
      await refusedWithoutEffect(alice, 'bind-alice', alicePerson, { type: 'ACCOUNT_TOKEN', accountToken: aliceToken }, 'alice-account-1'),
      await refusedWithoutEffect(bob, 'bind-bob', bobPerson, { type: 'ACCOUNT_TOKEN', accountToken: aliceToken }, 'bob-steals-account'),
      await refusedWithoutEffect(staff, 'bind-ops', staffPerson, { type: 'ACCOUNT_TOKEN', accountToken: aliceToken }, 'ops-uses-account'),
      await refusedWithoutEffect(
        bob,
        'bind-bob',
        bobPerson,
        { type: 'ACCOUNT_TOKEN', accountToken: 'no-such-account-token' },
        'bob-unknown-account',
      ),
    ];
    expect(answers[0]!.code).toBe('BAD_USER_INPUT');
    for (const a of answers) expect(a).toEqual(answers[0]); // whose token it is, or whether it exists, is not told
    expect(JSON.stringify(answers)).not.toContain(aliceToken);
  });

  test("Bob cannot replay Alice's bank-linking widget result to link her account to himself: NOT_FOUND, no upstream call", async () => {
    await linkAccount(alice, 'public-sandbox-alice-widget');
    const before = callCount();
    const r = await gql<any>(t.url, CHECK_BANK, {
      token: bob,
      variables: { input: { linked: { accountCheckToken: 'public-sandbox-alice-widget', accountCheckId: 'acc-1', countryCode: 'US' } } },
    });
    expect(callCount()).toBe(before);
    expect(r.body.data).toBeNull();
    expect(errorOf(r).code).toBe('NOT_FOUND');
    expect(await linkAccount(alice, 'public-sandbox-alice-widget')).toEqual(expect.any(String)); // the owner may check it again
  });

  test('the token is stored as a digest bound to its owner, never in clear', async () => {
    const aliceToken = await linkAccount(alice, 'public-sandbox-alice-bank-4');
    const rows = await t.app.db.prisma.fundingCredential.findMany({ where: { ownerId: 'bind-alice' } });
    expect(rows.length).toBeGreaterThan(0);
    expect(JSON.stringify(rows)).not.toContain(aliceToken);
  });
});

describe('card tokens (CARD funding)', () => {
  test("Bob cannot fund with Alice's checked card token, nor check it (which would show him her card's facts): NOT_FOUND as for an unknown token, no upstream call", async () => {
    const token = cardToken('1234', 'a11ce000-0000-4000-8000');
    expect((await checkCard(alice, token)).body.data.checkCard.status).toBe('APPROVED');
    const used = await refusedWithoutEffect(bob, 'bind-bob', bobPerson, { type: 'CARD', cardToken: token }, 'bob-steals-card');
    const upper = await refusedWithoutEffect(
      bob,
      'bind-bob',
      bobPerson,
      { type: 'CARD', cardToken: token.toUpperCase() },
      'bob-steals-card-upper',
    );
    const unknown = await refusedWithoutEffect(
      bob,
      'bind-bob',
      bobPerson,
      { type: 'CARD', cardToken: cardToken('1234', 'b0b00000-0000-4000-8000') },
      'bob-unknown-card',
    );
    expect(used.code).toBe('NOT_FOUND');
    expect(used).toEqual(unknown);
    expect(upper).toEqual(unknown);
    const before = callCount();
    const check = await checkCard(bob, token);
    expect(callCount()).toBe(before);
    expect(check.body.data).toBeNull();
    expect(errorOf(check).code).toBe('NOT_FOUND');
  });

  test('a card token nobody checked with checkCard cannot fund a transfer', async () => {
    const r = await refusedWithoutEffect(
      alice,
      'bind-alice',
      alicePerson,
      { type: 'CARD', cardToken: cardToken('1234', 'ccccccc0-0000-4000-8000') },
      'alice-unchecked-card',
    );
    expect(r.code).toBe('NOT_FOUND');
    expect(r.detail).toMatch(/checkCard/);
  });

  test('a failed card check binds nothing: whoever learnt the token cannot claim it, and it cannot fund', async () => {
    const token = cardToken('0003', 'f0e00000-0000-4000-8000'); // sandbox: cvc FAILED
    expect((await checkCard(bob, token)).body.data.checkCard.status).toBe('FAILED');
    expect(
      await t.app.db.prisma.fundingCredential.count({
        where: { ownerId: 'bind-bob', kind: 'card', checkedAt: { gt: new Date(Date.now() - 60_000) } },
      }),
    ).toBe(0);
    const r = await refusedWithoutEffect(bob, 'bind-bob', bobPerson, { type: 'CARD', cardToken: token }, 'bob-failed-card');
    expect(r.code).toBe('NOT_FOUND');
    // the card's owner can still check it (it was never claimed)
    expect((await checkCard(alice, token)).body.errors).toBeUndefined();
  });

  test('a check older than CARD_CHECK_MAX_AGE_S no longer lets the card fund; checking it again does', async () => {
    const token = cardToken('1234', 'a11ce000-0000-4000-8001');
    expect((await checkCard(alice, token)).body.data.checkCard.status).toBe('APPROVED');
    await t.app.db.prisma.fundingCredential.updateMany({
      where: { ownerId: 'bind-alice', kind: 'card' },
      data: { checkedAt: new Date(Date.now() - 24 * 3600_000) },
    });
    const stale = await refusedWithoutEffect(alice, 'bind-alice', alicePerson, { type: 'CARD', cardToken: token }, 'alice-stale-card');
    expect(stale.code).toBe('NOT_FOUND');
    expect((await checkCard(alice, token)).body.data.checkCard.status).toBe('APPROVED');
    const quoteId = await newQuote(t.url, alice, '20.00');
    const r = await gql<any>(t.url, CREATE, {
      token: alice,
      variables: { i: transferInput({ quoteId, personId: alicePerson, key: 'alice-card-1', funding: { type: 'CARD', cardToken: token } }) },
    });
    expect(r.body.errors).toBeUndefined();
  });

  test("the legacy card check refuses Alice's token to Bob (NOT_FOUND, no upstream call) and binds a token it checks", async () => {
    const token = cardToken('1234', 'a11ce000-0000-4000-8002');
    expect((await checkCard(alice, token)).body.data.checkCard.status).toBe('APPROVED');
    const legacy = (who: string, cardTok: string, key: string) =>
      gql<any>(t.url, LEGACY, {
        token: who,
        variables: { i: { idempotencyKey: key, cardToken: cardTok, firstName: 'Jane', lastName: 'Doe' } },
      });
    const before = callCount();
    const r = await legacy(bob, token, 'bob-legacy-1');
    expect(callCount()).toBe(before);
    expect(errorOf(r).code).toBe('NOT_FOUND');
    const bobs = cardToken('1234', 'b0b00000-0000-4000-8002');
    expect((await legacy(bob, bobs, 'bob-legacy-2')).body.errors).toBeUndefined();
    const quoteId = await newQuote(t.url, bob, '20.00');
    const own = await gql<any>(t.url, CREATE, {
      token: bob,
      variables: { i: transferInput({ quoteId, personId: bobPerson, key: 'bob-card-legacy', funding: { type: 'CARD', cardToken: bobs } }) },
    });
    expect(own.body.errors).toBeUndefined();
  });
});

describe('quotes, persons, transfers, idempotency keys', () => {
  let aliceTransfer: string;
  const aliceCard = cardToken('1234', 'a11ce000-0000-4000-8003');

  beforeAll(async () => {
    await checkCard(alice, aliceCard);
    const quoteId = await newQuote(t.url, alice, '20.00');
    const r = await gql<any>(t.url, CREATE, {
      token: alice,
      variables: {
        i: transferInput({ quoteId, personId: alicePerson, key: 'shared-key', funding: { type: 'CARD', cardToken: aliceCard } }),
      },
    });
    expect(r.body.errors).toBeUndefined();
    aliceTransfer = r.body.data.createTransfer.id;
  });

  test("Bob cannot use Alice's quote or Alice's KYC person: NOT_FOUND, nothing stored", async () => {
    const bobCard = cardToken('1234', 'b0b00000-0000-4000-8003');
    await checkCard(bob, bobCard);
    const aliceQuote = await newQuote(t.url, alice, '20.00');
    const before = callCount();
    const q = await gql<any>(t.url, CREATE, {
      token: bob,
      variables: {
        i: transferInput({ quoteId: aliceQuote, personId: bobPerson, key: 'bob-quote', funding: { type: 'CARD', cardToken: bobCard } }),
      },
    });
    expect(errorOf(q)).toEqual({ code: 'NOT_FOUND', detail: 'Quote not found' });
    expect((await t.app.db.prisma.quote.findUniqueOrThrow({ where: { id: aliceQuote } })).usedByTransferId).toBeNull();
    expect(callCount()).toBe(before);
    const p = await refusedWithoutEffect(bob, 'bind-bob', alicePerson, { type: 'CARD', cardToken: bobCard }, 'bob-person');
    expect(p).toEqual({ code: 'NOT_FOUND', detail: 'Person not found' });
  });

  test("Bob's idempotency key is his own: the key Alice used makes Bob a transfer of his, never replays Alice's", async () => {
    const bobCard = cardToken('1234', 'b0b00000-0000-4000-8004');
    await checkCard(bob, bobCard);
    const quoteId = await newQuote(t.url, bob, '20.00');
    const r = await gql<any>(t.url, CREATE, {
      token: bob,
      variables: { i: transferInput({ quoteId, personId: bobPerson, key: 'shared-key', funding: { type: 'CARD', cardToken: bobCard } }) },
    });
    expect(r.body.errors).toBeUndefined();
    expect(r.body.data.createTransfer.id).not.toBe(aliceTransfer);
  });

  test("Bob cannot read, resume, void or capture Alice's transfer: NOT_FOUND (capture: FORBIDDEN, staff only); back-office reads it", async () => {
    const before = callCount();
    const read = await gql<any>(t.url, `query($id: ID!) { transfer(id: $id) { id } }`, { token: bob, variables: { id: aliceTransfer } });
    expect(errorOf(read)).toEqual({ code: 'NOT_FOUND', detail: 'Transfer not found' });
    for (const op of ['resumeTransfer', 'voidTransfer']) {
      const r = await gql<any>(t.url, `mutation($i: ${op[0]!.toUpperCase()}${op.slice(1)}Input!) { ${op}(input: $i) { id } }`, {
        token: bob,
        variables: { i: { transferId: aliceTransfer, idempotencyKey: `bob-${op}` } },
      });
      expect(errorOf(r)).toEqual({ code: 'NOT_FOUND', detail: 'Transfer not found' });
    }
    const cap = await gql<any>(t.url, `mutation($i: CaptureTransferInput!) { captureTransfer(input: $i) { id } }`, {
      token: bob,
      variables: { i: { transferId: aliceTransfer, idempotencyKey: 'bob-capture' } },
    });
    expect(errorOf(cap).code).toBe('FORBIDDEN');
    expect(callCount()).toBe(before);
    const ops = await gql<any>(t.url, `query($id: ID!) { transfer(id: $id) { id } }`, { token: staff, variables: { id: aliceTransfer } });
    expect(ops.body.data.transfer.id).toBe(aliceTransfer);
  });
});

describe('wallets and verification sessions', () => {
  test("Bob cannot read Alice's wallet or verification session: NOT_FOUND as for an unknown id, no upstream call", async () => {
    const w = await gql<any>(t.url, `mutation { createWallet(input: { currency: "USD" }) { id } }`, { token: alice });
    const walletId = w.body.data.createWallet.id;
    const s = await gql<any>(t.url, `mutation { startVerificationSession { id } }`, { token: alice });
    expect(s.body.errors).toBeUndefined();
    const sessionId = s.body.data.startVerificationSession.id;
    const before = callCount();
    const wr = await gql<any>(t.url, `query($id: ID!) { wallet(id: $id) { id } }`, { token: bob, variables: { id: walletId } });
    expect(errorOf(wr)).toEqual({ code: 'NOT_FOUND', detail: 'Wallet not found' });
    const sr = await gql<any>(t.url, `query($id: ID!) { verificationSession(id: $id) { id } }`, {
      token: bob,
      variables: { id: sessionId },
    });
    expect(errorOf(sr)).toEqual({ code: 'NOT_FOUND', detail: 'Verification session not found' });
    expect(callCount()).toBe(before);
  });
});
