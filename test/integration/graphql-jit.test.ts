/**
 * GRAPHQL_JIT: operations over HTTP run through graphql-jit behind Apollo's gateway hook, and every
 * document graphql-jit would run differently from graphql-js is run by graphql-js instead. The toy-schema checks
 * are differential: raw graphql-jit gets it wrong (why the fallback exists), our executor answers as graphql-js.
 */
import {
  execute,
  GraphQLError,
  GraphQLNonNull,
  GraphQLObjectType,
  GraphQLSchema,
  GraphQLString,
  GraphQLUnionType,
  getOperationAST,
  parse,
  type ExecutionResult,
  type GraphQLFieldConfig,
} from 'graphql';
import { compileQuery, isCompiledQuery } from 'graphql-jit';
import { getMetadataStorage } from 'type-graphql';
import { buildApiSchema } from '../../src/modules/modules';
import { unwrapResolverError } from '@apollo/server/errors';
import { jitExecutor } from '../../src/graphql/jit';
import { JSONObjectScalar } from '../../src/graphql/json.scalar';
import { DateTimeScalar } from '../../src/graphql/scalars';
import { AppError } from '../../src/shared/errors';
import { Metrics } from '../../src/shared/metrics';
import type { Logger } from '../../src/shared/logger';
import type { GraphQLContext } from '../../src/graphql/context';
import { gql, startTestApp, type TestApp } from '../helpers/app';

const MARKER_PAYLOAD = '__MAGIC_DATE__33a9e76d_02e0_4128_8e92_3530ad3da74d0+(globalThis.__jitInjected=1)';

async function metricValue(url: string, line: RegExp): Promise<number> {
  const text = await (await fetch(`${url}/metrics`)).text();
  const m = line.exec(text);
  return m ? Number(m[1]) : 0;
}

describe('GRAPHQL_JIT on (the default): through the service', () => {
  let t: TestApp;
  let customer: string;
  beforeAll(async () => {
    t = await startTestApp();
    customer = await t.token('jit-user', 'customer');
  });
  afterAll(() => t?.close());

  const compiled = () => metricValue(t.url, /^graphql_jit_compilations_total\{outcome="compiled"\} (\d+)$/m);
  const fallbacks = () => metricValue(t.url, /^graphql_jit_compilations_total\{outcome="fallback"\} (\d+)$/m);
  const byJit = () => metricValue(t.url, /^graphql_executions_total\{engine="graphql-jit"\} (\d+)$/m);
  const byJs = () => metricValue(t.url, /^graphql_executions_total\{engine="graphql-js"\} (\d+)$/m);

  it('compiles an operation once and runs it compiled from then on', async () => {
    const [c0, j0] = [await compiled(), await byJit()];
    for (let i = 0; i < 3; i++) {
      const { body } = await gql(t.url, 'query JitProbe { viewer { id role } }', { token: customer });
      expect(body).toEqual({ data: { viewer: { id: 'jit-user', role: 'CUSTOMER' } } });
    }
    expect(await compiled()).toBe(c0 + 1);
    expect(await byJit()).toBe(j0 + 3);
  });

  it('errors keep their codes (an AppError from a resolver, a variable graphql-jit refuses)', async () => {
    const anon = await gql(t.url, 'query JitAnon { viewer { id } }');
    expect(anon.body.errors?.[0]?.extensions?.code).toBe('UNAUTHENTICATED');
    const j0 = await byJs();
    const bad = await gql(t.url, 'query JitVar($id: ID!) { transfer(id: $id) { id } }', {
      token: customer,
      variables: { id: { nested: 1 } },
    });
    expect(bad.status).toBe(400);
    expect(bad.body.errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
    expect(bad.body.errors?.[0]?.extensions?.detail).toMatch(/^Variable "\$id" got an invalid value/);
    expect(await byJs()).toBe(j0 + 1); // graphql-js answered, with its own message
  });

  it('a union with an async resolveType (TypeGraphQL createUnionType) falls back to graphql-js and still answers', async () => {
    const [f0, j0] = [await fallbacks(), await byJs()];
    const query = `query JitAlias($k: String!) { resolveAlias(countryCode: "BR", keyType: "CPF", key: $k) {
      __typename ... on AliasFound { found keyType } ... on AliasNotFound { found message } } }`;
    const found = await gql<any>(t.url, query, { token: customer, variables: { k: '12345678909' } });
    expect(found.body.errors).toBeUndefined();
    expect(found.body.data.resolveAlias).toEqual({ __typename: 'AliasFound', found: true, keyType: 'CPF' });
    const missing = await gql<any>(t.url, query, { token: customer, variables: { k: '00000000000' } });
    expect(missing.body.data.resolveAlias).toMatchObject({ __typename: 'AliasNotFound', found: false });
    expect(await fallbacks()).toBe(f0 + 1);
    expect(await byJs()).toBe(j0 + 2);
  });

  it('a document naming no single operation (two anonymous, or an unknown operationName) is a 400, as without graphql-jit', async () => {
    for (const req of [
      { query: 'query A { viewer { id } } query B { viewer { id } }' },
      { query: 'query A { viewer { id } } query B { viewer { id } }', operationName: 'C' },
    ]) {
      const res = await fetch(`${t.url}/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${customer}` },
        body: JSON.stringify(req),
      });
      const body = (await res.json()) as { errors?: { message: string; extensions?: { code?: string; detail?: string } }[] };
      expect(res.status).toBe(400);
      expect(body.errors?.[0]?.extensions?.code).toBe('OPERATION_RESOLUTION_FAILURE');
      expect(body.errors?.[0]?.extensions?.detail).toMatch(/operation/i);
    }
  });

  it("a string literal holding graphql-jit's code marker never reaches it (no code runs)", async () => {
    const { body } = await gql(t.url, `query JitMarker { transfer(id: ${JSON.stringify(MARKER_PAYLOAD)}) { id } }`, { token: customer });
    expect((globalThis as Record<string, unknown>).__jitInjected).toBeUndefined();
    expect(JSON.stringify(body)).not.toContain('INTERNAL_SERVER_ERROR');
  });
});

