/**
 * The one application error. `code` is stable and becomes `extensions.code` on the GraphQL API.
 * Its message is the developer's detail (English, `extensions.detail`): what the customer reads is the code's message
 * in the request's language (src/shared/messages). Messages never contain secrets, PII or echoed input values.
 */
export const ERROR_CODES = [
  'UNAUTHENTICATED',
  'FORBIDDEN',
  'BAD_USER_INPUT',
  'NOT_FOUND',
  'QUOTE_EXPIRED',
  'QUOTE_ALREADY_USED',
  'IDEMPOTENCY_KEY_REUSED',
  'IDEMPOTENCY_IN_PROGRESS',
  'INVALID_STATE',
  'UPSTREAM_UNAVAILABLE',
  'UPSTREAM_REJECTED',
  'RATE_LIMITED',
  /** A dependency of ours (the database) is out of reach for now: retry (a mutation with the same idempotencyKey). */
  'SERVICE_UNAVAILABLE',
  'INTERNAL_SERVER_ERROR',
] as const;

export type ErrorCode = (typeof ERROR_CODES)[number];

/**
 * The codes the GraphQL edge answers besides an AppError's: graphql-js's and Apollo's own refusals of a request, the
 * trusted-documents refusals (trusted-documents.ts), a subscription sent over HTTP and the query limits (limits.ts).
 */
const EDGE_ERROR_CODES = [
  'GRAPHQL_PARSE_FAILED',
  'GRAPHQL_VALIDATION_FAILED',
  'BAD_REQUEST',
  'OPERATION_RESOLUTION_FAILURE',
  'PERSISTED_QUERY_NOT_FOUND',
  'PERSISTED_QUERY_NOT_SUPPORTED',
  'PERSISTED_DOCUMENT_NOT_FOUND',
  'PERSISTED_DOCUMENT_NOT_ALLOWED',
  'SUBSCRIPTION_OVER_HTTP',
  'TOO_MANY_TOKENS',
  'QUERY_TOO_DEEP',
  'TOO_MANY_ALIASES',
  'TOO_MANY_DIRECTIVES',
  'QUERY_TOO_COMPLEX',
] as const;

/** Every `extensions.code` an error of the API may carry (the GraphQL enum ErrorCode). */
export const API_ERROR_CODES = [...ERROR_CODES, ...EDGE_ERROR_CODES] as const;
export type ApiErrorCode = (typeof API_ERROR_CODES)[number];

/**
 * What is wrong with one input field of a BAD_USER_INPUT (`extensions.fields[].code`, the GraphQL enum
 * FieldErrorCode): stable, for an app to branch on; its customer message comes from src/shared/messages.
 */
export const FIELD_ERROR_CODES = [
  'REQUIRED',
  'INVALID',
  'INVALID_FORMAT',
  'INVALID_CHOICE',
  'TOO_SHORT',
  'TOO_LONG',
  'TOO_FEW_ITEMS',
  'TOO_MANY_ITEMS',
  'OUT_OF_RANGE',
  'BELOW_MINIMUM',
  'ABOVE_MAXIMUM',
  'TOO_MANY_DECIMALS',
  'MISMATCH',
  'NOT_VERIFIED',
  'INCOMPLETE',
  'INVALID_CARDHOLDER_NAME',
] as const;
export type FieldErrorCode = (typeof FIELD_ERROR_CODES)[number];

/**
 * Why an action the transfer's state does not allow was refused, where an app can tell the customer something
 * better than "not possible right now" (`extensions.reason` of an INVALID_STATE; its message is the reason's).
 */
export const STATE_REASONS = [
  'CHALLENGE_NOT_COMPLETED',
  'CANCEL_ALREADY_REQUESTED',
  'CANCEL_NOT_POSSIBLE',
  'CANCEL_WINDOW_PASSED',
] as const;
export type StateReason = (typeof STATE_REASONS)[number];

const STATE_REASON_SET: ReadonlySet<string> = new Set(STATE_REASONS);
export const isStateReason = (v: unknown): v is StateReason => typeof v === 'string' && STATE_REASON_SET.has(v);

/**
 * One invalid field as an AppError carries it (`details.fields`): the input path from the argument on, e.g.
 * "input.recipient.customer.firstName", and its code. The error formatter adds the message in the caller's language.
 */
export interface FieldProblem {
  path: string;
  code: FieldErrorCode;
}

export class AppError extends Error {
  override readonly name = 'AppError';
  constructor(
    readonly code: ErrorCode,
    message: string,
    /** Safe, caller-facing details (never input values or secrets). */
    readonly details?: Record<string, unknown>,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

export const isAppError = (e: unknown): e is AppError => e instanceof AppError;

export const unauthenticated = (message = 'Authentication required') => new AppError('UNAUTHENTICATED', message);
export const forbidden = (message = 'Not allowed') => new AppError('FORBIDDEN', message);
export const notFound = (what: string) => new AppError('NOT_FOUND', `${what} not found`);
/** An INVALID_STATE the customer is told the reason of (`extensions.reason`, and the reason's message). */
export const invalidState = (reason: StateReason, message: string, details?: Record<string, unknown>) =>
  new AppError('INVALID_STATE', message, { ...details, reason });
export const badInput = (message: string, details?: Record<string, unknown>) => new AppError('BAD_USER_INPUT', message, details);
/** A BAD_USER_INPUT about one input field (`extensions.fields`); `message` is the developer's detail. */
export const badField = (path: string, code: FieldErrorCode, message: string, details?: Record<string, unknown>) =>
  badFields(message, [{ path, code }], details);
/** A BAD_USER_INPUT about several input fields at once. */
export const badFields = (message: string, fields: readonly FieldProblem[], details?: Record<string, unknown>) =>
  new AppError('BAD_USER_INPUT', message, { ...details, fields });
