/**
 * The authorization matrix: every operation of the built schema (enumerated by introspection, so a new
 * operation fails this test until it is declared below), run anonymously and as each role.
 * Expected: roles listed → allowed (anything but UNAUTHENTICATED/FORBIDDEN: NOT_FOUND, BAD_USER_INPUT or data);
 * other roles → FORBIDDEN; anonymous → UNAUTHENTICATED (subscriptions: the socket closes 4403).
 */
import {
  getNamedType,
  isEnumType,
  isInputObjectType,
  isListType,
  isNonNullType,
  isObjectType,
  isScalarType,
  isInterfaceType,
  isUnionType,
  type GraphQLArgument,
  type GraphQLField,
  type GraphQLInputType,
  type GraphQLSchema,
} from 'graphql';
import { buildApiSchema } from '../../src/modules/modules';
import { gql, startTestApp, type TestApp } from '../helpers/app';
import { collect, wsClient } from '../helpers/ws';

type RoleName = 'customer' | 'backoffice' | 'admin';
const ANY: RoleName[] = ['customer', 'backoffice', 'admin'];
const STAFF: RoleName[] = ['backoffice', 'admin'];
const ADMIN: RoleName[] = ['admin'];
const CUSTOMER: RoleName[] = ['customer'];

/** THE table: who may call what. Customers are further limited to what they own (see the last block). */
const MATRIX: Record<string, RoleName[]> = {
  // core
  'Query.viewer': ANY,
  'Query.transfer': ANY,
  'Query.transfers': ANY,
  'Mutation.createQuote': ANY,
  'Query.corridors': ANY,
  'Query.corridor': ANY,
  'Mutation.validatePerson': ANY,
  'Mutation.createPerson': ANY,
  'Query.persons': ANY, // the caller's own
  // saved recipients: every role for itself (as createTransfer, which takes recipientId); another caller's is NOT_FOUND
  'Mutation.createRecipient': ANY,
  'Query.recipients': ANY,
  'Mutation.deleteRecipient': ANY,
  'Mutation.checkCard': ANY,
  'Mutation.checkBankAccount': ANY,
  'Mutation.createTransfer': ANY,
  'Mutation.resumeTransfer': ANY,
  'Mutation.captureTransfer': STAFF,
  'Mutation.voidTransfer': ANY,
  'Mutation.cancelTransfer': ANY, // customers: their own (another's is NOT_FOUND)
  'Mutation.refundTransfer': STAFF,
  'Query.refundsNeedingAttention': STAFF,
  'Subscription.transferUpdated': ANY,
  'Subscription.myTransfers': ANY, // customers: own list (another ownerId → FORBIDDEN); staff: all or by owner
  // operators
  'Mutation.publishSystemNotice': ADMIN,
  'Subscription.systemNotices': ANY,
  // webhooks
  'Query.webhookSubscriptions': ADMIN,
  'Query.webhookSigningSecrets': ADMIN,
  'Mutation.registerWebhookSubscription': ADMIN,
  'Mutation.deleteWebhookSubscription': ADMIN,
  'Mutation.rotateWebhookSecret': ADMIN,
  'Mutation.deleteWebhookSecret': ADMIN,
  'Query.deadLetteredWebhookEvents': STAFF,
  'Query.rejectedWebhookEvents': STAFF,
  'Mutation.requeueWebhookEvent': STAFF,
  // the API surface
  'Query.fxQuoteV1': ANY,
  'Query.personRequirements': ANY,
  'Query.resolveAlias': ANY,
  'Query.bank': ANY,
  'Query.banks': ANY,
  'Query.verificationSession': ANY,
  'Query.verification': ANY,
  'Mutation.startVerificationSession': CUSTOMER,
  'Mutation.createVerification': CUSTOMER,
  'Query.wallet': ANY,
  'Query.walletBalance': ANY,
  'Query.walletStatement': ANY,
  'Mutation.createWallet': CUSTOMER,
  'Query.payerBalances': STAFF,
  'Query.agents': STAFF,
  'Query.documents': STAFF,
  'Mutation.createAgent': ADMIN,
  'Mutation.checkCardLegacy': CUSTOMER,
  // the remittances platform's other endpoints (src/modules/platform)
  'Query.platformPerson': STAFF,
  'Mutation.createPlatformPerson': STAFF,
  'Mutation.updatePlatformPerson': STAFF,
  'Query.platformComplianceLevels': STAFF,
  'Mutation.uploadPlatformDocument': STAFF,
  'Query.platformAddressCheck': STAFF,
  'Mutation.createPlatformPayoutQuote': STAFF,
  'Mutation.createPlatformFundingAccount': STAFF,
  'Mutation.createPlatformRecipientAccount': STAFF,
  'Query.platformPayoutDestinations': STAFF,
  'Query.platformPayoutBanks': STAFF,
  'Query.platformPayoutSchema': STAFF,
  'Mutation.createPlatformFxTransaction': ADMIN,
  'Query.platformFxTransaction': STAFF,
  'Query.platformFxTransactions': STAFF,
  'Query.platformFxTransactionStatusHistory': STAFF,
  'Mutation.cancelPlatformFxTransaction': ADMIN,
  'Query.platformFxTransactionMetadata': STAFF,
  'Mutation.setPlatformFxTransactionMetadata': ADMIN,
  'Query.platformFxTransactionLimits': STAFF,
  'Query.platformWallets': STAFF,
  'Query.platformWallet': STAFF,
  'Mutation.depositToPlatformWallet': ADMIN,
  'Mutation.createAgentLegacy': ADMIN,
};

