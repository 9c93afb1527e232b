import type { GraphQLFormattedError } from 'graphql';
import { GraphQLError } from 'graphql';
import type { ValidationError } from 'class-validator';
import { unwrapResolverError } from '@apollo/server/errors';
import { isDatabaseUnavailable } from '../db/db.errors';
import { isAppError, isStateReason, type ApiErrorCode, type FieldErrorCode, type FieldProblem } from '../shared/errors';
import type { Logger } from '../shared/logger';
import { errorMessage, fieldMessage, stateReasonMessage, type Language } from '../shared/messages';
import { fieldProblems, InputValidationError } from './arg-validation';
import { queryLimitOf } from './limits';
import { isUpstreamError, upstreamAppError, type UpstreamErrorRule } from '../upstream/http/upstream.errors';

/**
 * graphql-js echoes offending values in coercion messages ("Variable "$input" got invalid value {...}",
 * "Expected value of type X, found Y", "Int cannot represent non-integer value: 1.5"). Inputs may hold PII,
 * so keep the variable, the path and the reason, and drop the value.
 */
export function stripEchoedValues(message: string): string {
  const variable = /^Variable "(\$[\w]+)" got invalid value /s.exec(message);
  if (variable) {
    const paths = [...message.matchAll(/ at "([\w.[\]]+)"; /g)];
    const lastPath = paths.at(-1);
    const reasonStart = lastPath ? lastPath.index + lastPath[0].length : message.lastIndexOf('; ') + 2;
    const reason = sanitizeReason(reasonStart >= 2 ? message.slice(reasonStart) : '');
    return `Variable "${variable[1]}" got an invalid value${lastPath ? ` at "${lastPath[1]}"` : ''}${reason ? `: ${reason}` : ''}`;
  }
  return sanitizeReason(message);
}

