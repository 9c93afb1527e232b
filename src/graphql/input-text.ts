import { GraphQLError, Kind, visit, BREAK, type DocumentNode, type OperationDefinitionNode } from 'graphql';

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
  if (Array.isArray(value)) {
    for (const v of value) if (hasInvalidText(v, depth + 1)) return true;
    return false;
  }
  for (const k in value)
    if (Object.hasOwn(value, k) && (isInvalidText(k) || hasInvalidText((value as Record<string, unknown>)[k], depth + 1))) return true;
  return false;
}

/** Per parsed document (Apollo and the websocket server each keep one per distinct text): its literals never change. */
const checkedDocuments = new WeakMap<DocumentNode, boolean>();

function documentHasInvalidText(document: DocumentNode): boolean {
  let found = checkedDocuments.get(document);
  if (found === undefined) checkedDocuments.set(document, (found = scanDocument(document)));
  return found;
}

function scanDocument(document: DocumentNode): boolean {
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
 * What an HTTP request may not run, or null: a subscription is a client error (400 SUBSCRIPTION_OVER_HTTP) —
 * subscriptions are served over the websocket only —, and invalid text (above) is refused.
 */
export function httpInputRefusal(
  document: DocumentNode,
  operation: OperationDefinitionNode | undefined,
  variables: unknown,
): GraphQLError | null {
  if (operation?.operation === 'subscription')
    return new GraphQLError('Subscriptions are served over the websocket at /graphql (graphql-transport-ws), not over HTTP', {
      extensions: { code: 'SUBSCRIPTION_OVER_HTTP', http: { status: 400 } },
    });
  return invalidTextError(document, variables);
}
