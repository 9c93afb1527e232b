import type { GraphQLFormattedError } from 'graphql';
import { GraphQLError } from 'graphql';
import type { ValidationError } from 'class-validator';
import { unwrapResolverError } from '@apollo/server/errors';
import { isDatabaseUnavailable } from '../db/db.errors';
import { isAppError, type ErrorCode } from '../shared/errors';
import type { Logger } from '../shared/logger';
import { queryLimitOf } from './limits';
import { isUpstreamError, upstreamAppError, type UpstreamErrorRule } from '../upstream/http/upstream.errors';

interface FieldProblem {
  /** Dotted path of the offending field inside the argument object, e.g. "sender.email". */
  path: string;
  /** class-validator constraint name → human message (never the value). */
  constraints: Record<string, string>;
}

/** Flatten class-validator errors, dropping `target` and `value` (the whole input, with PII). */
export function flattenValidationErrors(errors: ValidationError[], prefix = ''): FieldProblem[] {
  const out: FieldProblem[] = [];
  for (const e of errors) {
    const path = prefix ? `${prefix}.${e.property}` : e.property;
    if (e.constraints && Object.keys(e.constraints).length) out.push({ path, constraints: { ...e.constraints } });
    if (e.children?.length) out.push(...flattenValidationErrors(e.children, path));
  }
  return out;
}

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

const PASSTHROUGH_CODES = new Set([
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

/**
 * Apollo `formatError`: every error leaves with a stable `extensions.code`, no stack trace,
 * no echoed input. The database out of reach is SERVICE_UNAVAILABLE (transient: retry); other unexpected errors
 * are logged in full (server side) and answered generically. A query limit's refusal keeps its own code (limits.ts). With `hideSchemaDetails` (production), graphql-js's
 * own messages lose suggestions and every name or value the client wrote (`withoutSchemaDetails`).
 */
export function createErrorFormatter(
  logger: Logger,
  opts: {
    hideSchemaDetails?: boolean;
    maxTokens?: number;
    /** The modules' special cases of the upstream error mapping (module contract). */
    upstreamErrors?: readonly UpstreamErrorRule[];
  } = {},
) {
  const rules = opts.upstreamErrors ?? [];
  const clean = (message: string, code: string) => {
    const stripped = stripEchoedValues(message);
    return opts.hideSchemaDetails && GRAPHQL_JS_CODES.has(code) ? withoutSchemaDetails(stripped, code) : stripped;
  };
  return (formatted: GraphQLFormattedError, error: unknown): GraphQLFormattedError => {
    const unwrapped = unwrapResolverError(error);
    // upstream failures are mapped here, at the edge, once: services let them through
    const original = isUpstreamError(unwrapped) ? upstreamAppError(unwrapped, rules) : unwrapped;
    const base = { locations: formatted.locations, path: formatted.path };

    if (isAppError(original)) {
      return {
        ...base,
        message: original.message,
        extensions: { code: original.code, ...(original.details ?? {}) },
      };
    }
    // a query limit (cost, depth, aliases, directives, tokens): its own code and fixed message, nothing echoed
    const limit = queryLimitOf(original, opts.maxTokens ?? 0);
    if (limit)
      return {
        message: limit.message,
        extensions: { code: limit.code, limit: limit.limit, ...(limit.cost !== undefined ? { cost: limit.cost } : {}) },
      };
    const ext = (original instanceof GraphQLError ? original.extensions : formatted.extensions) ?? {};
    if (Array.isArray(ext.validationErrors)) {
      const fields = flattenValidationErrors(ext.validationErrors as ValidationError[]);
      const first = fields[0];
      const firstMessage = first ? Object.values(first.constraints)[0] : undefined;
      return {
        ...base,
        message: firstMessage ? `Invalid input: ${firstMessage}` : 'Invalid input',
        extensions: { code: 'BAD_USER_INPUT' satisfies ErrorCode, fields },
      };
    }
    const code = typeof ext.code === 'string' ? ext.code : undefined;
    if (code === 'UNAUTHORIZED') return { ...base, message: 'Not allowed', extensions: { code: 'FORBIDDEN' } };
    if (code && PASSTHROUGH_CODES.has(code)) {
      const retry =
        code === 'RATE_LIMITED' && typeof ext.retryAfterSeconds === 'number' ? { retryAfterSeconds: ext.retryAfterSeconds } : {};
      return { ...base, message: clean(formatted.message, code), extensions: { code, ...retry } };
    }
    if (original instanceof GraphQLError && !code && (!original.originalError || isVariableCoercion(original))) {
      // A GraphQL-level error raised by graphql-js itself (argument or variable coercion): the caller's fault.
      return { ...base, message: clean(formatted.message, 'BAD_USER_INPUT'), extensions: { code: 'BAD_USER_INPUT' } };
    }
    if (isDatabaseUnavailable(original)) {
      // transient, not a bug: the caller retries (readiness reports the outage to the load balancer meanwhile)
      logger.warn({ err: original }, 'database unavailable while executing a GraphQL operation');
      return {
        ...base,
        message: 'The service is temporarily unavailable; retry shortly (a mutation with the same idempotencyKey)',
        extensions: { code: 'SERVICE_UNAVAILABLE' satisfies ErrorCode },
      };
    }
    logger.error({ err: original }, 'unexpected error while executing a GraphQL operation');
    return { ...base, message: 'Internal server error', extensions: { code: 'INTERNAL_SERVER_ERROR' } };
  };
}

/**
 * graphql-js's refusal of a variable's value before execution (the websocket path gets it unclassified; Apollo's
 * HTTP path marks it BAD_USER_INPUT itself): no path, and its message names the variable.
 */
const isVariableCoercion = (e: GraphQLError) => !e.path && /^Variable "\$\w+" /.test(e.message);