function sanitizeReason(reason: string): string {
  return reason
    .replace(/(Expected value of type "[^"]+"), found .*?(;|$)/gs, '$1$2')
    .replace(/\b(cannot represent[^:]*): .*$/s, '$1')
    .replace(/(Enum "[^"]+" cannot represent non-enum value): .*?(\.|$)/s, '$1$2')
    .replace(/(Value) .* (does not exist in "[^"]+" enum)/s, '$1 $2')
    .replace(/^Unknown operation named ".*"\.?$/s, 'No operation in the document has the given operationName.')
    .trim();
}

/**
 * Production: what graphql-js says about a document or a variable, without anything the client named. Suggestions
 * ("Did you mean …", or a "[Suggestion hidden]" mask) go — this is the one place they are removed; the kind of
 * mistake stays, as a fixed text; a message still quoting anything (graphql-js quotes every name and value it
 * repeats) becomes its code's generic text. Our own scalars' reasons ("Decimal must look like …") never quote the
 * input, so they are kept.
 */
const GENERIC: [RegExp, string][] = [
  [/is not defined by type/, 'An input object has a field its type does not define'],
  [/^Cannot query field/, 'A selection names a field its type does not define'],
  [/^Unknown argument/, 'An argument is not defined by its field or directive'],
  [/\benum\b/i, "A value is not one of its enum type's values"],
  [/^Unknown (type|directive|fragment)/, 'The document names an unknown type, directive or fragment'],
  [/^Syntax Error/, 'The document is not valid GraphQL syntax'],
  [/of required type .* was not provided|of non-null type .* must not be null/, 'A required variable is missing or null'],
  // Apollo's wording and graphql-js's (NoSchemaIntrospectionCustomRule: "GraphQL introspection has been disabled, …")
  [/introspection (is not allowed|has been disabled)/i, 'Introspection is not available'],
];
const FALLBACK: Record<string, string> = {
  GRAPHQL_PARSE_FAILED: 'The document is not valid GraphQL syntax',
  GRAPHQL_VALIDATION_FAILED: 'The operation is not valid against the schema',
  BAD_USER_INPUT: 'A variable or argument has an invalid value',
};
const OWN_SCALAR_REASON =
  /^(?:Variable "\$\w+" got an invalid value(?: at "[\w.[\]]+")?: )?((?:Decimal|DateTime|JSON\w*) [^"]*(?:"[\w.]+"[^"]*)*)$/;

function withoutSchemaDetails(message: string, code: string): string {
  const m = message.replace(/\s*(Did you mean .*|\[Suggestion hidden\]\??)$/s, '').trim();
  const own = OWN_SCALAR_REASON.exec(m);
  if (own) return `A variable or argument has an invalid value: ${own[1]}`;
  for (const [re, text] of GENERIC) if (re.test(m)) return text;
  return m.includes('"') ? (FALLBACK[code] ?? 'Invalid request') : m;
}

const PASSTHROUGH_CODES = new Set<ApiErrorCode>([
  'GRAPHQL_PARSE_FAILED',
  'GRAPHQL_VALIDATION_FAILED',
  'BAD_USER_INPUT',
  'BAD_REQUEST',
  'PERSISTED_QUERY_NOT_FOUND',
  'PERSISTED_QUERY_NOT_SUPPORTED',
  'PERSISTED_DOCUMENT_NOT_FOUND',
  'PERSISTED_DOCUMENT_NOT_ALLOWED',
  'OPERATION_RESOLUTION_FAILURE',
  'UNAUTHENTICATED',
  'FORBIDDEN',
  'RATE_LIMITED',
  'SUBSCRIPTION_OVER_HTTP',
]);
/** Codes whose messages graphql-js writes (and may fill with what the client sent). */
const GRAPHQL_JS_CODES = new Set(['GRAPHQL_PARSE_FAILED', 'GRAPHQL_VALIDATION_FAILED', 'BAD_USER_INPUT']);

/** The error formatter: Apollo's `formatError`, with the language of the request the error answers (default English). */
export type ErrorFormatter = (formatted: GraphQLFormattedError, error: unknown, language?: Language) => GraphQLFormattedError;

/**
 * Field problems as answered — `extensions.fields[]`, the one shape of a field error (the SDL's FieldError) — with the
 * customer message of each code, in `language`.
 */
const fieldErrors = (problems: readonly FieldProblem[], language?: Language): (FieldProblem & { message: string })[] =>
  problems.map((p) => ({ path: p.path, code: p.code, message: fieldMessage(p.code, language) }));

/**
 * Apollo `formatError`: every error leaves with a stable `extensions.code`, no stack trace, no echoed input. Its
 * `message` is for the customer — the code's message in the request's language (src/shared/messages) — and what
 * went wrong for developers (English) is `extensions.detail`; a BAD_USER_INPUT about input fields lists them in
 * `extensions.fields: [{ path, code, message }]` (class-validator's refusals, the services' own, a variable's value
 * graphql-js could not take). The database out of reach is SERVICE_UNAVAILABLE (transient: retry); other unexpected
 * errors are logged in full (server side) and answered generically. A query limit's refusal keeps its own code
 * (limits.ts). With `hideSchemaDetails` (production), graphql-js's own details lose suggestions and every name or
 * value the client wrote (`withoutSchemaDetails`).
 */
export function createErrorFormatter(
  logger: Logger,
  opts: {
    hideSchemaDetails?: boolean;
    maxTokens?: number;
    /** The modules' special cases of the upstream error mapping (module contract). */
    upstreamErrors?: readonly UpstreamErrorRule[];
  } = {},
): ErrorFormatter {
  const rules = opts.upstreamErrors ?? [];
  const clean = (message: string, code: string) => {
    const stripped = stripEchoedValues(message);
    return opts.hideSchemaDetails && GRAPHQL_JS_CODES.has(code) ? withoutSchemaDetails(stripped, code) : stripped;
  };
  return (formatted, error, language) => {
    const unwrapped = unwrapResolverError(error);
    // upstream failures are mapped here, at the edge, once: services let them through
    const original = isUpstreamError(unwrapped) ? upstreamAppError(unwrapped, rules) : unwrapped;
    const base = { locations: formatted.locations, path: formatted.path };
    const answer = (
      code: ApiErrorCode,
      detail: string,
      more: Record<string, unknown> = {},
      fields: readonly FieldProblem[] = [],
      where: Pick<GraphQLFormattedError, 'locations' | 'path'> = base,
    ): GraphQLFormattedError => ({
      ...where,
      // an INVALID_STATE with a reason says that reason, in the customer's language
      message:
        code === 'INVALID_STATE' && isStateReason(more.reason) ? stateReasonMessage(more.reason, language) : errorMessage(code, language),
      extensions: { code, detail, ...more, ...(fields.length ? { fields: fieldErrors(fields, language) } : {}) },
    });

    if (isAppError(original)) {
      const { fields, ...more } = original.details ?? {};
      return answer(original.code, original.message, more, Array.isArray(fields) ? (fields as FieldProblem[]) : []);
    }
    // a query limit (cost, depth, aliases, directives, tokens): its own code and fixed message, nothing echoed
    const limit = queryLimitOf(original, opts.maxTokens ?? 0);
    if (limit)
      return answer(limit.code, limit.message, { limit: limit.limit, ...(limit.cost !== undefined ? { cost: limit.cost } : {}) }, [], {});
    const ext = (original instanceof GraphQLError ? original.extensions : formatted.extensions) ?? {};
    if (Array.isArray(ext.validationErrors)) {
      const fields =
        original instanceof InputValidationError
          ? original.fields
          : fieldProblems(ext.validationErrors as ValidationError[], undefined, '');
      const detail = fields.length ? `Invalid input: ${fields.map((f) => f.detail).join('; ')}` : 'Invalid input';
      return answer(
        'BAD_USER_INPUT',
        detail,
        {},
        fields.map(({ path, code }) => ({ path, code })),
      );
    }
    const code = typeof ext.code === 'string' ? ext.code : undefined;
    if (code === 'UNAUTHORIZED') return answer('FORBIDDEN', 'Not allowed');
    if (code && PASSTHROUGH_CODES.has(code as ApiErrorCode)) {
      const retry =
        code === 'RATE_LIMITED' && typeof ext.retryAfterSeconds === 'number' ? { retryAfterSeconds: ext.retryAfterSeconds } : {};
      const field = code === 'BAD_USER_INPUT' ? variableProblem(formatted.message) : null;
      return answer(code as ApiErrorCode, clean(formatted.message, code), retry, field ? [field] : []);
    }
    if (original instanceof GraphQLError && !code && (!original.originalError || isVariableCoercion(original))) {
      // A GraphQL-level error raised by graphql-js itself (argument or variable coercion): the caller's fault.
      const field = variableProblem(formatted.message);
      return answer('BAD_USER_INPUT', clean(formatted.message, 'BAD_USER_INPUT'), {}, field ? [field] : []);
    }
    if (isDatabaseUnavailable(original)) {
      // transient, not a bug: the caller retries (readiness reports the outage to the load balancer meanwhile)
      logger.warn({ err: original }, 'database unavailable while executing a GraphQL operation');
      return answer(
        'SERVICE_UNAVAILABLE',
        'The service is temporarily unavailable; retry shortly (a mutation with the same idempotencyKey)',
      );
    }
    logger.error({ err: original }, 'unexpected error while executing a GraphQL operation');
    return answer('INTERNAL_SERVER_ERROR', 'Internal server error');
  };
}

/**
 * graphql-js's refusal of a variable's value before execution (the websocket path gets it unclassified; Apollo's
 * HTTP path marks it BAD_USER_INPUT itself): no path, and its message names the variable.
 */
const isVariableCoercion = (e: GraphQLError) => !e.path && /^Variable "\$\w+" /.test(e.message);

/**
 * The field a variable's refused value concerns, from graphql-js's message: the path from the variable's name on
 * (list positions as numbers: "input.items.0.name") and what is wrong — or null when the message names a field the
 * client made up (an unknown input field: its name is the client's, not the schema's) or is not about a value.
 */
export function variableProblem(message: string): FieldProblem | null {
  const missing = /^Variable "\$(\w+)" of (?:required|non-null) type "[^"]*" (?:was not provided|must not be null)\.?$/.exec(message);
  if (missing) return { path: missing[1]!, code: 'REQUIRED' };
  const variable = /^Variable "\$(\w+)" got invalid value /s.exec(message);
  if (!variable) return null;
  const at = [...message.matchAll(/ at "([\w.[\]]+)"; /g)].at(-1);
  const reason = at ? message.slice(at.index + at[0].length) : message.slice(message.lastIndexOf('; ') + 2);
  const path = (at ? at[1]! : variable[1]!).replace(/\[(\d+)\]/g, '.$1');
  const required = /^Field "(\w+)" of required type "[^"]*" was not provided\.?$/.exec(reason);
  if (required) return { path: `${path}.${required[1]}`, code: 'REQUIRED' };
  if (/^Field "[^"]*" is not defined by type/.test(reason)) return null;
  const code: FieldErrorCode = /not to be null/.test(reason)
    ? 'REQUIRED'
    : /\benum\b/i.test(reason)
      ? 'INVALID_CHOICE'
      : /cannot represent|^Expected type|^(?:Decimal|DateTime|JSON\w*) /.test(reason)
        ? 'INVALID_FORMAT'
        : 'INVALID';
  return { path, code };
}
