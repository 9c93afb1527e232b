import { AppError, type ErrorCode } from '../../shared/errors';

/**
 * One error shape for every upstream failure, whatever the API.
 *
 * `kind` says what went wrong at the transport/protocol level; `status`, `upstreamCode` and
 * `upstreamMessage` say what the upstream answered (the message is scrubbed of PII before it gets
 * here, see `scrubMessage`). `retryable` says whether repeating the *same request* could succeed —
 * whether it is *safe* to repeat is decided per operation by the caller (see upstream.caller.ts).
 *
 * Documented answers that look like errors (alias not found = 400 found:false, person REJECTED,
 * account check DECLINED, legacy card check REJECTED) are NOT UpstreamErrors: the clients return them
 * as typed results.
 */
export type UpstreamService = 'gateway' | 'remittances' | 'verification';

export type UpstreamErrorKind =
  /** The connection could not be established: the request was never sent. */
  | 'connect'
  /** No (complete) response within the operation's headers/body timeout, after the request was sent. */
  | 'timeout'
  /** The connection broke after the request was (possibly) sent: reset, closed, parser error. */
  | 'network'
  /** 2xx (or a documented answer status) whose body is not JSON or not the documented shape. */
  | 'invalid_response'
  /** 401 from an API call (after the one allowed token refresh), or a rejected API key. */
  | 'unauthorized'
  /** 403: agent not approved, endpoint needs agent auth, token lacks scope. */
  | 'forbidden'
  | 'not_found'
  | 'rate_limited'
  /** Other 4xx: the upstream refused the request (validation, conflict, capture twice, ...). */
  | 'rejected'
  /** 5xx. */
  | 'server_error'
  /** The token endpoint refused our credentials or request (invalid_client, invalid_scope, ...). */
  | 'token_rejected';

interface UpstreamErrorFields {
  service: UpstreamService;
  operation: string;
  kind: UpstreamErrorKind;
  status?: number | null;
  upstreamCode?: string | null;
  upstreamMessage?: string | null;
  retryable: boolean;
  /** From Retry-After (429/503), in ms, when the upstream sent one. */
  retryAfterMs?: number | null;
  /**
   * Typed, non-PII facts an endpoint extracts from the error body (e.g. the gateway's `error.payment` on a
   * 409 capture/void refusal: where the payment stands), for reconciliation.
   */
  details?: Record<string, unknown> | null;
  cause?: unknown;
}

export class UpstreamError extends Error {
  override readonly name = 'UpstreamError';
  readonly service: UpstreamService;
  readonly operation: string;
  readonly kind: UpstreamErrorKind;
  readonly status: number | null;
  readonly upstreamCode: string | null;
  readonly upstreamMessage: string | null;
  readonly retryable: boolean;
  readonly retryAfterMs: number | null;
  readonly details: Record<string, unknown> | null;

  constructor(f: UpstreamErrorFields) {
    super(
      `${f.service}.${f.operation} failed: ${f.kind}` +
        (f.status ? ` (HTTP ${f.status}${f.upstreamCode ? ` ${f.upstreamCode}` : ''})` : ''),
      f.cause !== undefined ? { cause: f.cause } : undefined,
    );
    this.service = f.service;
    this.operation = f.operation;
    this.kind = f.kind;
    this.status = f.status ?? null;
    this.upstreamCode = f.upstreamCode ?? null;
    this.upstreamMessage = f.upstreamMessage ?? null;
    this.retryable = f.retryable;
    this.retryAfterMs = f.retryAfterMs ?? null;
    this.details = f.details ?? null;
  }

  /** The service error code this failure surfaces as. */
  get appCode(): ErrorCode {
    return upstreamErrorCode(this.kind);
  }

  /** Caller-facing error: a fixed message, no upstream text (it may echo input/PII). */
  toAppError(): AppError {
    const code = this.appCode;
    const message =
      code === 'RATE_LIMITED'
        ? 'The upstream service is rate limiting requests; try again later'
        : code === 'NOT_FOUND'
          ? 'Upstream resource not found'
          : code === 'UPSTREAM_REJECTED'
            ? 'The upstream service rejected the request'
            : 'An upstream service is unavailable; try again later';
    return new AppError(
      code,
      message,
      {
        service: this.service,
        operation: this.operation,
        ...(this.status ? { status: this.status } : {}),
        ...(this.upstreamCode ? { upstreamCode: this.upstreamCode } : {}),
        ...(this.retryAfterMs !== null ? { retryAfterMs: this.retryAfterMs } : {}),
      },
      { cause: this },
    );
  }

