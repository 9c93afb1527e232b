/**
 * 6. Hostile input: a schema-aware fuzzer. The schema is introspected from the running service; fast-check
 * (seeded) generates operations from it — every root field of Query and Mutation with valid-shaped arguments
 * (inline or as variables), wrong-typed and unknown ones, random selections — plus broken documents
 * (truncated, unbalanced, unknown fields, deep nesting, alias floods, huge strings, bad JSON, wrong content
 * types), sent as anonymous, customer, back-office and admin callers. Every string VALUE the fuzzer invents carries
 * a canary (unknown field and argument NAMES do not: naming the caller's own unknown identifier is GraphQL's
 * standard message, not an echo of data). Checked: no 5xx, the process still answers, no stack trace, no canary
 * in any error (input echo).
 */
import fc from 'fast-check';
import {
  buildClientSchema,
  getIntrospectionQuery,
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
  type GraphQLInputType,
  type GraphQLObjectType,
  type GraphQLSchema,
  type GraphQLOutputType,
} from 'graphql';
import { startTestApp } from '../../helpers/app';
import { pool, serviceLogLevel, type Scenario } from '../lib/common';

const CANARY = 'Zq9xCanary';

interface Case {
  who: 'anonymous' | 'customer' | 'backoffice' | 'admin';
  kind: string;
  /** Raw HTTP body and content type (most cases: JSON {query, variables}). */
  body: string;
  contentType: string;
}

const canaryString = fc.tuple(fc.string({ maxLength: 12 }), fc.nat(9999)).map(([s, n]) => `${CANARY}${n}${s.replace(/["\\\n\r]/g, '')}`);

/** A value for an input type: mostly valid-shaped, sometimes wrong (type, null, unknown field). */
function valueArb(schema: GraphQLSchema, type: GraphQLInputType, depth: number): fc.Arbitrary<unknown> {
  const wrong = fc.oneof(
    fc.constant(null),
    fc.integer(),
    fc.boolean(),
    canaryString,
    fc.constant([]),
    fc.constant({ fuzzUnknownField: 1 }),
  );
  const inner = (): fc.Arbitrary<unknown> => {
    if (isNonNullType(type)) return valueArb(schema, type.ofType as GraphQLInputType, depth);
    if (isListType(type))
      return depth > 3 ? fc.constant([]) : fc.array(valueArb(schema, type.ofType as GraphQLInputType, depth + 1), { maxLength: 3 });
    if (isEnumType(type)) return fc.constantFrom(...type.getValues().map((v) => v.name));
    if (isInputObjectType(type)) {
      if (depth > 4) return fc.constant({});
      const fields = Object.values(type.getFields());
      return fc.record(Object.fromEntries(fields.map((f) => [f.name, valueArb(schema, f.type, depth + 1)])), {
        requiredKeys: fields.filter((f) => isNonNullType(f.type)).map((f) => f.name),
      });
    }
    if (isScalarType(type)) {
      switch (type.name) {
        case 'Int':
          return fc.oneof(fc.integer({ min: -5, max: 200 }), fc.integer());
        case 'Float':
          return fc.double({ noNaN: true });
        case 'Boolean':
          return fc.boolean();
        case 'ID':
          return fc.oneof(fc.uuid(), canaryString);
        case 'Decimal':
          return fc.oneof(fc.constantFrom('100.00', '0.01', '-1', '1e9', '99999999999999999999.999'), canaryString);
        case 'DateTime':
          return fc.oneof(
            fc.date({ noInvalidDate: true }).map((d) => d.toISOString()),
            canaryString,
          );
        default:
          return canaryString;
      }
    }
    return canaryString;
  };
  return fc.oneof({ weight: 6, arbitrary: inner() }, { weight: 1, arbitrary: wrong });
}

function selection(t: GraphQLOutputType, depth: number, r: () => number): string {
  const named = getNamedType(t);
  if (isObjectType(named) || isInterfaceType(named)) {
    if (depth > 3) return '{ __typename }';
    const fields = Object.values((named as GraphQLObjectType).getFields()).filter((f) => f.args.every((a) => !isNonNullType(a.type)));
    const picked = fields.filter(() => r() < 0.5).slice(0, 6);
    const parts = picked.map((f) => `${f.name} ${selection(f.type, depth + 1, r)}`.trim());
    return `{ __typename ${parts.join(' ')} }`;
  }
  if (isUnionType(named)) return '{ __typename }';
  return '';
}

