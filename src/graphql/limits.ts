import { ApolloArmor } from '@escape.tech/graphql-armor';
import type { ApolloServerPlugin } from '@apollo/server';
import type { ValidationRule } from 'graphql';
import type { Config } from '../config';
import { httpInputPlugin } from './input-text';

/**
 * Query limits, with GraphQL Armor (maintained, Apollo 4/5 plugin + validation rules), all checked while
 * parsing/validating — before any resolver runs:
 *
 * - max tokens: graphql-js's own parser limit (`parseOptions.maxTokens`), so a huge document is refused while it
 *   is parsed with 400 GRAPHQL_PARSE_FAILED (Armor's Apollo max-tokens plugin throws from a plugin hook, which
 *   Apollo answers with HTTP 500),
 * - max depth (introspection counts too, so an `ofType { ofType { … } }` bomb is refused; the default 15 lets GraphiQL's
 *   own introspection query (depth 15) through; our own types nest far less),
 * - max aliases, max directives, cost limit (introspection exempt from cost: it is off in production),
 * - field suggestions ("Did you mean …?") removed from errors in production, where introspection is off too,
 * - over HTTP: no subscription, and no NUL / unpaired surrogate in any string (src/graphql/input-text.ts; the
 *   websocket server checks the same in `onSubscribe`).
 *
 * Elsewhere: the request body limit is Fastify's bodyLimit (GRAPHQL_BODY_LIMIT_BYTES → 413), and HTTP
 * batching stays off (Apollo 5's default `allowBatchedHttpRequests: false`; an array body is refused).
 */
export function queryLimits(config: Pick<Config, 'limits' | 'production'>): {
  plugins: ApolloServerPlugin[];
  validationRules: ValidationRule[];
  parseOptions: { maxTokens: number };
} {
  const l = config.limits;
  const armor = new ApolloArmor({
    maxTokens: { enabled: false },
    maxDepth: { n: l.maxDepth, ignoreIntrospection: false, flattenFragments: true },
    maxAliases: { n: l.maxAliases },
    maxDirectives: { n: l.maxDirectives },
    costLimit: { maxCost: l.maxCost, ignoreIntrospection: true },
    blockFieldSuggestion: { enabled: config.production },
  });
  const { plugins, validationRules } = armor.protect();
  return { plugins: [httpInputPlugin(), ...(plugins as ApolloServerPlugin[])], validationRules: validationRules as ValidationRule[], parseOptions: { maxTokens: l.maxTokens } };
}
