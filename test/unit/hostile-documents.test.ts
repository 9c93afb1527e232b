/**
 * Every per-request analysis of a document — parsing limits aside: validation (graphql-js's rules and ours: depth,
 * aliases, directives, cost, introspection), the refusals (input text, rate limits, upstream budget pricing) — does
 * work proportional to the document's size, whatever its shape. Counted, not timed: the document's nodes are
 * wrapped so that each read of a child list (`selections`, `fields`, `values`, `arguments`, …) counts one step, and
 * the variables are wrapped so that each property read counts one step. HTTP and graphql-ws run this same analysis
 * (admission.ts: one set of rules and refusals).
 */
import 'reflect-metadata';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { buildSchema, getOperationAST, parse, specifiedRules, validate, visit, type DocumentNode } from 'graphql';
import { loadConfig } from '../../src/config';
import { createAdmission } from '../../src/graphql/admission';
import { RateLimiter } from '../../src/shared/rate-limit';
import { upstreamCost } from '../../src/graphql/upstream-fields';

const schema = buildSchema(readFileSync(join(__dirname, '../../schema/schema.graphql'), 'utf8'));
const config = loadConfig({ NODE_ENV: 'test', LOG_LEVEL: 'warn', GRAPHQL_MAX_TOKENS: '100000' });
const limiter = new RateLimiter(
  { mutation: { points: 1e9, durationS: 60 }, upstream: { points: 1e9, durationS: 60 }, tight: { points: 300, durationS: 60 } },
  null,
);
afterAll(() => limiter.close());
const admission = createAdmission({
  config: { ...config, production: true, introspection: false },
  rateLimiter: limiter,
  rules: { mutationRule: 'mutation', queryRules: {}, upstream: { rule: 'upstream', cost: (d, o) => upstreamCost(schema, d, o) } },
});
const caller = { userId: 'hostile', role: 'customer' as const };

const CHILD_LISTS = new Set(['definitions', 'selections', 'fields', 'values', 'arguments', 'variableDefinitions', 'directives']);

/** A copy of the document whose child lists count their reads, and its size in nodes. */
function counting(document: DocumentNode): { document: DocumentNode; size: number; steps: () => number } {
  let steps = 0;
  let size = 0;
  const wrap = (node: unknown): unknown => {
    if (Array.isArray(node)) return node.map(wrap);
    if (node === null || typeof node !== 'object') return node;
    size++;
    const copy: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(node)) {
      if (k === 'loc') continue;
      const wrapped = wrap(v);
      if (CHILD_LISTS.has(k))
        Object.defineProperty(copy, k, {
          enumerable: true,
          get: () => {
            steps++;
            return wrapped;
          },
        });
      else copy[k] = wrapped;
    }
    return Object.freeze(copy);
  };
  return { document: wrap(document) as DocumentNode, size, steps: () => steps };
}

/** Variables whose every property read counts one step. */
function countingValue(value: unknown, count: () => void): unknown {
  if (value === null || typeof value !== 'object') return value;
  const inner: Record<string, unknown> | unknown[] = Array.isArray(value) ? [] : {};
  for (const [k, v] of Object.entries(value)) (inner as Record<string, unknown>)[k] = countingValue(v, count);
  return new Proxy(inner, {
    get(target, key, receiver) {
      count();
      return Reflect.get(target, key, receiver) as unknown;
    },
  });
}

/** What a transport does with a document before running it: validate, then the admission's refusals. */
async function analyse(document: DocumentNode, variables: unknown, transport: 'http' | 'ws') {
  const errors = validate(schema, document, [...specifiedRules, ...admission.validationRules]);
  if (errors.length) return { errors: errors.map((e) => e.extensions?.code ?? e.message) };
  const refusal = await admission.refuse({ document, operation: getOperationAST(document), variables, caller, transport });
  return { errors: refusal ? [refusal.extensions.code] : [] };
}

