import type { z } from 'zod';
import type { Clock } from '../../shared/clock';
import type { Logger } from '../../shared/logger';
import type { Metrics } from '../../shared/metrics';
import { UnknownOutcome, UpstreamError, type MoneyMovingResult, type UpstreamErrorKind, type UpstreamService } from './upstream.errors';
import { stringifyJson } from './upstream.json';
import { redactDeep, redactForm, redactHeaders, scrubMessage } from './upstream.redact';
import { context, propagation, SpanKind, SpanStatusCode, tracingActive, withSpan, type Span } from '../../shared/tracing';
import { defaultRetryEnv, nextRetryDelay, parseRetryAfter, type RetryEnv, type RetryPolicy } from './upstream.retry';
import {
  TransportFailure,
  type TimeoutClass,
  type TlsIdentity,
  type TransportResponse,
  type UpstreamTransport,
} from './upstream.transport';

/**
 * Executes one logical upstream call: auth headers, attempts, the one token refresh on 401, retries
 * with backoff where allowed, parsing and shape checks, metrics and debug logs. The typed clients
 * describe each endpoint with a CallSpec and never touch HTTP themselves.
 *
 * When may a call be repeated?
 * - `repeat: 'safe'` — reads (GET, quotes, validations, lookups, token requests) and writes that carry
 *   the same idempotency key (externalPaymentId) on every attempt: repeated on connect failures,
 *   timeouts, broken connections, 5xx and 429, with backoff, within the attempt and time caps.
 * - `repeat: 'never'` — every other write. Repeated only when the request provably never reached the
 *   server (the connection could not be established), which cannot cause a second effect.
 * - Any call, once: after a 401 with a bearer token, the token is refreshed and the call sent again.
 *   A 401 means the request was not processed, so this is never a second effect. A second 401 fails.
 *
 * Money-moving calls (payment, capture, void; `callMoneyMoving`): an attempt whose outcome is unknown —
 * timeout or broken connection after sending, 5xx other than 503, or an unreadable 2xx body — makes the
 * whole call ambiguous. If a later attempt (same key) returns a 2xx answer, that answer is the result;
 * if not, the result is an UnknownOutcome (never a thrown "failed"), so the saga reconciles.
 * 503 and 429 are taken to mean "not processed" (the request was refused before any work).
 */
export interface AuthProvider {
  /** Headers for one attempt, plus the bearer token used (to invalidate it on 401). */
  headers(): Promise<{ headers: Record<string, string>; token?: string }>;
  /** The same, synchronously, when nothing has to be fetched (a fresh cached token); undefined otherwise. */
  cached?(): { headers: Record<string, string>; token?: string } | undefined;
  /** Present for bearer-token auth: drop `token` so the next headers() fetches a fresh one. */
  invalidate?(token: string): void;
}

export interface ParsedResponse {
  status: number;
  headers: TransportResponse['headers'];
  body: unknown;
}

export interface CallSpec<T> {
  /** Metric/log label, e.g. 'createPayment'. */
  operation: string;
  method: 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE';
  /** Path relative to the service base URL; callers encode path parameters. */
  path: string;
  query?: Record<string, string | number | boolean | undefined | null>;
  json?: unknown;
  form?: Record<string, string>;
  headers?: Record<string, string>;
  timeoutClass: TimeoutClass;
  repeat: 'safe' | 'never';
  auth?: AuthProvider;
  /** Shape of a 2xx body. Use `z.void()`-like `emptyBody` for 204/empty answers. */
  schema: z.ZodType<T>;
  /** 2xx with an empty body is accepted (parsed as undefined). */
  allowEmpty?: boolean;
  /**
   * Documented non-2xx "errors" that are really answers (alias not found = 400 found:false): return the
   * typed result, or undefined for a real error. A body that claims to be an answer but fails its shape
   * is an invalid_response.
   */
  answer?: (res: ParsedResponse) => { schema: z.ZodType<T> } | undefined;
  /** Extracts typed facts from an error body into UpstreamError.details (never raw bodies: PII). */
  errorDetails?: (res: ParsedResponse) => Record<string, unknown> | null | undefined;
  /** Per-endpoint error classification (e.g. token endpoint errors are never retried). */
  classify?: (res: ParsedResponse) => { kind: UpstreamErrorKind; retryable: boolean } | undefined;
}

interface ServiceEndpoint {
  service: UpstreamService;
  baseUrl: string;
  tls?: TlsIdentity;
  retry: RetryPolicy;
  /** Headers sent on every call of this service. */
  defaultHeaders?: Record<string, string>;
}