let schema: GraphQLSchema;
let t: TestApp;
const tokens: Partial<Record<RoleName, string>> = {};

beforeAll(async () => {
  schema = await buildApiSchema();
  t = await startTestApp({
    CARD_CHECK_LEGACY_ENABLED: 'true',
    RATE_LIMIT_MUTATIONS_PER_MINUTE: '1000',
    RATE_LIMIT_UPSTREAM_POINTS_PER_MINUTE: '1000',
  });
  for (const r of ANY) tokens[r] = await t.token(`matrix-${r}`, r);
}, 90_000);
afterAll(() => t?.close());

/** A type-valid (not necessarily meaningful) value for an input type: coercion must pass so auth is reached. */
function sample(type: GraphQLInputType, depth = 0): unknown {
  if (isNonNullType(type)) return sample(type.ofType, depth);
  if (isListType(type)) return [sample(type.ofType, depth)];
  if (isEnumType(type)) return type.getValues()[0]!.value === undefined ? type.getValues()[0]!.name : type.getValues()[0]!.name;
  if (isInputObjectType(type)) {
    const out: Record<string, unknown> = {};
    for (const f of Object.values(type.getFields())) if (isNonNullType(f.type) && depth < 6) out[f.name] = sample(f.type, depth + 1);
    return out;
  }
  if (isScalarType(type)) {
    switch (type.name) {
      case 'Int':
        return 1;
      case 'Float':
        return 1.5;
      case 'Boolean':
        return true;
      case 'ID':
        return '00000000-0000-4000-8000-000000000000';
      case 'Decimal':
        return '1.00';
      case 'DateTime':
        return '2026-01-01T00:00:00Z';
      case 'JSONObject':
        return {};
      default:
        return 'x';
    }
  }
  throw new Error(`no sample for ${String(type)}`);
}

function operationText(kind: 'query' | 'mutation' | 'subscription', field: GraphQLField<unknown, unknown>) {
  const required = field.args.filter((a: GraphQLArgument) => isNonNullType(a.type));
  const vars = required.map((a) => `$${a.name}: ${String(a.type)}`).join(', ');
  const args = required.map((a) => `${a.name}: $${a.name}`).join(', ');
  const named = getNamedType(field.type);
  const selection = isObjectType(named) || isInterfaceType(named) || isUnionType(named) ? ' { __typename }' : '';
  const text = `${kind}${vars ? `(${vars})` : ''} { ${field.name}${args ? `(${args})` : ''}${selection} }`;
  const variables = Object.fromEntries(required.map((a) => [a.name, sample(a.type)]));
  return { text, variables };
}

function operations() {
  const out: { key: string; kind: 'query' | 'mutation' | 'subscription'; field: GraphQLField<unknown, unknown> }[] = [];
  for (const [kind, type] of [
    ['query', schema.getQueryType()],
    ['mutation', schema.getMutationType()],
    ['subscription', schema.getSubscriptionType()],
  ] as const) {
    if (!type) continue;
    for (const field of Object.values(type.getFields())) out.push({ key: `${type.name}.${field.name}`, kind, field });
  }
  return out;
}

const codeOf = (errors: { extensions?: Record<string, unknown> }[] | undefined) => errors?.[0]?.extensions?.code as string | undefined;