/** Steps per node: a linear analysis stays under this whatever the shape (each rule walks the document a few times). */
const STEPS_PER_NODE = 40;

async function expectLinear(text: string, variables?: unknown) {
  const parsed = parse(text, { maxTokens: 100_000 });
  const c = counting(parsed);
  let variableSteps = 0;
  const vars = countingValue(variables ?? {}, () => variableSteps++);
  for (const transport of ['http', 'ws'] as const) await analyse(c.document, vars, transport);
  expect(c.steps()).toBeLessThanOrEqual(STEPS_PER_NODE * c.size);
  const variableNodes = JSON.stringify(variables ?? {}).length;
  expect(variableSteps).toBeLessThanOrEqual(4 * variableNodes);
  return { steps: c.steps(), size: c.size };
}

/** A chain of n fragments, each spreading the next `fanout` times: 2^n paths for fanout 2. */
const fragmentChain = (n: number, fanout = 2, leaf = '__typename') => {
  let q = '{ ...F0 }';
  for (let i = 0; i < n; i++) q += ` fragment F${i} on Query { ${`...F${i + 1} `.repeat(fanout)}}`;
  return `${q} fragment F${n} on Query { ${leaf} }`;
};

describe('per-request analysis is linear in the document', () => {
  it('a chain of fragments each spreading the next twice (the ~1 KB document that walked 2^n paths)', async () => {
    for (const n of [10, 20, 40]) await expectLinear(fragmentChain(n));
    // with an upstream-backed field at the end: the budget's price is the number of paths, worked out per fragment
    const chain = parse(fragmentChain(40, 2, 'banks(countryCode: "BR") { totalCount }'));
    expect(upstreamCost(schema, chain, getOperationAST(chain)!)).toBe(2 ** 40);
  });

  it('what the fragment paths price beyond the limits is refused, without walking them', async () => {
    const doc = parse(fragmentChain(30, 2, 'banks(countryCode: "BR") { totalCount }'));
    const c = counting(doc);
    for (const transport of ['http', 'ws'] as const)
      expect((await analyse(c.document, {}, transport)).errors).toEqual(['QUERY_TOO_COMPLEX']);
    expect(c.steps()).toBeLessThanOrEqual(STEPS_PER_NODE * c.size);
    // within the cost limit, the upstream budget prices every path: 2^15 points, over a budget of 300
    const small = createAdmission({
      config: { ...config, production: true, introspection: false },
      rateLimiter: limiter,
      rules: { mutationRule: 'mutation', queryRules: {}, upstream: { rule: 'tight', cost: (d, o) => upstreamCost(schema, d, o) } },
    });
    const budget = parse(fragmentChain(15, 2, 'banks(countryCode: "BR") { totalCount }'));
    const refusal = await small.refuse({ document: budget, operation: getOperationAST(budget), variables: {}, caller, transport: 'ws' });
    expect(refusal?.extensions.code).toBe('RATE_LIMITED');
  });

  const field = fc.constantFrom(
    '__typename',
    'viewer { id role }',
    'corridors { sourceCurrency maxAmount { amount } }',
    'banks(countryCode: "BR", first: 2) { totalCount }',
  );
  /** A random DAG of fragments on Query: fragment i spreads later ones, any number of times. */
  const fragmentDag = fc
    .integer({ min: 1, max: 24 })
    .chain((n) =>
      fc.tuple(
        fc.constant(n),
        fc.array(fc.tuple(fc.array(field, { maxLength: 3 }), fc.array(fc.integer({ min: 1, max: 24 }), { maxLength: 4 })), {
          minLength: n,
          maxLength: n,
        }),
      ),
    )
    .map(([n, defs]) => {
      let q = '{ ...F0 }';
      defs.forEach(([fields, spreads], i) => {
        const targets = spreads.map((s) => i + s).filter((t) => t < n);
        const body = [...fields, ...targets.map((t) => `...F${t}`)];
        q += ` fragment F${i} on Query { ${body.length ? body.join(' ') : '__typename'} }`;
      });
      return q;
    });

  it('random fragment DAGs', async () => {
    await fc.assert(
      fc.asyncProperty(fragmentDag, (q) => expectLinear(q).then(() => undefined)),
      { numRuns: 60 },
    );
  });

  it('wide and deep selections, many aliases and directives', async () => {
    await expectLinear(`{ ${'viewer { id } '.repeat(1500)} }`);
    await expectLinear(`{ ${Array.from({ length: 1000 }, (_, i) => `a${i}: viewer { id }`).join(' ')} }`);
    await expectLinear(`{ ${'... on Query { '.repeat(500)}__typename${' }'.repeat(500)} }`);
    await expectLinear(`{ ${'viewer @include(if: true) { id } '.repeat(800)} }`);
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 1, max: 100 }), fc.integer({ min: 1, max: 30 }), (width, depth) =>
        expectLinear(`{ ${`... on Query { ${'__typename '.repeat(width)}`.repeat(depth)}${' }'.repeat(depth)} }`).then(() => undefined),
      ),
      { numRuns: 15 },
    );
  });

  it('many variables and nested input values (literals and variables)', async () => {
    const vars = Array.from({ length: 1000 }, (_, i) => `$v${i}: String`).join(' ');
    await expectLinear(`query Q(${vars}) { __typename }`);
    const nested = (d: number): string => (d === 0 ? '"x"' : `{ k: ${nested(d - 1)} }`);
    await expectLinear(`mutation { createPlatformPayoutQuote(request: ${nested(200)}) }`);
    const deep: Record<string, unknown> = {};
    let at = deep;
    for (let i = 0; i < 3000; i++) at = (at.k = { a: [1, 'two', { b: null }] }) as Record<string, unknown>;
    await expectLinear('query Q($v: String) { __typename }', { v: deep });
  });
});