interface CallerDeps {
  transport: UpstreamTransport;
  clock: Clock;
  metrics: Metrics;
  logger: Logger;
  /** Injected sleep/random for retries (defaults: real setTimeout, Math.random). */
  retryEnv?: Partial<RetryEnv>;
}

type AttemptFailure = { ok: false; error: UpstreamError; ambiguous: boolean; unauthorizedToken?: string };
type AttemptResult<T> = { ok: true; value: T } | AttemptFailure;
type Fail = (
  kind: UpstreamErrorKind,
  retryable: boolean,
  ambiguous: boolean,
  extra?: Partial<ConstructorParameters<typeof UpstreamError>[0]>,
) => AttemptFailure;

/** What one attempt records as it goes: the status (on its errors) and its outcome (the metrics' label). */
interface AttemptTrace {
  status: number | null;
  outcome: string;
}

interface OutgoingRequest {
  path: string;
  headers: Record<string, string>;
  body: string | undefined;
}

/** An answer's body: its JSON (undefined when empty), or that it is not JSON. */
interface ReadBody {
  parsed: unknown;
  parseError: boolean;
}

function readBody(text: string): ReadBody {
  if (text.length === 0) return { parsed: undefined, parseError: false };
  try {
    return { parsed: JSON.parse(text), parseError: false };
  } catch {
    return { parsed: undefined, parseError: true };
  }
}

export class UpstreamCaller {
  private readonly origin: string;
  private readonly basePath: string;
  private readonly env: RetryEnv;
  private readonly log: Logger;

  constructor(
    readonly endpoint: ServiceEndpoint,
    private readonly deps: CallerDeps,
  ) {
    const u = new URL(endpoint.baseUrl);
    this.origin = u.origin;
    this.basePath = u.pathname.replace(/\/+$/, '');
    this.env = { ...defaultRetryEnv(deps.clock), ...deps.retryEnv };
    this.log = deps.logger.child({ upstream: endpoint.service });
  }

  get service(): UpstreamService {
    return this.endpoint.service;
  }

  /** A call whose failures throw UpstreamError. */
  call<T>(spec: CallSpec<T>): Promise<T> {
    const startedAtMs = this.env.clock.nowMs();
    // the first attempt's answer is most calls' result: taken as it comes, the retry loop entered only after a failure
    return this.attempt(spec, 1).then((first) =>
      first.ok ? first.value : this.afterFailure(spec, null, startedAtMs, first).then(valueOf),
    );
  }

  /**
   * A payment, capture or void. Same idempotency key on every attempt (it is in the body or path of
   * `spec`); the result is the upstream's answer or an UnknownOutcome; definite failures throw.
   */
  callMoneyMoving<T>(spec: CallSpec<T>, idempotencyKey: string): Promise<MoneyMovingResult<T>> {
    const startedAtMs = this.env.clock.nowMs();
    return this.attempt(spec, 1).then((first) =>
      first.ok ? { kind: 'completed' as const, value: first.value } : this.afterFailure(spec, idempotencyKey, startedAtMs, first),
    );
  }

  /** After a failed first attempt: the token refresh, the retries the policy allows, then the answer, the failure or the unknown outcome. */
  private async afterFailure<T>(
    spec: CallSpec<T>,
    idempotencyKey: string | null,
    startedAtMs: number,
    first: AttemptResult<T>,
  ): Promise<MoneyMovingResult<T>> {
    let r = first;
    let retryAttempt = 1; // attempts counted against the retry policy
    let httpAttempts = 1;
    let refreshed = false;
    let ambiguous = false;
    for (;;) {
      if (r.ok) return { kind: 'completed', value: r.value };
      const { error } = r;
      if (r.ambiguous) ambiguous = true;

      if (r.unauthorizedToken !== undefined && spec.auth?.invalidate && !refreshed) {
        refreshed = true;
        spec.auth.invalidate(r.unauthorizedToken);
        // the refresh-and-resend does not use up the retry budget
        r = await this.attempt(spec, ++httpAttempts);
        continue;
      }

      const delay = this.retryDelay(spec, error, retryAttempt, startedAtMs);
      if (delay !== null) {
        this.log.debug({ operation: spec.operation, attempt: httpAttempts, delayMs: delay, error: error.toLog() }, 'upstream retry');
        if (delay > 0) await this.env.sleep(delay);
        retryAttempt++;
        r = await this.attempt(spec, ++httpAttempts);
        continue;
      }

      if (idempotencyKey !== null && ambiguous) {
        const reason = r.ambiguous
          ? (error.kind as 'timeout' | 'network' | 'server_error' | 'invalid_response')
          : 'unresolved_after_ambiguous';
        const outcome = new UnknownOutcome(this.service, spec.operation, idempotencyKey, reason, httpAttempts, error);
        this.log.warn(
          { operation: spec.operation, idempotencyKey, reason, attempts: httpAttempts, error: error.toLog() },
          'upstream outcome unknown',
        );
        return outcome;
      }
      throw error;
    }
  }