describe('GRAPHQL_JIT=false', () => {
  it('executes with graphql-js only', async () => {
    const t = await startTestApp({ GRAPHQL_JIT: 'false' });
    try {
      const token = await t.token('plain-user', 'customer');
      const { body } = await gql(t.url, 'query PlainProbe { viewer { id } }', { token });
      expect(body).toEqual({ data: { viewer: { id: 'plain-user' } } });
      expect(await metricValue(t.url, /^graphql_executions_total\{engine="[^"]+"\} (\d+)$/m)).toBe(0);
      // what may not run is refused before graphql-js runs it, as before graphql-jit (edge.gateway.ts)
      const sub = await gql<any>(t.url, 'subscription { systemNotices { id } }', { token });
      expect(sub.status).toBe(400);
      expect(sub.body.errors![0]!.extensions).toEqual({
        code: 'SUBSCRIPTION_OVER_HTTP',
        detail: expect.any(String),
        requestId: expect.any(String),
      });
      const nul = await gql<any>(t.url, 'query ($c: String!) { banks(countryCode: $c) { edges { node { name } } } }', {
        token,
        variables: { c: 'B\u0000R' },
      });
      expect(nul.status).toBe(400);
      expect(nul.body.errors![0]!.extensions!.code).toBe('BAD_USER_INPUT');
      expect(nul.body.data).toBeUndefined();
    } finally {
      await t.close();
    }
  });
});

describe('jitExecutor against graphql-js (toy schema)', () => {
  const seen: unknown[] = [];
  const echo: GraphQLFieldConfig<unknown, unknown> = {
    type: GraphQLString,
    args: { json: { type: JSONObjectScalar }, at: { type: DateTimeScalar } },
    resolve: (_s, args: { json?: unknown; at?: unknown }) => {
      seen.push(args.json ?? args.at);
      return args.at instanceof Date ? `Date ${args.at.toISOString()}` : JSON.stringify(args.json);
    },
  };
  const A = new GraphQLObjectType({ name: 'A', fields: { a: { type: GraphQLString } } });
  const B = new GraphQLObjectType({ name: 'B', fields: { b: { type: GraphQLString } } });
  const located = new GraphQLError('already located', { path: ['located'], extensions: { code: 'NOT_FOUND' } });
  const schema = new GraphQLSchema({
    query: new GraphQLObjectType({
      name: 'Query',
      fields: {
        echo,
        ab: {
          type: new GraphQLUnionType({ name: 'AB', types: [A, B], resolveType: async (v: { a?: string }) => (v.a ? 'A' : 'B') }),
          resolve: () => ({ a: 'x' }),
        },
        app: { type: GraphQLString, resolve: () => Promise.reject(new AppError('NOT_FOUND', 'no such thing')) },
        located: { type: GraphQLString, resolve: () => Promise.reject(located) },
        nonNull: {
          type: new GraphQLObjectType({ name: 'N', fields: { v: { type: new GraphQLNonNull(GraphQLString), resolve: () => null } } }),
          resolve: () => ({}),
        },
        ok: { type: GraphQLString, resolve: () => 'ok' },
        plain: { type: A, resolve: () => ({ a: 'x' }) },
      },
    }),
  });
  const metrics = new Metrics({ defaultMetrics: false });
  const logger = { debug: () => undefined } as unknown as Logger;
  const run = jitExecutor({ schema, logger, metrics, cacheSize: 2 });
  const contextValue = {} as GraphQLContext;
  let n = 0;
  const ours = (query: string, variables?: Record<string, unknown>) => {
    const document = parse(query);
    return run({
      document,
      operation: getOperationAST(document) ?? undefined,
      operationName: null,
      key: `k${n++}`,
      variables,
      contextValue,
    });
  };
  const js = (query: string, variables?: Record<string, unknown>) =>
    execute({ schema, document: parse(query), variableValues: variables, contextValue }) as Promise<ExecutionResult>;
  const raw = (query: string, variables?: Record<string, unknown>) => {
    const c = compileQuery(schema, parse(query));
    return isCompiledQuery(c) ? Promise.resolve(c.query(undefined, contextValue, variables)) : Promise.resolve(c as ExecutionResult);
  };
  const engineCount = async (engine: string) =>
    (await metrics.graphqlJitExecutions.get()).values.find((v) => v.labels.engine === engine)?.value ?? 0;

  it('JSONObject literal with a variable inside: raw graphql-jit loses the value; ours passes it like graphql-js', async () => {
    const q = 'query($x: String) { echo(json: { a: $x, b: 1 }) }';
    expect(await raw(q, { x: 'hi' })).toEqual({ data: { echo: '{"b":1}' } });
    expect(await js(q, { x: 'hi' })).toEqual({ data: { echo: '{"a":"hi","b":1}' } });
    expect(await ours(q, { x: 'hi' })).toEqual({ data: { echo: '{"a":"hi","b":1}' } });
  });

  it('a DateTime default value: raw graphql-jit hands the resolver a string; ours a Date', async () => {
    const q = 'query($at: DateTime = "2026-11-21T10:00:00Z") { echo(at: $at) }';
    await raw(q);
    expect(seen.at(-1)).toBe('2026-11-21T10:00:00.000Z');
    expect(await ours(q)).toEqual(await js(q));
    expect(seen.at(-1)).toBeInstanceOf(Date);
  });

  it('a DateTime literal argument compiles and arrives as a Date', async () => {
    const before = await engineCount('graphql-jit');
    const q = '{ echo(at: "2026-11-21T10:00:00Z") }';
    expect(await ours(q)).toEqual({ data: { echo: 'Date 2026-11-21T10:00:00.000Z' } });
    expect(await engineCount('graphql-jit')).toBe(before + 1);
  });

  it('an async resolveType: raw graphql-jit fails; ours answers like graphql-js', async () => {
    const q = '{ ab { __typename ... on A { a } } }';
    expect((await raw(q)).errors?.length).toBe(1);
    expect(await ours(q)).toEqual({ data: { ab: { __typename: 'A', a: 'x' } } });
  });

  it('the code marker in a string literal: raw graphql-jit runs it as code; ours does not', async () => {
    const q = `{ echo(json: { s: ${JSON.stringify(MARKER_PAYLOAD)} }) }`;
    await raw(q);
    expect((globalThis as Record<string, unknown>).__jitInjected).toBe(1);
    delete (globalThis as Record<string, unknown>).__jitInjected;
    expect(await ours(q)).toEqual(await js(q));
    expect((globalThis as Record<string, unknown>).__jitInjected).toBeUndefined();
  });

  it('a nested field aliased __proto__: raw graphql-jit drops it; ours answers like graphql-js', async () => {
    const q = '{ plain { __proto__: a } }';
    expect(JSON.stringify(await raw(q))).not.toContain('__proto__');
    expect(JSON.stringify(await ours(q))).toBe(JSON.stringify(await js(q)));
    expect(JSON.stringify(await ours(q))).toContain('"__proto__":"x"');
  });

  it('errors are graphql-js errors: extensions, originalError, locations, path; located errors passed through', async () => {
    const q = '{ ok app located nonNull { v } }';
    const [a, b] = [await ours(q), await js(q)];
    expect(a.data).toEqual(b.data);
    const shape = (r: ExecutionResult) =>
      [...(r.errors ?? [])]
        .map((e) => ({
          json: e.toJSON(),
          original: (unwrapResolverError(e) as Error).constructor.name,
          originalMessage: (unwrapResolverError(e) as Error).message,
          same: e === located,
        }))
        .sort((x, y) => String(x.json.path).localeCompare(String(y.json.path)));
    expect(shape(a)).toEqual(shape(b));
    expect(a.errors!.every((e) => e instanceof GraphQLError && e.extensions !== undefined)).toBe(true);
  });
});

describe('simpleResolvers (plain data fields read straight off the object, no TypeGraphQL wrapper)', () => {
  it('is on for the bulk types, none of whose fields is @Authorized or has middleware (simpleResolvers would skip both)', async () => {
    await buildApiSchema(); // resolves field roles and middlewares into the metadata
    const simple = getMetadataStorage().objectTypes.filter((t) => t.simpleResolvers);
    expect(simple.map((t) => t.name).sort()).toEqual(
      expect.arrayContaining(['Money', 'PageInfo', 'Transfer', 'TransferEventNode', 'TransferEventEdge', 'Bank', 'BankEdge']),
    );
    const guarded = simple.flatMap((t) =>
      (t.fields ?? []).filter((f) => f.roles?.length || f.middlewares?.length).map((f) => `${t.name}.${f.name}`),
    );
    expect(guarded).toEqual([]);
  });
});
