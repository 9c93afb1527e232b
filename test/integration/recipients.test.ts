/**
 * Saved recipients (createRecipient, recipients, deleteRecipient) and createTransfer(recipientId): a caller's own
 * address book, checked as strictly as createTransfer's inline recipient before anything is called or stored, PIX
 * keys confirmed with the alias directory, shown masked; a transfer made from one keeps its own copy.
 */
import { gql, startTestApp, type TestApp } from '../helpers/app';
import { createTransfer, newPerson, newQuote, RECIPIENT, transferInput, waitForStatus } from '../e2e/transfer-helpers';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp({ RATE_LIMIT_ALIAS_LOOKUPS_PER_MINUTE: '10' });
}, 90_000);
afterAll(() => t?.close());

const FIELDS = 'id name destinationType destination countryCode holderName createdAt';
const CREATE = `mutation($i: RecipientInput!) { createRecipient(input: $i) { ${FIELDS} } }`;
const LIST = `query($first: Int, $after: String) { recipients(first: $first, after: $after) {
  edges { cursor node { ${FIELDS} } } pageInfo { hasNextPage endCursor } } }`;
const DELETE = 'mutation($id: ID!) { deleteRecipient(id: $id) }';
const TRANSFER =
  'mutation($i: CreateTransferInput!) { createTransfer(input: $i) { id recipient { name destinationType destination recipientId } } }';

const upstreamCalls = () => t.app.sandbox!.ctx.calls.length;
const saved = (ownerId: string) => t.app.db.prisma.recipient.count({ where: { ownerId } });
const codeOf = (r: { body: { errors?: { extensions?: Record<string, unknown> }[] } }) => r.body.errors?.[0]?.extensions?.code;

/** A recipient like RECIPIENT with other names and destination. */
const recipient = (firstName: string, lastName: string, destination: Record<string, unknown>) => ({
  ...RECIPIENT,
  customer: { firstName, lastName },
  destination,
});
const WALLET = (walletId: string) => ({ type: 'WALLET', walletId });
const PIX = (pixKeyType: string, pixKey: string) => ({ type: 'PIX', pixKeyType, pixKey });

async function create(token: string, input: unknown) {
  return gql<any>(t.url, CREATE, { token, variables: { i: input } });
}

it("saves, lists newest first page by page, masks what it shows and deletes the caller's recipients", async () => {
  const alice = await t.token('rcp-alice', 'customer');
  const made: any[] = [];
  for (const input of [
    recipient('Ana', 'Souza', PIX('EMAIL', 'ana.souza@example.com')),
    recipient('Bruno', 'Lima', WALLET('wal_0011223344')),
    recipient('Carla', 'Dias', PIX('CPF', '12345678909')),
  ]) {
    const r = await create(alice, input);
    expect(r.body.errors).toBeUndefined();
    made.push(r.body.data.createRecipient);
  }
  expect(made[0]).toMatchObject({ name: 'Ana Souza', destinationType: 'PIX', destination: 'a•••@example.com', countryCode: 'BR' });
  expect(made[0].holderName).toMatch(/^\S+ \S\.$/); // the directory's holder, masked ("Maria S.")
  expect(made[1]).toMatchObject({ name: 'Bruno Lima', destinationType: 'WALLET', destination: '•••• 3344', holderName: null });
  expect(made[2]).toMatchObject({ destination: '•••• 8909' });

  const page1 = (await gql<any>(t.url, LIST, { token: alice, variables: { first: 2 } })).body.data.recipients;
  expect(page1.edges.map((e: any) => e.node.name)).toEqual(['Carla Dias', 'Bruno Lima']);
  expect(page1.pageInfo.hasNextPage).toBe(true);
  const page2 = (await gql<any>(t.url, LIST, { token: alice, variables: { first: 2, after: page1.pageInfo.endCursor } })).body.data
    .recipients;
  expect(page2.edges.map((e: any) => e.node)).toEqual([made[0]]);
  expect(page2.pageInfo.hasNextPage).toBe(false);
  // never the whole key, wallet id or document
  const shown = JSON.stringify([made, page1, page2]);
  for (const secret of ['ana.souza@example.com', 'wal_0011223344', '12345678909']) expect(shown).not.toContain(secret);

  expect((await gql<any>(t.url, DELETE, { token: alice, variables: { id: made[1].id } })).body).toEqual({
    data: { deleteRecipient: true },
  });
  const after = (await gql<any>(t.url, LIST, { token: alice })).body.data.recipients;
  expect(after.edges.map((e: any) => e.node.id)).toEqual([made[2].id, made[0].id]);
  // deleted: a second delete is NOT_FOUND
  expect(codeOf(await gql<any>(t.url, DELETE, { token: alice, variables: { id: made[1].id } }))).toBe('NOT_FOUND');
  // anonymous: UNAUTHENTICATED
  expect(codeOf(await gql<any>(t.url, LIST))).toBe('UNAUTHENTICATED');
});