  /**
   * Whether a failed attempt is repeated, and after how long: null = not. Only a retryable failure, and for a call
   * that may not be repeated only one that never reached the server; within the policy's attempt and time caps.
   */
  private retryDelay(spec: CallSpec<unknown>, error: UpstreamError, retryAttempt: number, startedAtMs: number): number | null {
    const mayRepeat = error.retryable && (spec.repeat === 'safe' || error.kind === 'connect');
    return mayRepeat ? nextRetryDelay(this.endpoint.retry, this.env, { attempt: retryAttempt, startedAtMs }, error.retryAfterMs) : null;
  }

  private buildPath(spec: CallSpec<unknown>): string {
    let path = this.basePath + (spec.path.startsWith('/') ? spec.path : `/${spec.path}`);
    if (spec.query) {
      const s = queryString(spec.query);
      if (s) path += `?${s}`;
    }
    return path;
  }

  /**
   * One HTTP attempt; with tracing on, inside a CLIENT span `<service> <operation>` (attributes: service,
   * operation, method, attempt, status, outcome — never the path, query, headers or body) whose context is
   * sent upstream as a W3C `traceparent`.
   */
  private attempt<T>(spec: CallSpec<T>, attemptNo: number): Promise<AttemptResult<T>> {
    if (!tracingActive()) return this.attemptUntraced(spec, attemptNo);
    return withSpan(
      `${this.service} ${spec.operation}`,
      {
        'upstream.service': this.service,
        'upstream.operation': spec.operation,
        'http.request.method': spec.method,
        'http.request.resend_count': attemptNo - 1,
        'server.address': new URL(this.origin).hostname,
      },
      async (span) => {
        const r = await this.attemptUntraced(spec, attemptNo, span);
        if (!r.ok) {
          span.setAttribute('error.type', r.error.kind);
          span.setStatus({ code: SpanStatusCode.ERROR });
        }
        return r;
      },
      SpanKind.CLIENT,
    );
  }

  private async attemptUntraced<T>(spec: CallSpec<T>, attemptNo: number, span?: Span): Promise<AttemptResult<T>> {
    const t0 = performance.now();
    const trace: AttemptTrace = { status: null, outcome: 'success' };
    const fail = this.failure(spec.operation, trace);
    const request = this.requestOf(spec, span);
    try {
      const auth = await this.authorize(spec, request.headers, trace);
      if (!auth.ok) return auth;
      this.logRequest(spec, attemptNo, request);
      const sent = await this.send(spec, request, fail);
      if (!sent.ok) return sent;
      const res = sent.response;
      trace.status = res.status;
      span?.setAttribute('http.response.status_code', res.status);
      const body = readBody(res.text);
      this.logResponse(spec.operation, attemptNo, res, body, t0);
      return this.classify(spec, res, body, auth.token, fail, trace);
    } finally {
      const seconds = (performance.now() - t0) / 1000;
      this.deps.metrics.upstreamRequests.bind(this.service, spec.operation, trace.outcome).inc();
      this.deps.metrics.upstreamDuration.bind(this.service, spec.operation, trace.outcome).observe(seconds);
    }
  }

  /** An attempt's failure: an UpstreamError with the status seen so far; its kind becomes the attempt's outcome. */
  private failure(operation: string, trace: AttemptTrace): Fail {
    const service = this.service;
    return (kind, retryable, ambiguous, extra = {}) => {
      trace.outcome = kind;
      return {
        ok: false,
        ambiguous,
        error: new UpstreamError({ service, operation, kind, retryable, status: trace.status, ...extra }),
      };
    };
  }

  /** The request of one attempt: path, headers (trace context included) and body; auth headers are added later. */
  private requestOf(spec: CallSpec<unknown>, span: Span | undefined): OutgoingRequest {
    const path = this.buildPath(spec);
    const headers: Record<string, string> = { accept: 'application/json', ...this.endpoint.defaultHeaders };
    let body: string | undefined;
    if (spec.json !== undefined) {
      headers['content-type'] = 'application/json';
      body = stringifyJson(spec.json);
    } else if (spec.form) {
      headers['content-type'] = 'application/x-www-form-urlencoded';
      body = new URLSearchParams(spec.form).toString();
    }
    Object.assign(headers, spec.headers);
    if (span) propagation.inject(context.active(), headers);
    return { path, headers, body };
  }

