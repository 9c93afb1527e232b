/**
 * The executors of HTTP operations, run by the edge's gateway (edge.gateway.ts: Apollo's `gateway` option, the only
 * hook Apollo 5 offers to replace execution): graphql-js's `execute` (GRAPHQL_JIT=false), or a compiled executor
 * (graphql-jit). Everything before execution stays Apollo's: parsing, the document store, validation (GraphQL
 * Armor's rules included), persisted queries, plugins, `formatError`.
 *
 * Per request: the compiled query of (document, operation name) from a bounded LRU (compiled once), run with the
 * request's context and variables. Observable behaviour is graphql-js's:
 * - a document graphql-jit cannot compile or would run differently (`unsupportedByJit`), and subscriptions, run
 *   through graphql-js `execute` (logged at debug once per cached document);
 * - variables graphql-jit refuses (it coerces them before running anything) are handed to graphql-js instead, so
 *   coercion errors keep graphql-js's messages (and Apollo's BAD_USER_INPUT / 400 classification);
 * - errors are rebuilt as graphql-js builds them (`locatedError`): graphql-jit wraps an error already located by a
 *   resolver again, leaves `extensions` undefined (Apollo's formatter then crashes into a bare 500-style
 *   "Internal server error" and never calls ours) and gives non-null violations no `originalError`.
 */
import { types } from 'node:util';
import {
  execute,
  getNamedType,
  GraphQLError,
  isAbstractType,
  isScalarType,
  isSpecifiedScalarType,
  Kind,
  TypeInfo,
  visit,
  visitWithTypeInfo,
  BREAK,
  type ASTNode,
  type DocumentNode,
  type ExecutionResult,
  type GraphQLSchema,
  type OperationDefinitionNode,
  type ValueNode,
} from 'graphql';
import { compileQuery, isCompiledQuery, type CompiledQuery } from 'graphql-jit';
import { LRUCache } from 'lru-cache';
import type { Logger } from '../shared/logger';
import type { Metrics } from '../shared/metrics';
import type { GraphQLContext } from './context';

/** A cached decision for one (document, operation name): its compiled query, or graphql-js. */
type Plan = CompiledQuery | 'graphql-js';

interface JitExecutorOptions {
  schema: GraphQLSchema;
  logger: Logger;
  metrics?: Metrics;
  /** How many (document, operation name) plans are kept; the least recently used is dropped beyond. */
  cacheSize?: number;
}

/** One operation to execute, as the edge's gateway hands it over (edge.gateway.ts). */
export interface ExecutionRequest {
  document: DocumentNode;
  operationName: string | null;
  /** undefined: the document names no single operation (Apollo could not resolve one). */
  operation: OperationDefinitionNode | undefined;
  /** Identifies the document's text (Apollo's query hash). */
  key: string;
  variables: Record<string, unknown> | undefined;
  contextValue: GraphQLContext;
}

/** Runs one operation (never refuses it: what may not run was refused before, edge.gateway.ts). */
export type Executor = (req: ExecutionRequest) => Promise<ExecutionResult>;

/**
 * graphql-js's `execute` (GRAPHQL_JIT=false, and what graphql-jit does not run): the call Apollo makes itself without
 * a gateway, less the root value and field resolver options this service does not set.
 */
export function graphqlJsExecutor(schema: GraphQLSchema): Executor {
  return (req) =>
    Promise.resolve(
      execute({
        schema,
        document: req.document,
        contextValue: req.contextValue,
        variableValues: req.variables,
        operationName: req.operationName,
      }),
    );
}

