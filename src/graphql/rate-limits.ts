/**
 * Per-user rate limits, checked after the operation is resolved and before anything executes (`rateLimitRefusal`,
 * called by the edge's gateway over HTTP — edge.gateway.ts — and by the websocket server): each root field of a
 * mutation (and each quota-bound query field) costs one point of the bucket keyed by caller + field, and the
 * operation's upstream-backed fields cost points of the caller's upstream budget. Over the limit → the whole request
 * answers RATE_LIMITED (HTTP 429, Retry-After) with `extensions.retryAfterSeconds`, and no resolver runs. Anonymous
 * requests are counted per IP instead (`anonymousRefusal`, when the context is built).
 */
import { HeaderMap } from '@apollo/server';
import { GraphQLError, Kind, type DocumentNode, type FragmentDefinitionNode, type OperationDefinitionNode } from 'graphql';
import type { Caller } from '../auth/auth.types';
import type { RateLimiter } from '../shared/rate-limit';

export interface RateLimitRules {
  /** Rule name applied to every root field of a mutation. */
  mutationRule: string;
  /** Query root fields that have their own rule (e.g. resolveAlias → the upstream quota). */
  queryRules: Record<string, string>;
  /**
   * Root fields (of any operation type) that also spend another field's bucket, one point each: e.g. createRecipient,
   * which looks a PIX key up in the alias directory, spends resolveAlias's (the directory's quota is one for both).
   */
  sharedRules?: Record<string, { field: string; rule: string; what: string }>;
  /**
   * The per-caller upstream budget, whatever the operation type: the rule, and the points an operation costs
   * (its upstream-backed fields, src/graphql/upstream-fields.ts). Checked first.
   */
  upstream?: { rule: string; cost: (document: DocumentNode, operation: OperationDefinitionNode) => number };
}

/**
 * The rate-limit check for one resolved operation (shared by HTTP and graphql-ws): first the caller's upstream
 * budget (one point per upstream-backed field occurrence, aliases included), then each root field of a
 * mutation, and each quota-bound query field, costs one point of the caller's bucket for that field. Returns
 * the RATE_LIMITED error to answer with, or null when allowed (or anonymous: nothing to count here — anonymous
 * traffic is counted per IP, `anonymousRefusal`).
 */
export function rateLimitRefusal(
  limiter: RateLimiter,
  opts: RateLimitRules,
  caller: Caller | null,
  operation: OperationDefinitionNode | null | undefined,
  document: DocumentNode,
): GraphQLError | null | Promise<GraphQLError | null> {
  if (!caller || !operation) return null;
  const { points, fields } = chargesOf(opts, operation, document);
  // each charge in turn, the next only once the previous was allowed; synchronous while the limiter is (in memory)
  const charge = (i: number): GraphQLError | null | Promise<GraphQLError | null> => {
    for (; i < fields.length + 1; i++) {
      if (i === 0 && !(opts.upstream && points > 0)) continue;
      const [rule, key, n, what] =
        i === 0
          ? [opts.upstream!.rule, caller.userId, points, 'upstream-backed']
          : [fields[i - 1]!.rule, `${caller.userId}:${fields[i - 1]!.field}`, 1, fields[i - 1]!.what ?? fields[i - 1]!.field];
      const d = limiter.consume(rule, key, n);
      const next = i + 1;
      if (d instanceof Promise)
        return d.then((x) => (x.allowed ? charge(next) : rateLimited(`Too many ${what} requests`, x.retryAfterSeconds)));
      if (!d.allowed) return rateLimited(`Too many ${what} requests`, d.retryAfterSeconds);
    }
    return null;
  };
  return charge(0);
}

/** What an operation costs: upstream points, and the root fields counted by a rule of their own (in order). */
interface Charges {
  points: number;
  fields: { field: string; rule: string; what?: string }[];
}

/**
 * Charges per operation node (a parsed document is cached and reused for every request sending its text, so this is
 * worked out once per document and operation), per set of options.
 */
const chargesByOptions = new WeakMap<RateLimitRules, WeakMap<OperationDefinitionNode, Charges>>();

function chargesOf(opts: RateLimitRules, operation: OperationDefinitionNode, document: DocumentNode): Charges {
  let byOperation = chargesByOptions.get(opts);
  if (!byOperation) chargesByOptions.set(opts, (byOperation = new WeakMap()));
  let charges = byOperation.get(operation);
  if (!charges) {
    const fields: Charges['fields'] = [];
    for (const field of rootFields(operation, document)) {
      const rule =
        operation.operation === 'mutation' ? opts.mutationRule : operation.operation === 'query' ? opts.queryRules[field] : undefined;
      if (rule) fields.push({ field, rule });
      const shared = opts.sharedRules?.[field];
      if (shared) fields.push(shared);
    }
    byOperation.set(operation, (charges = { points: opts.upstream?.cost(document, operation) ?? 0, fields }));
  }
  return charges;
}

/**
 * The per-IP budget of unauthenticated traffic (no token, or one that did not verify): one point per HTTP
 * request or failed websocket connection_init, keyed by the client address. RATE_LIMITED when over, else null.
 */
export async function anonymousRefusal(limiter: RateLimiter, rule: string, ip: string): Promise<GraphQLError | null> {
  const d = await limiter.consume(rule, ip);
  return d.allowed ? null : rateLimited('Too many unauthenticated requests', d.retryAfterSeconds);
}

/** RATE_LIMITED with `retryAfterSeconds`, answered over HTTP with 429 and Retry-After. */
function rateLimited(what: string, retryAfterSeconds: number): GraphQLError {
  return new GraphQLError(`${what}; try again in ${retryAfterSeconds} s`, {
    extensions: {
      code: 'RATE_LIMITED',
      retryAfterSeconds,
      http: { status: 429, headers: new HeaderMap([['retry-after', String(retryAfterSeconds)]]) },
    },
  });
}

/** Root field names of the operation (inline fragments and fragment spreads included), __typename excluded. */
function rootFields(operation: OperationDefinitionNode, document: DocumentNode): string[] {
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const d of document.definitions) if (d.kind === Kind.FRAGMENT_DEFINITION) fragments.set(d.name.value, d);
  const out: string[] = [];
  const visited = new Set<string>();
  const walk = (sel: OperationDefinitionNode['selectionSet']) => {
    for (const s of sel.selections) {
      if (s.kind === Kind.FIELD) {
        if (s.name.value !== '__typename') out.push(s.name.value);
      } else if (s.kind === Kind.INLINE_FRAGMENT) walk(s.selectionSet);
      else if (s.kind === Kind.FRAGMENT_SPREAD && !visited.has(s.name.value)) {
        visited.add(s.name.value);
        const f = fragments.get(s.name.value);
        if (f) walk(f.selectionSet);
      }
    }
  };
  walk(operation.selectionSet);
  return out;
}