it("another customer's recipient is NOT_FOUND (delete, createTransfer), like an unknown or malformed id; lists never cross", async () => {
  const alice = await t.token('rcp-owner', 'customer');
  const mallory = await t.token('rcp-mallory', 'customer');
  const theirs = (await create(alice, recipient('Dora', 'Reis', WALLET('wal_dora_0001')))).body.data.createRecipient;

  for (const id of [theirs.id, '00000000-0000-4000-8000-000000000000', 'not-an-id'])
    expect({ id, code: codeOf(await gql<any>(t.url, DELETE, { token: mallory, variables: { id } })) }).toEqual({ id, code: 'NOT_FOUND' });
  expect(await saved('rcp-owner')).toBe(1);
  expect((await gql<any>(t.url, LIST, { token: mallory })).body.data.recipients.edges).toEqual([]);

  const personId = await newPerson(t.url, mallory);
  const quoteId = await newQuote(t.url, mallory);
  const { recipient: _inline, ...input } = transferInput({ quoteId, personId, key: 'rcp-mallory-1' });
  const r = await createTransfer(t.url, mallory, { ...input, recipientId: theirs.id });
  expect(codeOf(r)).toBe('NOT_FOUND');
  expect(await t.app.db.prisma.transfer.count({ where: { ownerId: 'rcp-mallory' } })).toBe(0);
  // the quote is still free: the refusal wrote nothing
  expect((await t.app.db.prisma.quote.findUniqueOrThrow({ where: { id: quoteId } })).usedByTransferId).toBeNull();
});

describe('as strict as the inline recipient of createTransfer, before any upstream call, storing nothing', () => {
  const BAD: [string, unknown][] = [
    ['a CPF key that is not 11 digits', recipient('Eva', 'Melo', PIX('CPF', '123.456.789-09'))],
    ['a PHONE key without +55', recipient('Eva', 'Melo', PIX('PHONE', '+14155550100'))],
    ['an EVP key that is not a UUID', recipient('Eva', 'Melo', PIX('EVP', 'random-key'))],
    ['a PIX destination without its key', recipient('Eva', 'Melo', { type: 'PIX', pixKeyType: 'EMAIL' })],
    ['an unknown PIX key type', recipient('Eva', 'Melo', PIX('IBAN', 'eva@example.com'))],
    ['a WALLET destination without walletId', recipient('Eva', 'Melo', { type: 'WALLET' })],
    ['an address with an unknown country', { ...RECIPIENT, address: { ...RECIPIENT.address, countryCode: 'XX' } }],
    ['an address without line1', { ...RECIPIENT, address: { ...RECIPIENT.address, line1: '' } }],
    ['a customer e-mail that is not one', { ...RECIPIENT, customer: { ...RECIPIENT.customer, email: 'nope' } }],
  ];

  it.each(BAD)('%s', async (_what, input) => {
    const token = await t.token(`rcp-strict-${BAD.findIndex(([w]) => w === _what)}`, 'customer');
    const sub = `rcp-strict-${BAD.findIndex(([w]) => w === _what)}`;
    const personId = await newPerson(t.url, token);
    const quoteId = await newQuote(t.url, token);
    const inline = { ...transferInput({ quoteId, personId, key: `${sub}-key` }), recipient: input };
    const before = upstreamCalls();
    const saving = await create(token, input);
    const sending = await gql<any>(t.url, TRANSFER, { token, variables: { i: inline } });
    expect(upstreamCalls() - before).toBe(0);
    expect([codeOf(saving), codeOf(sending)]).toEqual(['BAD_USER_INPUT', 'BAD_USER_INPUT']);
    // the same refusal whichever way the recipient comes (the path differs: input.… or input.recipient.…)
    expect(JSON.stringify(saving.body.errors)).not.toMatch(/123\.456|random-key|eva@example\.com/);
    expect(await saved(sub)).toBe(0);
    expect(await t.app.db.prisma.transfer.count({ where: { ownerId: sub } })).toBe(0);
  });

  it('a PIX key the alias directory does not know: BAD_USER_INPUT (reason PIX_KEY_NOT_FOUND) after the one look-up, nothing stored', async () => {
    const token = await t.token('rcp-unknown-key', 'customer');
    const before = t.app.sandbox!.ctx.calls.filter((c) => c.path.includes('/alias/directory')).length;
    const r = await create(token, recipient('Fabio', 'Nunes', PIX('CPF', '00000000000')));
    expect(r.body.errors?.[0]?.extensions).toMatchObject({
      code: 'BAD_USER_INPUT',
      reason: 'PIX_KEY_NOT_FOUND',
      fields: [expect.objectContaining({ path: 'input.destination.pixKey', code: 'NOT_VERIFIED' })],
    });
    expect(r.body.errors?.[0]?.extensions?.detail).toMatch(/no PIX account is registered for this key/);
    expect(JSON.stringify(r.body.errors)).not.toContain('00000000000');
    expect(t.app.sandbox!.ctx.calls.filter((c) => c.path.includes('/alias/directory')).length - before).toBe(1);
    expect(await saved('rcp-unknown-key')).toBe(0);
  });
});