/** The executor itself (exported for tests): graphql-jit where it can, graphql-js where it cannot. */
export function jitExecutor(opts: JitExecutorOptions): Executor {
  const { schema, logger, metrics } = opts;
  const plans = new LRUCache<string, Plan>({ max: opts.cacheSize ?? 1000 });
  const ran = {
    jit: metrics?.graphqlJitExecutions.bind('graphql-jit'),
    js: metrics?.graphqlJitExecutions.bind('graphql-js'),
  };

  const graphqlJs = graphqlJsExecutor(schema);

  const compile = (req: ExecutionRequest): Plan => {
    let problem =
      req.operation === undefined
        ? 'no single operation'
        : req.operation.operation === 'subscription'
          ? 'a subscription'
          : unsupportedByJit(schema, req.document);
    if (problem === undefined) {
      try {
        const compiled = compileQuery(schema, req.document, req.operationName ?? undefined, { disablingCapturingStackErrors: true });
        if (isCompiledQuery(compiled)) {
          metrics?.graphqlJitCompilations.inc({ outcome: 'compiled' });
          return compiled;
        }
        problem = compiled.errors?.map((e) => e.message).join('; ') ?? 'no compiled query';
      } catch (e) {
        problem = e instanceof Error ? e.message : String(e);
      }
    }
    logger.debug({ operation: req.operationName, problem }, 'graphql-jit does not run this operation; graphql-js does');
    metrics?.graphqlJitCompilations.inc({ outcome: 'fallback' });
    return 'graphql-js';
  };

  // In front of the LRU: the plans of each parsed document object (Apollo keeps one per distinct text in its document
  // store, so a request for a known text finds its plan without building a key; released with the document)
  const byDocument = new WeakMap<DocumentNode, Map<string | null, Plan>>();
  const plan = (req: ExecutionRequest): Plan => {
    let ofDocument = byDocument.get(req.document);
    let made = ofDocument?.get(req.operationName);
    if (made) return made;
    const key = `${req.key}\0${req.operationName ?? ''}`;
    made = plans.get(key);
    if (!made) plans.set(key, (made = compile(req)));
    if (!ofDocument) byDocument.set(req.document, (ofDocument = new Map()));
    ofDocument.set(req.operationName, made);
    return made;
  };

  return async (req) => {
    const p = plan(req);
    if (p === 'graphql-js') {
      ran.js?.inc();
      return graphqlJs(req);
    }
    const result = await p.query(undefined, req.contextValue, req.variables);
    if (!('data' in result)) {
      // graphql-jit refused the variables before running any resolver: graphql-js answers with its own messages.
      ran.js?.inc();
      return graphqlJs(req);
    }
    ran.jit?.inc();
    return result.errors?.length ? { ...result, errors: result.errors.map(asGraphQLJsError) } : result;
  };
}

/**
 * graphql-jit's error as graphql-js's `locatedError` would have made it: an error a resolver threw already located
 * is passed through; otherwise a GraphQLError whose `originalError` is what was thrown (a plain Error carrying the
 * message for errors of execution itself, e.g. a non-null violation), its extensions those of the original.
 */
function asGraphQLJsError(e: GraphQLError): GraphQLError {
  const thrown: unknown = e.originalError;
  if (thrown instanceof GraphQLError && Array.isArray(thrown.path)) return thrown;
  // an Error of another realm too (Node's own socket errors, as node-postgres passes them on, are not instances of
  // the Error of a vm context such as jest's): the original keeps its code for formatError's classification
  const originalError = thrown instanceof Error || types.isNativeError(thrown) ? (thrown as Error) : new Error(e.message);
  const error = new GraphQLError(e.message, { path: e.path, originalError });
  if (e.locations?.length) (error as { locations?: GraphQLError['locations'] }).locations = e.locations;
  return error;
}

/** graphql-jit's markers for Date, NaN and ±Infinity in the literals it writes into generated code. */
const JIT_MARKER = '__MAGIC_';

