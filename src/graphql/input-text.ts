import { GraphQLError, Kind, visit, BREAK, type DocumentNode } from 'graphql';
import type { ApolloServerPlugin } from '@apollo/server';

/**
 * Text PostgreSQL cannot store or compare (a NUL byte) and strings that are not valid UTF-16 (a lone surrogate,
 * which has no UTF-8 form) are refused in every string a request carries — literals in the document and
 * variables, at any depth — before anything runs, so no id, cursor or name can reach a query or an upstream call.
 */
// eslint-disable-next-line no-control-regex -- NUL is exactly what this refuses
const INVALID_TEXT = /\u0000|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

const isInvalidText = (s: string): boolean => INVALID_TEXT.test(s);

function hasInvalidText(value: unknown, depth = 0): boolean {
  if (typeof value === 'string') return isInvalidText(value);
  if (depth > 64 || value === null || typeof value !== 'object') return false;
  if (Array.isArray(value)) return value.some((v) => hasInvalidText(v, depth + 1));
  return Object.entries(value).some(([k, v]) => isInvalidText(k) || hasInvalidText(v, depth + 1));
}

function documentHasInvalidText(document: DocumentNode): boolean {
  let found = false;
  visit(document, {
    [Kind.STRING](node) {
      if (isInvalidText(node.value)) {
        found = true;
        return BREAK;
      }
      return undefined;
    },
  });
  return found;
}

/** The refusal for a request with such text anywhere (BAD_USER_INPUT, 400), or null. Never repeats the text. */
export function invalidTextError(document: DocumentNode, variables: unknown): GraphQLError | null {
  if (!documentHasInvalidText(document) && !hasInvalidText(variables)) return null;
  return new GraphQLError('A string input contains a NUL character or invalid UTF-16 (an unpaired surrogate)', {
    extensions: { code: 'BAD_USER_INPUT', http: { status: 400 } },
  });
}

/**
 * HTTP requests: invalid text is refused (above), and a subscription is a client error (400
 * SUBSCRIPTION_OVER_HTTP) — subscriptions are served over the websocket only.
 */
export function httpInputPlugin(): ApolloServerPlugin {
  return {
    async requestDidStart() {
      return {
        async didResolveOperation({ document, operation, request }) {
          if (operation?.operation === 'subscription')
            throw new GraphQLError('Subscriptions are served over the websocket at /graphql (graphql-transport-ws), not over HTTP', {
              extensions: { code: 'SUBSCRIPTION_OVER_HTTP', http: { status: 400 } },
            });
          const refused = invalidTextError(document, request.variables);
          if (refused) throw refused;
        },
      };
    },
  };
}
