import { ApolloArmor } from '@escape.tech/graphql-armor';
import {
  GraphQLError,
  Kind,
  getNamedType,
  isInterfaceType,
  isObjectType,
  type GraphQLNamedType,
  type SelectionSetNode,
  type ValidationContext,
  type ValidationRule,
} from 'graphql';
import type { Config } from '../config';
import { MAX_PAGE_SIZE } from './relay';

/**
 * Query limits, all checked while parsing/validating — before any resolver runs, over HTTP and graphql-ws alike:
 *
 * - max tokens: graphql-js's own parser limit (`parseOptions.maxTokens`), so a huge document is refused while it
 *   is parsed (Armor's Apollo max-tokens plugin throws from a plugin hook, which Apollo answers with HTTP 500),
 * - max depth (introspection counts too, so an `ofType { ofType { … } }` bomb is refused; the default 15 lets GraphiQL's
 *   own introspection query (depth 15) through; our own types nest far less), max aliases, max directives: GraphQL
 *   Armor's rules,
 * - cost: our own rule (`costRule` below; Armor's compounds 1.5× per nesting level and counts a `first` passed as a
 *   variable as 1, so documented page sizes were refused while variables hid any cost),
 * - field suggestions ("Did you mean …?") removed from errors in production, where introspection is off too (by the
 *   error formatter, errors.ts),
 * - over HTTP: no subscription, and no NUL / unpaired surrogate in any string (src/graphql/input-text.ts, checked by
 *   the edge's gateway before execution; the websocket server checks the same in `onSubscribe`).
 *
 * Each refusal is a `QueryLimitError`: its own stable code (QUERY_TOO_COMPLEX, QUERY_TOO_DEEP, TOO_MANY_ALIASES,
 * TOO_MANY_DIRECTIVES, TOO_MANY_TOKENS), a fixed message naming the limit, `extensions.limit` — nothing the
 * client wrote.
 *
 * Elsewhere: the request body limit is Fastify's bodyLimit (GRAPHQL_BODY_LIMIT_BYTES → 413), and HTTP
 * batching stays off (Apollo 5's default `allowBatchedHttpRequests: false`; an array body is refused).
 */
export function queryLimits(config: Pick<Config, 'limits' | 'production'>): {
  validationRules: ValidationRule[];
  parseOptions: { maxTokens: number };
} {
  const l = config.limits;
  const refuse = (code: QueryLimitCode, limit: number) => ({
    propagateOnRejection: false,
    onReject: [(context: ValidationContext | null) => context?.reportError(new QueryLimitError(code, limit))],
  });
  const armor = new ApolloArmor({
    maxTokens: { enabled: false },
    maxDepth: { n: l.maxDepth, ignoreIntrospection: false, flattenFragments: true, ...refuse('QUERY_TOO_DEEP', l.maxDepth) },
    maxAliases: { n: l.maxAliases, ...refuse('TOO_MANY_ALIASES', l.maxAliases) },
    maxDirectives: { n: l.maxDirectives, ...refuse('TOO_MANY_DIRECTIVES', l.maxDirectives) },
    costLimit: { enabled: false },
    // suggestions are taken out by the error formatter in production (errors.ts: withoutSchemaDetails), over HTTP and
    // the websocket alike; Armor's plugin for it would add a listener, and its promises, to every HTTP request
    blockFieldSuggestion: { enabled: false },
  });
  // Armor's Apollo plugins only add these same rules at validation: the rules are used directly, by both transports
  const { validationRules } = armor.protect();
  return {
    validationRules: [...(validationRules as ValidationRule[]), costRule(l.maxCost)],
    parseOptions: { maxTokens: l.maxTokens },
  };
}

type QueryLimitCode = 'QUERY_TOO_COMPLEX' | 'QUERY_TOO_DEEP' | 'TOO_MANY_ALIASES' | 'TOO_MANY_DIRECTIVES' | 'TOO_MANY_TOKENS';

const MESSAGES: Record<QueryLimitCode, (limit: number) => string> = {
  QUERY_TOO_COMPLEX: (n) => `The operation costs more than the limit of ${n} (see the cost model in the README)`,
  QUERY_TOO_DEEP: (n) => `The operation nests deeper than the limit of ${n}`,
  TOO_MANY_ALIASES: (n) => `The operation uses more aliases than the limit of ${n}`,
  TOO_MANY_DIRECTIVES: (n) => `The operation uses more directives than the limit of ${n}`,
  TOO_MANY_TOKENS: (n) => `The document has more tokens than the limit of ${n}`,
};