describe('invalid text at any depth', () => {
  const nulAt = (depth: number) => {
    const root: Record<string, unknown> = {};
    let at = root;
    for (let i = 0; i < depth; i++) at = (at.k = {}) as Record<string, unknown>;
    at.s = 'a\u0000b';
    return root;
  };
  it.each([1, 64, 65, 500, 20_000])(
    'a NUL %i levels down in the variables is refused (BAD_USER_INPUT) on both transports',
    async (depth) => {
      const document = parse('query Q($v: String) { __typename }');
      for (const transport of ['http', 'ws'] as const) {
        const refusal = await admission.refuse({
          document,
          operation: getOperationAST(document),
          variables: { v: nulAt(depth) },
          caller,
          transport,
        });
        expect(refusal?.extensions.code).toBe('BAD_USER_INPUT');
        expect(refusal?.message).not.toContain('\u0000');
      }
    },
  );
  it('a NUL in an object key, deep in a list, is refused too', async () => {
    const document = parse('query Q($v: String) { __typename }');
    const variables = { v: [[[{ ok: 1 }, { ['k\u0000']: 1 }]]] };
    expect(
      (await admission.refuse({ document, operation: getOperationAST(document), variables, caller, transport: 'ws' }))?.extensions.code,
    ).toBe('BAD_USER_INPUT');
  });
  it('a document literal with a NUL nested deep in an object value is refused', async () => {
    let literal = '"a\\u0000b"';
    for (let i = 0; i < 100; i++) literal = `{ k: ${literal} }`;
    const document = parse(`mutation { createPlatformPayoutQuote(request: ${literal}) }`);
    let found = false;
    visit(document, { StringValue: (n) => void (found ||= n.value.includes('\u0000')) });
    expect(found).toBe(true);
    expect(
      (await admission.refuse({ document, operation: getOperationAST(document), variables: {}, caller, transport: 'http' }))?.extensions
        .code,
    ).toBe('BAD_USER_INPUT');
  });
});