  /** Safe structured form for logs (message already scrubbed). */
  toLog(): Record<string, unknown> {
    return {
      service: this.service,
      operation: this.operation,
      kind: this.kind,
      status: this.status,
      upstreamCode: this.upstreamCode,
      upstreamMessage: this.upstreamMessage,
      retryable: this.retryable,
      retryAfterMs: this.retryAfterMs,
    };
  }
}

export const isUpstreamError = (e: unknown): e is UpstreamError => e instanceof UpstreamError;

/**
 * Mapping to the service's error codes:
 * - 429 → RATE_LIMITED
 * - 404 → NOT_FOUND
 * - other 4xx refusals (validation, conflict) → UPSTREAM_REJECTED
 * - everything that is our side's or the upstream's fault and that the caller cannot fix — 5xx,
 *   timeouts, broken connections, malformed bodies, our credentials/agent/scope refused (401/403,
 *   token errors) → UPSTREAM_UNAVAILABLE. (A 401 from upstream is never the caller's UNAUTHENTICATED.)
 */
function upstreamErrorCode(kind: UpstreamErrorKind): ErrorCode {
  switch (kind) {
    case 'rate_limited':
      return 'RATE_LIMITED';
    case 'not_found':
      return 'NOT_FOUND';
    case 'rejected':
      return 'UPSTREAM_REJECTED';
    default:
      return 'UPSTREAM_UNAVAILABLE';
  }
}

/**
 * A special case of the mapping above, kept in the module whose operation it concerns: an upstream failure of
 * `operation` (one of the client's operation names, e.g. 'createWallet'), of `kind` and/or with one of `status`,
 * reads as `to(e)` at the API instead of the default.
 */
export interface UpstreamErrorRule {
  service: UpstreamService;
  operation: string | readonly string[];
  kind?: UpstreamErrorKind;
  status?: readonly number[];
  to: (e: UpstreamError) => AppError;
}

const matches = (r: UpstreamErrorRule, e: UpstreamError) =>
  r.service === e.service &&
  (typeof r.operation === 'string' ? r.operation === e.operation : r.operation.includes(e.operation)) &&
  (r.kind === undefined || r.kind === e.kind) &&
  (r.status === undefined || (e.status != null && r.status.includes(e.status)));

/** How an upstream failure reads at the API: the first rule that matches, else the default mapping. */
export function upstreamAppError(e: UpstreamError, rules: readonly UpstreamErrorRule[]): AppError {
  for (const r of rules) if (matches(r, e)) return r.to(e);
  return e.toAppError();
}

/**
 * The result of a money-moving call (payment, capture, void) whose outcome is not known: the request
 * was sent, then the response was lost (timeout, connection reset, 5xx other than 503, unreadable 2xx
 * body), and retrying with the same idempotency key did not settle it. It is NOT a failure: the money
 * may have moved. The saga must reconcile (retry later with the same externalPaymentId, or read back)
 * before deciding.
 */
export class UnknownOutcome {
  readonly kind = 'unknown_outcome' as const;
  constructor(
    readonly service: UpstreamService,
    readonly operation: string,
    /** The externalPaymentId that every attempt carried; reuse it to reconcile. */
    readonly idempotencyKey: string,
    readonly reason: 'timeout' | 'network' | 'server_error' | 'invalid_response' | 'unresolved_after_ambiguous',
    readonly attempts: number,
    /** The last attempt's error (scrubbed). */
    readonly lastError: UpstreamError,
  ) {}
}

export const isUnknownOutcome = (v: unknown): v is UnknownOutcome => v instanceof UnknownOutcome;

/** The result of a money-moving call: the upstream's answer, or an UnknownOutcome to reconcile. */
export type MoneyMovingResult<T> = { kind: 'completed'; value: T } | UnknownOutcome;