const literal = (v: unknown): string => {
  if (v === null || v === undefined) return 'null';
  if (Array.isArray(v)) return `[${v.map(literal).join(', ')}]`;
  if (typeof v === 'object')
    return `{ ${Object.entries(v as object)
      .map(([k, x]) => `${k}: ${literal(x)}`)
      .join(', ')} }`;
  if (typeof v === 'string') return JSON.stringify(v);
  return String(v);
};

function operationArb(schema: GraphQLSchema): fc.Arbitrary<Omit<Case, 'who'>> {
  const roots: ['query' | 'mutation', GraphQLObjectType][] = [
    ['query', schema.getQueryType()!],
    ['mutation', schema.getMutationType()!],
  ];
  const fieldArbs = roots.flatMap(([op, root]) =>
    Object.values(root.getFields()).map((f) =>
      fc
        .tuple(
          fc.record(Object.fromEntries(f.args.map((a: GraphQLArgument) => [a.name, valueArb(schema, a.type, 0)])), { requiredKeys: [] }),
          fc.boolean(), // as variables or inline
          fc.double({ min: 0, max: 1, noNaN: true }), // selection randomness
          fc.boolean(), // add an unknown argument
        )
        .map(([args, asVars, x, extraArg]) => {
          let s = Math.floor(x * 2 ** 31) || 1;
          const r = () => (s = (s * 16807) % 2147483647) / 2147483647;
          const sel = selection(f.type, 0, r);
          const names = Object.keys(args);
          const argText = (asVars ? names.map((n) => `${n}: $${n}`) : names.map((n) => `${n}: ${literal(args[n])}`)).concat(
            extraArg ? ['fuzzUnknownArg: 1'] : [],
          );
          const defs =
            asVars && names.length ? `(${names.map((n) => `$${n}: ${String(f.args.find((a) => a.name === n)!.type)}`).join(', ')})` : '';
          const query = `${op} Fuzz${defs} { ${f.name}${argText.length ? `(${argText.join(', ')})` : ''} ${sel} }`;
          return {
            kind: `${op}.${f.name}`,
            contentType: 'application/json',
            body: JSON.stringify({ query, variables: asVars ? args : undefined }),
          };
        }),
    ),
  );
  const broken = fc
    .oneof(
      canaryString.map((s) => ({ kind: 'garbage query', q: `{ ${s} ` })),
      fc.nat(40).map((n) => ({ kind: 'deep nesting', q: `{ viewer ${'{ id '.repeat(n + 20)}${'}'.repeat(n + 21)}` })),
      fc
        .nat(300)
        .map((n) => ({ kind: 'alias flood', q: `{ ${Array.from({ length: n + 50 }, (_, i) => `a${i}: viewer { id }`).join(' ')} }` })),
      fc.nat(9999).map((n) => ({ kind: 'unknown field', q: `{ fuzzUnknown${n} { id } }` })),
      canaryString.map((s) => ({ kind: 'huge string', q: `{ transfer(id: "${s.repeat(2000)}") { id } }` })),
      fc.constant({ kind: 'introspection of the type system', q: '{ __schema { types { name fields { name } } } }' }),
      fc.constant({ kind: 'subscription over HTTP', q: 'subscription { transferUpdated(transferId: "x") { id } }' }),
      fc.constant({ kind: 'two operations, no name', q: 'query A { viewer { id } } query B { viewer { id } }' }),
    )
    .map((x) => ({ kind: x.kind, contentType: 'application/json', body: JSON.stringify({ query: x.q }) }));
  const badBodies = fc.oneof(
    canaryString.map((s) => ({ kind: 'bad JSON', contentType: 'application/json', body: `{"query": "${s}` })),
    canaryString.map((s) => ({ kind: 'text body', contentType: 'text/plain', body: s })),
    canaryString.map((s) => ({
      kind: 'variables not an object',
      contentType: 'application/json',
      body: JSON.stringify({ query: '{ viewer { id } }', variables: s }),
    })),
    fc.constant({ kind: 'query not a string', contentType: 'application/json', body: JSON.stringify({ query: { a: 1 } }) }),
    fc.constant({
      kind: 'batch',
      contentType: 'application/json',
      body: JSON.stringify([{ query: '{ viewer { id } }' }, { query: '{ viewer { id } }' }]),
    }),
  );
  return fc.oneof({ weight: 8, arbitrary: fc.oneof(...fieldArbs) }, { weight: 2, arbitrary: broken }, { weight: 1, arbitrary: badBodies });
}

const STACK = /\n\s+at [^\n]+:\d+:\d+|"stacktrace"|node_modules\/|\/src\/[\w/.-]+\.ts/;

