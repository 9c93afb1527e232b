/**
 * The one application error. `code` is stable and becomes `extensions.code` on the GraphQL API.
 * Messages are written for the caller: they never contain secrets, PII or echoed input values.
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
export const badInput = (message: string, details?: Record<string, unknown>) => new AppError('BAD_USER_INPUT', message, details);