/** A document refused by a query limit (HTTP 400 with application/graphql-response+json). */
class QueryLimitError extends GraphQLError {
  constructor(
    readonly code: QueryLimitCode,
    readonly limit: number,
    readonly cost?: number,
  ) {
    super(MESSAGES[code](limit), { extensions: { code, limit, ...(cost !== undefined ? { cost } : {}), http: { status: 400 } } });
  }
}

/**
 * The query limit behind an error, if any: a QueryLimitError itself or wrapped (Apollo wraps validation errors
 * as GRAPHQL_VALIDATION_FAILED), or graphql-js's parser token limit ("Document contains more that N tokens").
 */
export function queryLimitOf(error: unknown, maxTokens: number): QueryLimitError | null {
  for (let e = error, i = 0; e instanceof Error && i < 3; e = (e as GraphQLError).originalError, i++) {
    if (e instanceof QueryLimitError) return e;
    if (e instanceof GraphQLError && /^Syntax Error: Document contains more tha[nt] \d+ tokens/.test(e.message))
      return new QueryLimitError('TOO_MANY_TOKENS', maxTokens);
  }
  return null;
}

/**
 * The cost model (docs/api.md, "Cost model"): every field selected costs 1 (introspection's `__…` fields cost 0);
 * a connection — a field with a `first` argument — costs 1 plus `first` times its selection, `first` being the
 * literal given, or MAX_PAGE_SIZE (100) when it is a variable or absent (so a variable cannot hide a cost);
 * any other list costs as one item (its length is bounded by an upstream page or by the data itself); a fragment
 * costs what its fields cost where it is used. An operation costing more than `maxCost` is refused
 * (QUERY_TOO_COMPLEX, `extensions.cost`). Fragment costs are memoised, so a chain of fragments each spreading the
 * next twice is priced in linear time.
 */
function costRule(maxCost: number): ValidationRule {
  return (context) => {
    const schema = context.getSchema();
    const fragmentCosts = new Map<string, number>();
    const selectionCost = (set: SelectionSetNode, type: GraphQLNamedType | null | undefined, visiting: Set<string>): number => {
      let cost = 0;
      for (const sel of set.selections) {
        if (sel.kind === Kind.FIELD) {
          if (sel.name.value.startsWith('__')) continue;
          const def = isObjectType(type) || isInterfaceType(type) ? type.getFields()[sel.name.value] : undefined;
          if (!def) continue; // unknown fields are the specified rules' refusal
          cost += 1;
          if (sel.selectionSet) {
            const paged = def.args.some((a) => a.name === 'first');
            cost +=
              (paged ? pageSizeOf(sel.arguments?.find((a) => a.name.value === 'first')?.value) : 1) *
              selectionCost(sel.selectionSet, getNamedType(def.type), visiting);
          }
        } else if (sel.kind === Kind.INLINE_FRAGMENT) {
          cost += selectionCost(sel.selectionSet, sel.typeCondition ? schema.getType(sel.typeCondition.name.value) : type, visiting);
        } else {
          const name = sel.name.value;
          const known = fragmentCosts.get(name);
          if (known !== undefined) cost += known;
          else if (!visiting.has(name)) {
            const fragment = context.getFragment(name);
            if (!fragment) continue;
            const fragmentCost = selectionCost(
              fragment.selectionSet,
              schema.getType(fragment.typeCondition.name.value),
              new Set(visiting).add(name),
            );
            fragmentCosts.set(name, fragmentCost);
            cost += fragmentCost;
          }
        }
      }
      return cost;
    };
    return {
      OperationDefinition(operation) {
        const cost = selectionCost(operation.selectionSet, schema.getRootType(operation.operation), new Set());
        if (cost > maxCost) context.reportError(new QueryLimitError('QUERY_TOO_COMPLEX', maxCost, cost));
        return false;
      },
    };
  };
}

function pageSizeOf(value: { kind: Kind; value?: unknown } | undefined): number {
  if (value?.kind !== Kind.INT) return MAX_PAGE_SIZE;
  const n = Number(value.value);
  return Number.isInteger(n) && n >= 1 ? Math.min(n, MAX_PAGE_SIZE) : 1;
}