/**
 * Why graphql-jit would run this document differently from graphql-js (checked once, before compiling); undefined
 * when it runs it the same. graphql-jit 0.8.9:
 * - writes argument literals into the generated source with `JSON.stringify` and then turns its marker strings
 *   back into code (`"__MAGIC_DATE__…<x>"` → `new Date(<x>)`): a string literal holding the marker is executed as
 *   JavaScript (code injection by any caller), so such documents never reach it;
 * - coerces a custom scalar's literal once, without variables (`{ a: $x }` in a JSONObject literal loses `a`), and
 *   passes the result through JSON (a class instance arrives as its JSON; in a variable's default value a Date too);
 * - calls `resolveType` synchronously: TypeGraphQL wraps every custom `resolveType` (createUnionType, interfaces)
 *   in an async function, whose promise graphql-jit takes for a type and refuses;
 * - builds nested results as object literals, where a field aliased `__proto__` sets the prototype (and vanishes
 *   from the response) instead of being a key.
 */
function unsupportedByJit(schema: GraphQLSchema, document: DocumentNode): string | undefined {
  const typeInfo = new TypeInfo(schema);
  let reason: string | undefined;
  let inDefaultValue = false;
  visit(
    document,
    visitWithTypeInfo(typeInfo, {
      enter(node: ASTNode) {
        if (node.kind === Kind.VARIABLE_DEFINITION) inDefaultValue = true;
        else if (node.kind === Kind.STRING && node.value.includes(JIT_MARKER)) reason = "a string literal holds graphql-jit's code marker";
        else if (node.kind === Kind.FIELD) {
          const type = getNamedType(typeInfo.getType());
          if (type && isAbstractType(type) && type.resolveType?.constructor.name === 'AsyncFunction')
            reason = `${type.name} resolves its type asynchronously`;
          else if ((node.alias ?? node.name).value === '__proto__') reason = 'a field answered as __proto__';
        } else if (isValue(node) && node.kind !== Kind.VARIABLE) {
          const type = getNamedType(typeInfo.getInputType());
          if (
            type &&
            isScalarType(type) &&
            !isSpecifiedScalarType(type) &&
            !literalSurvivesJit(type.parseLiteral.bind(type), node, inDefaultValue)
          )
            reason = `a ${type.name} literal would not reach resolvers intact`;
        }
        return reason === undefined ? undefined : BREAK;
      },
      leave(node: ASTNode) {
        if (node.kind === Kind.VARIABLE_DEFINITION) inDefaultValue = false;
      },
    }),
  );
  return reason;
}

const VALUE_KINDS = new Set<string>([
  Kind.VARIABLE,
  Kind.INT,
  Kind.FLOAT,
  Kind.STRING,
  Kind.BOOLEAN,
  Kind.NULL,
  Kind.ENUM,
  Kind.LIST,
  Kind.OBJECT,
]);
const isValue = (node: ASTNode): node is ValueNode => VALUE_KINDS.has(node.kind);

function literalSurvivesJit(
  parseLiteral: (node: ValueNode, variables?: null) => unknown,
  node: ValueNode,
  inDefaultValue: boolean,
): boolean {
  if (hasVariable(node)) return false;
  let value: unknown;
  try {
    value = parseLiteral(node, null);
  } catch {
    return false;
  }
  return survivesJson(value, !inDefaultValue);
}

const hasVariable = (node: ValueNode): boolean =>
  node.kind === Kind.VARIABLE ||
  (node.kind === Kind.LIST && node.values.some(hasVariable)) ||
  (node.kind === Kind.OBJECT && node.fields.some((f) => hasVariable(f.value)));

/** Whether graphql-jit's JSON round trip of a literal's value gives the same value back. */
function survivesJson(value: unknown, dateAllowed: boolean): boolean {
  if (value === null || typeof value === 'boolean') return true;
  if (typeof value === 'string') return !value.includes(JIT_MARKER);
  if (typeof value === 'number') return Number.isFinite(value) && !Object.is(value, -0);
  if (value instanceof Date) return dateAllowed && !Number.isNaN(value.getTime());
  if (Array.isArray(value)) return value.every((v) => survivesJson(v, dateAllowed));
  if (typeof value === 'object' && Object.getPrototypeOf(value) === Object.prototype)
    return Object.entries(value).every(([k, v]) => k !== '__proto__' && !k.includes(JIT_MARKER) && survivesJson(v, dateAllowed));
  return false;
}
