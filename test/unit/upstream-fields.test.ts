/**
 * The upstream budget's registry (src/graphql/upstream-fields.ts) is complete: every field with a resolver of
 * its own — every root field and every @FieldResolver — is classified as upstream-backed or local, so a new
 * resolver that calls upstream cannot slip past the budget unnoticed. And the cost of an operation counts each
 * occurrence of an upstream-backed field (aliases, fragment spreads, nested fields).
 */
import 'reflect-metadata';
import { getMetadataStorage } from 'type-graphql';
import { getOperationAST, isObjectType, parse, type GraphQLSchema } from 'graphql';
import { buildApiSchema } from '../../src/modules/modules';
import { LOCAL_FIELDS, UPSTREAM_FIELDS, upstreamCost } from '../../src/graphql/upstream-fields';

let schema: GraphQLSchema;
beforeAll(async () => {
  schema = await buildApiSchema();
});

const classified = (type: string, field: string) => Boolean(UPSTREAM_FIELDS[type]?.includes(field) || LOCAL_FIELDS[type]?.includes(field));

/** "Type.field" of every field whose resolver is code of ours: root fields and type-graphql field resolvers. */
function resolverFields(): string[] {
  const out: string[] = [];
  for (const root of [schema.getQueryType(), schema.getMutationType(), schema.getSubscriptionType()])
    for (const f of Object.keys(root?.getFields() ?? {})) out.push(`${root!.name}.${f}`);
  const storage = getMetadataStorage();
  for (const r of storage.fieldResolvers) {
    const cls = r.getObjectType?.();
    const type = storage.objectTypes.find((o) => o.target === cls)?.name;
    if (type) out.push(`${type}.${r.schemaName}`);
  }
  return [...new Set(out)];
}

describe('upstream-backed field registry', () => {
  it('classifies every root field and every field resolver (upstream-backed or local)', () => {
    const fields = resolverFields();
    expect(fields.length).toBeGreaterThan(60);
    expect(fields.filter((f) => !classified(f.split('.')[0]!, f.split('.')[1]!))).toEqual([]);
  });

  it('names only fields that exist, each once', () => {
    const listed = [...Object.entries(UPSTREAM_FIELDS), ...Object.entries(LOCAL_FIELDS)].flatMap(([type, fs]) =>
      fs.map((f) => `${type}.${f}`),
    );
    expect(listed.length).toBe(new Set(listed).size);
    const missing = listed.filter((tf) => {
      const [type, field] = tf.split('.') as [string, string];
      const t = schema.getType(type);
      return !isObjectType(t) || !t.getFields()[field];
    });
    expect(missing).toEqual([]);
  });

  it('covers the upstream surfaces (fx, fxv1, kyc, checks, directory, platform, wallets, verification, legacy, admin, transfers)', () => {
    for (const f of [
      'fxQuoteV1',
      'personRequirements',
      'resolveAlias',
      'bank',
      'banks',
      'wallet',
      'walletBalance',
      'walletStatement',
      'verificationSession',
      'payerBalances',
      'platformPerson',
    ])
      expect(UPSTREAM_FIELDS.Query).toContain(f);
    for (const f of [
      'createQuote',
      'validatePerson',
      'createPerson',
      'checkCard',
      'checkBankAccount',
      'checkCardLegacy',
      'createTransfer',
      'resumeTransfer',
      'captureTransfer',
      'voidTransfer',
      'createWallet',
      'createAgent',
      'startVerificationSession',
    ])
      expect(UPSTREAM_FIELDS.Mutation).toContain(f);
  });
});

describe('upstreamCost', () => {
  const cost = (q: string) => {
    const document = parse(q);
    return upstreamCost(schema, document, getOperationAST(document)!);
  };
  const fx = (i: number) => `q${i}: fxQuoteV1(sourceCurrency: "USD", destinationCurrency: "BRL") { rate }`;

  it('one point per occurrence: aliases, fragment spreads and nested upstream-backed fields count', () => {
    expect(cost(`{ ${Array.from({ length: 15 }, (_, i) => fx(i)).join(' ')} }`)).toBe(15);
    expect(cost('{ viewer { id } transfers { edges { node { id } } } }')).toBe(0);
    expect(
      cost(
        'query { ...F a: viewer { id } ...F } fragment F on Query { fxQuoteV1(sourceCurrency: "USD", destinationCurrency: "BRL") { rate } }',
      ),
    ).toBe(2);
    expect(
      cost('{ resolveAlias(countryCode: "BR", keyType: "CPF", key: "1") { ... on AliasAccount { bank { name } b2: bank { name } } } }'),
    ).toBe(3);
    expect(cost('mutation { createWallet(input: { currency: "USD" }) { id } publishSystemNotice(input: { message: "x" }) { id } }')).toBe(
      1,
    );
  });
});