  /** Adds the call's auth headers: the bearer token used, or the failure of its token request (nothing was sent). */
  private async authorize(
    spec: CallSpec<unknown>,
    headers: Record<string, string>,
    trace: AttemptTrace,
  ): Promise<{ ok: true; token?: string } | AttemptFailure> {
    if (!spec.auth) return { ok: true };
    try {
      const a = spec.auth.cached?.() ?? (await spec.auth.headers());
      Object.assign(headers, a.headers);
      return { ok: true, token: a.token };
    } catch (err) {
      // The token request failed (already counted and logged as its own call): nothing was sent.
      if (!(err instanceof UpstreamError)) throw err;
      trace.outcome = 'auth_failed';
      return {
        ok: false,
        ambiguous: false,
        error: new UpstreamError({
          service: this.service,
          operation: spec.operation,
          kind: err.kind,
          status: err.status,
          upstreamCode: err.upstreamCode,
          upstreamMessage: err.upstreamMessage,
          // The token call already made its own retries; repeating here would multiply them.
          retryable: false,
          retryAfterMs: err.retryAfterMs,
          cause: err,
        }),
      };
    }
  }

  private logRequest(spec: CallSpec<unknown>, attemptNo: number, request: OutgoingRequest): void {
    if (!this.log.isLevelEnabled('debug')) return;
    this.log.debug(
      {
        operation: spec.operation,
        attempt: attemptNo,
        request: {
          method: spec.method,
          // query values may carry PII (address check): logged redacted, by key
          path: request.path.split('?')[0],
          query: spec.query ? redactDeep(spec.query) : undefined,
          headers: redactHeaders(request.headers),
          body: spec.json !== undefined ? redactDeep(spec.json) : spec.form ? redactForm(spec.form) : undefined,
        },
      },
      'upstream request',
    );
  }

  /**
   * Sends the request: the response (its body read whole, within the transport's size limit), or why none came as
   * the attempt's failure — a body over the limit is an invalid response, anything else retryable.
   */
  private async send(
    spec: CallSpec<unknown>,
    request: OutgoingRequest,
    fail: Fail,
  ): Promise<{ ok: true; response: TransportResponse } | AttemptFailure> {
    try {
      const response = await this.deps.transport.send({
        origin: this.origin,
        path: request.path,
        method: spec.method,
        headers: request.headers,
        body: request.body,
        timeoutClass: spec.timeoutClass,
        tls: this.endpoint.tls,
      });
      return { ok: true, response };
    } catch (err) {
      const f = err instanceof TransportFailure ? err : new TransportFailure('network', 'UNKNOWN', { cause: err });
      if (f.kind === 'too_large') return fail('invalid_response', false, true, { upstreamMessage: 'response too large', cause: f });
      return fail(f.kind, true, f.kind !== 'connect', { upstreamCode: f.code, cause: f });
    }
  }

  private logResponse(operation: string, attemptNo: number, res: TransportResponse, body: ReadBody, t0: number): void {
    if (!this.log.isLevelEnabled('debug')) return;
    this.log.debug(
      {
        operation,
        attempt: attemptNo,
        response: {
          status: res.status,
          durationMs: Math.round(performance.now() - t0),
          body: body.parseError ? `[unparseable ${res.text.length} bytes]` : redactDeep(body.parsed),
        },
      },
      'upstream response',
    );
  }