export const hostileInput: Scenario = async ({ seed, long, log }) => {
  const cases = long ? 5000 : 400;
  const app = await startTestApp({
    LOG_LEVEL: serviceLogLevel(),
    RATE_LIMIT_MUTATIONS_PER_MINUTE: '1000000',
    RATE_LIMIT_UPSTREAM_POINTS_PER_MINUTE: '1000000',
    RATE_LIMIT_ALIAS_LOOKUPS_PER_MINUTE: '1000000',
    RATE_LIMIT_ANONYMOUS_PER_MINUTE: '1000000',
  });
  const violations: string[] = [];
  try {
    const tokens = {
      anonymous: null,
      customer: await app.token('fuzz-customer', 'customer'),
      backoffice: await app.token('fuzz-staff', 'backoffice'),
      admin: await app.token('fuzz-admin', 'admin'),
    } as const;
    const intro = await fetch(`${app.url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${tokens.admin}` },
      body: JSON.stringify({ query: getIntrospectionQuery() }),
    });
    const schema = buildClientSchema(((await intro.json()) as { data: never }).data);
    const arb = fc
      .tuple(fc.constantFrom<Case['who']>('anonymous', 'customer', 'backoffice', 'admin'), operationArb(schema))
      .map(([who, c]) => ({ who, ...c }));
    const samples = fc.sample(arb, { seed, numRuns: cases });
    log(
      `hostile input: ${samples.length} cases over ${Object.keys(schema.getQueryType()!.getFields()).length} queries and ${Object.keys(schema.getMutationType()!.getFields()).length} mutations`,
    );
    const statuses = new Map<number, number>();
    const kinds = new Set<string>();
    await pool(samples, 4, async (c) => {
      kinds.add(c.kind);
      const tok = tokens[c.who];
      let status: number;
      let text: string;
      try {
        const res = await fetch(`${app.url}/graphql`, {
          method: 'POST',
          headers: {
            'content-type': c.contentType,
            accept: 'application/graphql-response+json, application/json',
            ...(tok ? { authorization: `Bearer ${tok}` } : {}),
          },
          body: c.body,
          signal: AbortSignal.timeout(30_000),
        });
        status = res.status;
        text = await res.text();
      } catch (e) {
        violations.push(`${c.kind} (${c.who}): no answer (${(e as Error).message}) for ${c.body.slice(0, 200)}`);
        return;
      }
      statuses.set(status, (statuses.get(status) ?? 0) + 1);
      if (status >= 500) violations.push(`${c.kind} (${c.who}): HTTP ${status} ${text.slice(0, 200)} for ${c.body.slice(0, 200)}`);
      if (STACK.test(text)) violations.push(`${c.kind} (${c.who}): stack trace or source path in ${text.slice(0, 300)}`);
      let errorsText = text;
      try {
        const parsed = JSON.parse(text) as { errors?: unknown };
        errorsText = JSON.stringify(parsed.errors ?? '');
      } catch {
        /* not JSON: the whole text counts */
      }
      if (errorsText.includes(CANARY))
        violations.push(
          `${c.kind} (${c.who}): input echoed in the error: ${errorsText.slice(Math.max(0, errorsText.indexOf(CANARY) - 160), errorsText.indexOf(CANARY) + 60)}`,
        );
    });
    const health = await fetch(`${app.url}/healthz`)
      .then((r) => r.status)
      .catch(() => 0);
    if (health !== 200) violations.push(`the service stopped answering /healthz (${health}) after the fuzzing`);
    return {
      id: 6,
      name: 'hostile input',
      operations: samples.length,
      faults: samples.length,
      figures: {
        'kinds of case': kinds.size,
        'HTTP statuses': [...statuses]
          .sort()
          .map(([s, n]) => `${s}×${n}`)
          .join(' '),
        '5xx': [...statuses].filter(([s]) => s >= 500).reduce((a, [, n]) => a + n, 0),
      },
      violations: dedupe(violations),
    };
  } finally {
    await app.close();
  }
};

/** One line per distinct problem (the fuzzer finds the same one many times). */
function dedupe(v: string[]): string[] {
  const seen = new Map<string, number>();
  for (const x of v) {
    const k = x.replace(/\d+/g, 'N').slice(0, 120);
    seen.set(k, (seen.get(k) ?? 0) + 1);
  }
  const firsts = new Map<string, string>();
  for (const x of v) {
    const k = x.replace(/\d+/g, 'N').slice(0, 120);
    if (!firsts.has(k)) firsts.set(k, x);
  }
  return [...firsts].map(([k, x]) => (seen.get(k)! > 1 ? `${x} (×${seen.get(k)})` : x));
}