it('createTransfer takes exactly one of recipient and recipientId: both or neither is BAD_USER_INPUT before anything is written', async () => {
  const token = await t.token('rcp-one-of', 'customer');
  const mine = (await create(token, recipient('Gil', 'Prado', WALLET('wal_gil_0001')))).body.data.createRecipient;
  const personId = await newPerson(t.url, token);
  const quoteId = await newQuote(t.url, token);
  const { recipient: inline, ...rest } = transferInput({ quoteId, personId, key: 'rcp-one-of-1' });
  const before = upstreamCalls();
  const both = await gql<any>(t.url, TRANSFER, { token, variables: { i: { ...rest, recipient: inline, recipientId: mine.id } } });
  const neither = await gql<any>(t.url, TRANSFER, { token, variables: { i: rest } });
  const nulls = await gql<any>(t.url, TRANSFER, { token, variables: { i: { ...rest, recipient: null, recipientId: null } } });
  expect(upstreamCalls() - before).toBe(0);
  for (const r of [both, neither, nulls]) {
    expect(codeOf(r)).toBe('BAD_USER_INPUT');
    expect(r.body.errors![0]!.extensions!.detail).toMatch(/exactly one of recipient .* and recipientId/);
  }
  expect(await t.app.db.prisma.transfer.count({ where: { ownerId: 'rcp-one-of' } })).toBe(0);
  expect(await t.app.db.prisma.idempotencyRecord.count({ where: { scope: 'rcp-one-of' } })).toBe(0);
});

it('createRecipient spends the alias look-up quota of resolveAlias (one budget for the directory)', async () => {
  const token = await t.token('rcp-quota', 'customer');
  for (let i = 0; i < 10; i++)
    expect((await create(token, recipient('Hugo', `Q${i}`, WALLET(`wal_quota_${i}`)))).body.errors).toBeUndefined();
  const over = await create(token, recipient('Hugo', 'Over', WALLET('wal_quota_x')));
  expect(codeOf(over)).toBe('RATE_LIMITED');
  expect(over.status).toBe(429);
  const alias = await gql<any>(t.url, '{ resolveAlias(countryCode: "BR", keyType: "CPF", key: "12345678909") { __typename } }', { token });
  expect(codeOf(alias)).toBe('RATE_LIMITED');
  expect(await saved('rcp-quota')).toBe(10);
});

it('a transfer made from a saved recipient copies it: deleting the recipient changes nothing, and a retry replays', async () => {
  const token = await t.token('rcp-snapshot', 'customer');
  const mine = (await create(token, recipient('Iris', 'Campos', PIX('EMAIL', 'iris.campos@example.com')))).body.data.createRecipient;
  const personId = await newPerson(t.url, token);
  const quoteId = await newQuote(t.url, token);
  const { recipient: _inline, ...rest } = transferInput({ quoteId, personId, key: 'rcp-snapshot-1', card: '4321' });
  const input = { ...rest, recipientId: mine.id };
  const made = await createTransfer(t.url, token, input);
  expect(made.body.errors).toBeUndefined();
  const id: string = made.body.data.createTransfer.id;
  const READ = `query($id: ID!) { transfer(id: $id) { status recipient { name destinationType destination recipientId } } }`;
  const expected = { name: 'Iris Campos', destinationType: 'PIX', destination: 'i•••@example.com', recipientId: mine.id };
  expect((await gql<any>(t.url, READ, { token, variables: { id } })).body.data.transfer.recipient).toEqual(expected);

  expect((await gql<any>(t.url, DELETE, { token, variables: { id: mine.id } })).body.data.deleteRecipient).toBe(true);
  // the saga pays the copy out (the gateway got the recipient from the transfer's own details)
  await waitForStatus(t, token, id, ['COMPLETED'], 20_000);
  expect((await gql<any>(t.url, READ, { token, variables: { id } })).body.data.transfer.recipient).toEqual(expected);
  const row = await t.app.db.prisma.transfer.findUniqueOrThrow({ where: { id } });
  expect((row.details as any).recipient).toMatchObject({
    recipientId: mine.id,
    customer: { firstName: 'Iris', lastName: 'Campos' },
    destination: { type: 'PIX', pixKeyType: 'EMAIL', pixKey: 'iris.campos@example.com' },
  });
  // the same key and arguments: the same transfer (the saved recipient is gone, the answer is the recorded one)
  const retry = await gql<any>(t.url, TRANSFER, { token, variables: { i: input } });
  expect(retry.body.errors).toBeUndefined();
  expect(retry.body.data.createTransfer.id).toBe(id);
  // the same key with another recipientId: IDEMPOTENCY_KEY_REUSED
  const other = await gql<any>(t.url, TRANSFER, {
    token,
    variables: { i: { ...input, recipientId: '00000000-0000-4000-8000-000000000000' } },
  });
  expect(codeOf(other)).toBe('IDEMPOTENCY_KEY_REUSED');
}, 60_000);
