/**
 * GraphQL over HTTP status codes for request errors (a document that does not parse or validate, a query limit, a
 * variable that does not coerce): Apollo answers 400 whatever the client accepts; the spec wants 400 only with
 * `application/graphql-response+json` and 200 with the legacy `application/json` (whose clients read `errors`
 * from a 200). The raw errors decide (a query limit is a parse or validation failure there; a persisted query whose
 * hash does not match its text has no code and stays 400), as the error formatter sees them (graphql.http.ts). Every
 * other status stays: a malformed request (bad JSON, missing query: BAD_REQUEST), a subscription over HTTP (400),
 * RATE_LIMITED (429). A string input with invalid text (BAD_USER_INPUT, refused before execution like a variable
 * that does not coerce) follows the request-error rule. A field error (one with a path: execution ran) is never a
 * request error.
 */
const REQUEST_ERROR_CODES = new Set<unknown>(['GRAPHQL_PARSE_FAILED', 'GRAPHQL_VALIDATION_FAILED', 'BAD_USER_INPUT']);

/** Whether a raw error (before formatting) is a request error in the sense above. */
export function isRequestError(error: unknown): boolean {
  const e = error as { path?: unknown; extensions?: { code?: unknown } } | null | undefined;
  return !e?.path && REQUEST_ERROR_CODES.has(e?.extensions?.code);
}

/** The status of an answer whose errors are all request errors: 200 instead of 400 for a legacy JSON client. */
export const requestErrorStatus = (status: number, accept: string | undefined): number =>
  status === 400 && preferredMediaType(accept) === 'application/json' ? 200 : status;

const JSON_TYPES = ['application/json', 'application/graphql-response+json'] as const;

/**
 * Which of the two JSON media types an Accept header prefers, as Apollo negotiates it (no header or a tie:
 * application/json; highest q, then the more specific range, then the range listed first), or null for neither.
 */
export function preferredMediaType(accept: string | undefined): (typeof JSON_TYPES)[number] | null {
  if (!accept) return 'application/json';
  const ranges = accept.split(',').map((part, index) => {
    const [range = '', ...params] = part.split(';').map((s) => s.trim().toLowerCase());
    const q = params.find((p) => p.startsWith('q='));
    return { range, q: q ? Number(q.slice(2)) : 1, index };
  });
  let best: { type: (typeof JSON_TYPES)[number]; q: number; specificity: number; index: number } | null = null;
  for (const type of JSON_TYPES) {
    // the type's own q is the most specific range matching it (ties: the first listed)
    let match: { q: number; specificity: number; index: number } | null = null;
    for (const r of ranges) {
      const specificity = r.range === type ? 2 : r.range === 'application/*' ? 1 : r.range === '*/*' ? 0 : -1;
      if (specificity > (match?.specificity ?? -1)) match = { q: r.q, specificity, index: r.index };
    }
    if (!match || !(match.q > 0)) continue;
    if (
      !best ||
      match.q > best.q ||
      (match.q === best.q && (match.specificity > best.specificity || (match.specificity === best.specificity && match.index < best.index)))
    )
      best = { type, ...match };
  }
  return best?.type ?? null;
}
