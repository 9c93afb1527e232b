import { GraphQLError, Kind, visit, BREAK, type DocumentNode } from 'graphql';

/**
 * Text PostgreSQL cannot store or compare (a NUL byte) and strings that are not valid UTF-16 (a lone surrogate,
 * which has no UTF-8 form) are refused in every string a request carries — literals in the document and
 * variables, at any depth — before anything runs, so no id, cursor or name can reach a query or an upstream call.
 */
// eslint-disable-next-line no-control-regex -- NUL is exactly what this refuses
const INVALID_TEXT = /\u0000|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

const isInvalidText = (s: string): boolean => INVALID_TEXT.test(s);

/**
 * Whether any string (value or object key) at any depth is invalid text. Iterative, with an explicit stack: no depth
 * cut-off that would let the rest through, and no recursion a deeply nested value could overflow. Linear in the
 * value's size (a JSON value has no shared parts).
 */
function hasInvalidText(value: unknown): boolean {
  const stack: unknown[] = [value];
  while (stack.length) {
    const v = stack.pop();
    if (typeof v === 'string') {
      if (isInvalidText(v)) return true;
    } else if (Array.isArray(v)) {
      for (const x of v as unknown[]) stack.push(x);
    } else if (v !== null && typeof v === 'object')
      for (const k in v) {
        if (!Object.hasOwn(v, k)) continue;
        if (isInvalidText(k)) return true;
        stack.push((v as Record<string, unknown>)[k]);
      }
  }
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