async function runHttp(kind: 'query' | 'mutation', field: GraphQLField<unknown, unknown>, token?: string) {
  const { text, variables } = operationText(kind, field);
  const r = await gql<any>(t.url, text, { token, variables });
  const code = codeOf(r.body.errors);
  // coercion or validation problems would hide the auth outcome: make them fail loudly
  expect([
    undefined,
    'UNAUTHENTICATED',
    'FORBIDDEN',
    'NOT_FOUND',
    'BAD_USER_INPUT',
    'INVALID_STATE',
    'UPSTREAM_REJECTED',
    'QUOTE_EXPIRED',
    'QUOTE_ALREADY_USED',
    'IDEMPOTENCY_KEY_REUSED',
  ]).toContain(code);
  if (code === 'BAD_USER_INPUT') expect(r.status).toBe(200); // a resolver-level refusal, not a GraphQL coercion error
  return code;
}

async function runWs(field: GraphQLField<unknown, unknown>, token?: string): Promise<string | undefined> {
  const { text, variables } = operationText('subscription', field);
  const { client, closed } = wsClient(t.wsUrl, token);
  try {
    const sub = collect<any>(client, text, variables);
    const outcome = await Promise.race([
      sub.next(1, 1500).then(() => codeOf(sub.results[0]?.errors) ?? (Array.isArray(sub.error) ? codeOf(sub.error as never) : undefined)),
      closed.then((c) => (c.code === 4403 ? 'UNAUTHENTICATED' : `closed ${c.code}`)),
      new Promise<string | undefined>((r) => setTimeout(() => r(undefined), 1200)), // nothing yet = subscribed
    ]).catch(() => undefined);
    sub.dispose();
    return outcome;
  } finally {
    await client.dispose();
  }
}

describe('authorization matrix', () => {
  it('every operation of the schema is declared in the matrix (and nothing stale is)', () => {
    const keys = operations()
      .map((o) => o.key)
      .sort();
    expect(keys.filter((k) => !(k in MATRIX))).toEqual([]);
    expect(Object.keys(MATRIX).filter((k) => !keys.includes(k))).toEqual([]);
  });

  it('each operation × anonymous, customer, backoffice, admin', async () => {
    const failures: string[] = [];
    for (const op of operations()) {
      const allowed = MATRIX[op.key];
      if (!allowed) continue;
      for (const who of ['anonymous', ...ANY] as const) {
        const token = who === 'anonymous' ? undefined : tokens[who];
        const code = op.kind === 'subscription' ? await runWs(op.field, token) : await runHttp(op.kind, op.field, token);
        const expected = who === 'anonymous' ? 'UNAUTHENTICATED' : allowed.includes(who) ? 'allowed' : 'FORBIDDEN';
        const got = code === 'UNAUTHENTICATED' || code === 'FORBIDDEN' ? code : 'allowed';
        if (got !== expected) failures.push(`${op.key} as ${who}: expected ${expected}, got ${code ?? 'data'}`);
      }
    }
    expect(failures).toEqual([]);
  }, 120_000);
});

describe('customers reach only what they own', () => {
  it("another customer's wallet and verification session, by id → NOT_FOUND", async () => {
    const alice = await t.token('owner-alice', 'customer');
    const mallory = await t.token('mallory', 'customer');
    const w = await gql<any>(t.url, `mutation { createWallet(input: { currency: "USD" }) { id } }`, { token: alice });
    const s = await gql<any>(t.url, `mutation { startVerificationSession { id } }`, { token: alice });
    const walletId = w.body.data.createWallet.id;
    const sessionId = s.body.data.startVerificationSession.id;
    const attempts: [string, Record<string, unknown>][] = [
      ['query($id: ID!) { wallet(id: $id) { id } }', { id: walletId }],
      ['query($id: ID!) { walletBalance(walletId: $id) { walletId } }', { id: walletId }],
      ['query($id: ID!) { walletStatement(walletId: $id) { totalCount } }', { id: walletId }],
      ['query($id: ID!) { verificationSession(id: $id) { id } }', { id: sessionId }],
      ['mutation($id: ID!) { createVerification(input: { sessionId: $id }) { id } }', { id: sessionId }],
    ];
    for (const [q, variables] of attempts) {
      const r = await gql<any>(t.url, q, { token: mallory, variables });
      expect({ q, code: codeOf(r.body.errors), data: r.body.data }).toEqual({ q, code: 'NOT_FOUND', data: null });
      const own = await gql<any>(t.url, q, { token: alice, variables });
      expect({ q, errors: own.body.errors }).toEqual({ q, errors: undefined });
    }
  });
});