  /**
   * What an answer means: a 2xx of the expected shape is the result; a documented non-2xx answer (`spec.answer`) too;
   * anything else is an UpstreamError of the kind its status (or `spec.classify`) says, retryable or not.
   */
  private classify<T>(
    spec: CallSpec<T>,
    res: TransportResponse,
    { parsed, parseError }: ReadBody,
    token: string | undefined,
    fail: Fail,
    trace: AttemptTrace,
  ): AttemptResult<T> {
    const { status } = res;
    const pr: ParsedResponse = { status, headers: res.headers, body: parsed };

    if (status >= 200 && status < 300) {
      if (parseError) return fail('invalid_response', false, true, { upstreamMessage: 'body is not JSON' });
      if (parsed === undefined && !spec.allowEmpty) return fail('invalid_response', false, true, { upstreamMessage: 'empty body' });
      return this.validate(spec.schema, parsed, (msg) => fail('invalid_response', false, true, { upstreamMessage: msg }));
    }

    if (!parseError && spec.answer) {
      const a = spec.answer(pr);
      if (a) {
        trace.outcome = 'answer';
        return this.validate(a.schema, parsed, (msg) => fail('invalid_response', false, false, { upstreamMessage: msg }));
      }
    }

    const env = parseError ? { code: null, message: null } : readErrorEnvelope(parsed, res.headers['www-authenticate']);
    const extra = {
      upstreamCode: env.code,
      upstreamMessage: scrubMessage(env.message),
      details: parseError ? null : (spec.errorDetails?.(pr) ?? null),
    };
    const custom = spec.classify?.(pr);
    if (custom) return fail(custom.kind, custom.retryable, false, extra);
    if (status === 401) {
      const r = fail('unauthorized', false, false, extra);
      if (token !== undefined) r.unauthorizedToken = token;
      return r;
    }
    if (status === 403) return fail('forbidden', false, false, extra);
    if (status === 404) return fail('not_found', false, false, extra);
    if (status === 429)
      return fail('rate_limited', true, false, { ...extra, retryAfterMs: parseRetryAfter(res.headers['retry-after'], this.deps.clock) });
    if (status >= 500)
      return fail('server_error', true, status !== 503, {
        ...extra,
        retryAfterMs: status === 503 ? parseRetryAfter(res.headers['retry-after'], this.deps.clock) : null,
      });
    return fail('rejected', false, false, extra);
  }

  private validate<T>(schema: z.ZodType<T>, value: unknown, onFail: (msg: string) => AttemptResult<T>): AttemptResult<T> {
    const r = schema.safeParse(value);
    if (r.success) return { ok: true, value: r.data };
    // Paths and issue codes only: never the offending values.
    const msg = r.error.issues
      .slice(0, 5)
      .map((i) => `${i.path.join('.') || '(root)'}: ${i.code}`)
      .join('; ');
    return onFail(`unexpected response shape: ${msg}`);
  }
}

/** A plain call's result: without an idempotency key no outcome is left unknown, so UnknownOutcome cannot come. */
function valueOf<T>(r: MoneyMovingResult<T>): T {
  if (r instanceof UnknownOutcome) throw r.lastError;
  return r.value;
}

/** Characters a query string carries as they are (URLSearchParams encodes none of them). */
const PLAIN_QUERY_TEXT = /^[A-Za-z0-9_.-]*$/;

/**
 * `key=value&…` of the defined values, as URLSearchParams writes it; without building one when every key and value
 * is plain text (country codes, page numbers, ids), which is most calls.
 */
function queryString(query: NonNullable<CallSpec<unknown>['query']>): string {
  let out = '';
  for (const k of Object.keys(query)) {
    const v = query[k];
    if (v === undefined || v === null) continue;
    const text = String(v);
    if (!PLAIN_QUERY_TEXT.test(k) || !PLAIN_QUERY_TEXT.test(text)) {
      const qs = new URLSearchParams();
      for (const [key, value] of Object.entries(query)) if (value !== undefined && value !== null) qs.append(key, String(value));
      return qs.toString();
    }
    out += `${out ? '&' : ''}${k}=${text}`;
  }
  return out;
}

/**
 * Reads an upstream error body. Envelopes understood (the documents say "not shown" for most):
 * RFC 6749 `{ error, error_description }`; the remittances sandbox's `{ statusCode, error, code, message }`;
 * `{ error: { code, message } }`; `{ code, message }`; `{ errorCode, errorMessage }`. Falls back to the
 * `error="..."` parameter of a WWW-Authenticate Bearer challenge (insufficient_scope).
 */
function readErrorEnvelope(body: unknown, wwwAuthenticate?: string | string[]): { code: string | null; message: string | null } {
  let code: string | null = null;
  let message: string | null = null;
  if (body && typeof body === 'object' && !Array.isArray(body)) {
    const b = body as Record<string, unknown>;
    const nested = b.error && typeof b.error === 'object' ? (b.error as Record<string, unknown>) : null;
    code = str(b.code) ?? str(nested?.code) ?? str(b.errorCode) ?? (typeof b.error === 'string' ? b.error : null);
    message = str(b.message) ?? str(b.error_description) ?? str(nested?.message) ?? str(b.errorMessage);
  }
  if (!code && wwwAuthenticate) {
    const h = Array.isArray(wwwAuthenticate) ? wwwAuthenticate.join(', ') : wwwAuthenticate;
    const m = /error="([^"]+)"/.exec(h);
    if (m) code = m[1];
  }
  return { code, message };
}

const str = (v: unknown): string | null => (typeof v === 'string' && v.length > 0 ? v : typeof v === 'number' ? String(v) : null);
