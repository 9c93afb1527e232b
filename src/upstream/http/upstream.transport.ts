import { Pool, type Dispatcher } from 'undici';
import type { IncomingHttpHeaders } from 'node:http';
import { createHash } from 'node:crypto';

/**
 * HTTP transport shared by the upstream clients: one keep-alive undici Pool per origin (and TLS
 * identity), with a bounded number of connections; per-request headers/body timeouts chosen by
 * operation class; bounded response size. It only moves bytes: status + headers + body text, or a
 * classified TransportFailure. Auth, retries, parsing, metrics and logging live in upstream.caller.ts.
 *
 * Timeouts by operation class:
 * - `read`    — GETs, quotes, validations, directory lookups, token requests: short.
 * - `write`   — non-money writes (persons, wallets, checks, webhooks, sessions): short by default.
 * - `payment` — payment, capture, void: longer (the gateway talks to card networks/banks).
 * `headersMs` bounds the wait for the response headers after the request is written; `bodyMs` the
 * idle time between body chunks. The connect timeout is a property of the pool (a connection is shared
 * by every class of request that later runs on it), so it is one value per transport.
 */
export type TimeoutClass = 'read' | 'write' | 'payment';

interface ClassTimeouts {
  headersMs: number;
  bodyMs: number;
}

export interface TransportOptions {
  /** Max connections per origin. */
  maxConnections: number;
  connectTimeoutMs: number;
  timeouts: Record<TimeoutClass, ClassTimeouts>;
  /** Idle keep-alive socket lifetime (undici also honours the server's Keep-Alive hint). Default 4 s. */
  keepAliveTimeoutMs?: number;
  /** Responses larger than this fail as invalid_response. Default 5 MiB. */
  maxResponseBytes?: number;
}

export interface TlsIdentity {
  /** PEM client certificate (mutual TLS). */
  cert?: string | Buffer;
  /** PEM private key of the client certificate. */
  key?: string | Buffer;
  /** PEM CA bundle that signs the server certificate (in addition to or instead of the system store). */
  ca?: string | Buffer;
}

interface TransportRequest {
  /** e.g. https://platform.example:443 */
  origin: string;
  /** Absolute path including any base path and query string. */
  path: string;
  method: 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE';
  headers: Record<string, string>;
  body?: string;
  timeoutClass: TimeoutClass;
  tls?: TlsIdentity;
}

export interface TransportResponse {
  status: number;
  headers: IncomingHttpHeaders;
  text: string;
}

/**
 * Why no response arrived.
 * - `connect`: the connection (TCP/TLS) failed; the request never reached the server's application.
 * - `timeout`: the request was written and no complete response came within the class's timeouts.
 * - `network`: the connection broke after the request was (possibly) written.
 * - `too_large`: the response exceeded maxResponseBytes.
 */
export class TransportFailure extends Error {
  override readonly name = 'TransportFailure';
  constructor(
    readonly kind: 'connect' | 'timeout' | 'network' | 'too_large',
    readonly code: string,
    options?: { cause?: unknown },
  ) {
    super(`${kind} (${code})`, options);
  }
}

const CONNECT_CODES = new Set([
  'UND_ERR_CONNECT_TIMEOUT',
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EADDRNOTAVAIL',
  'ERR_TLS_CERT_ALTNAME_INVALID',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'CERT_HAS_EXPIRED',
  'CERT_NOT_YET_VALID',
  'UND_ERR_DESTROYED',
  'UND_ERR_CLOSED',
]);

function classifyTransportError(err: unknown): TransportFailure {
  if (err instanceof TransportFailure) return err;
  const code = String((err as { code?: unknown })?.code ?? 'UNKNOWN');
  if (code === 'UND_ERR_HEADERS_TIMEOUT' || code === 'UND_ERR_BODY_TIMEOUT') return new TransportFailure('timeout', code, { cause: err });
  if (code === 'UND_ERR_RES_EXCEEDED_MAX_SIZE') return new TransportFailure('too_large', code, { cause: err });
  // TLS alerts from the server (e.g. certificate required/unknown CA under TLS 1.3, where the client
  // only learns after its first write) mean the server refused the connection: nothing was processed.
  if (CONNECT_CODES.has(code) || code.startsWith('ERR_SSL_')) return new TransportFailure('connect', code, { cause: err });
  return new TransportFailure('network', code, { cause: err });
}

export class UpstreamTransport {
  private readonly pools = new Map<string, Pool>();
  /** The pool of an origin as the callers write it (no URL parsing per request): without a TLS identity, then per identity. */
  private plain = new Map<string, Pool>();
  private withTls = new WeakMap<TlsIdentity, Map<string, Pool>>();
  private closed = false;

  constructor(readonly options: TransportOptions) {}

  /** The pool for an origin + TLS identity, created on first use. */
  pool(origin: string, tls?: TlsIdentity): Pool {
    let known = this.plain;
    if (tls) {
      const m = this.withTls.get(tls);
      if (m) known = m;
      else this.withTls.set(tls, (known = new Map()));
    }
    const found = known.get(origin);
    if (found) return found;
    const key = poolKey(origin, tls);
    let pool = this.pools.get(key);
    if (!pool) {
      if (this.closed) throw new TransportFailure('connect', 'UND_ERR_CLOSED');
      pool = new Pool(origin, {
        connections: this.options.maxConnections,
        pipelining: 1,
        keepAliveTimeout: this.options.keepAliveTimeoutMs ?? 4_000,
        maxResponseSize: this.options.maxResponseBytes ?? 5 * 1024 * 1024,
        headersTimeout: this.options.timeouts.read.headersMs,
        bodyTimeout: this.options.timeouts.read.bodyMs,
        connect: {
          timeout: this.options.connectTimeoutMs,
          ...(tls?.cert ? { cert: tls.cert } : {}),
          ...(tls?.key ? { key: tls.key } : {}),
          ...(tls?.ca ? { ca: tls.ca } : {}),
        },
      });
      this.pools.set(key, pool);
    }
    known.set(origin, pool);
    return pool;
  }

  /** Number of pools (one per origin + TLS identity). */
  get poolCount(): number {
    return this.pools.size;
  }

  /**
   * One HTTP exchange. Timeouts are enforced here with native timers (undici's own headers/body timers
   * have ~0.5–1 s resolution; they stay armed as a backstop): `headersMs` from the moment the request is
   * written on an established connection until the response headers, then `bodyMs` of idle time between
   * body chunks. Waiting in the pool's queue and connecting are bounded by the connect timeout, not by
   * these. A failure before the request was written on a socket is a `connect` failure (nothing was sent).
   */
  send(req: TransportRequest): Promise<TransportResponse> {
    const t = this.options.timeouts[req.timeoutClass];
    const maxBytes = this.options.maxResponseBytes ?? 5 * 1024 * 1024;
    return new Promise<TransportResponse>((resolve, reject) => {
      let written = false;
      let settled = false;
      let timer: NodeJS.Timeout | undefined;
      let controller: Dispatcher.DispatchController | null = null;
      let status = 0;
      let headers: IncomingHttpHeaders = {};
      const chunks: Buffer[] = [];
      let size = 0;

      const settle = (fn: () => void) => {
        if (settled) return;
        settled = true;
        if (timer) clearTimeout(timer);
        fn();
      };
      const failWith = (f: TransportFailure) => {
        settle(() => reject(f));
        if (controller && !controller.aborted) controller.abort(f);
      };
      // One timer per exchange, moved as rarely as possible: each wait (the headers, then the body's idle time, from
      // every chunk) only sets `deadline`; the timer is set again only when a wait must end before it is due. When it
      // fires early (the deadline moved on since), it is set for the rest: the common exchange arms it once.
      let dueAt = 0;
      let deadline = 0;
      let timeoutCode = '';
      const onTimer = () => {
        timer = undefined;
        if (settled) return;
        const left = deadline - performance.now();
        if (left > 0) schedule(Math.ceil(left));
        else failWith(new TransportFailure('timeout', timeoutCode));
      };
      const schedule = (ms: number) => {
        dueAt = performance.now() + ms;
        timer = setTimeout(onTimer, ms);
      };
      const arm = (ms: number, code: string) => {
        if (settled) return;
        timeoutCode = code;
        deadline = performance.now() + ms;
        if (timer !== undefined && dueAt <= deadline) return;
        if (timer !== undefined) clearTimeout(timer);
        schedule(ms);
      };

      const handler: Dispatcher.DispatchHandler = {
        onRequestStart: (c) => {
          controller = c;
          written = true;
          arm(t.headersMs, 'UND_ERR_HEADERS_TIMEOUT');
        },
        onResponseStart: (_c, statusCode, h) => {
          if (statusCode < 200) return; // 1xx informational
          status = statusCode;
          headers = h;
          arm(t.bodyMs, 'UND_ERR_BODY_TIMEOUT');
        },
        onResponseData: (_c, chunk) => {
          size += chunk.length;
          if (size > maxBytes) return failWith(new TransportFailure('too_large', 'UND_ERR_RES_EXCEEDED_MAX_SIZE'));
          chunks.push(chunk);
          arm(t.bodyMs, 'UND_ERR_BODY_TIMEOUT');
        },
        onResponseEnd: () => {
          if (settled) return;
          // most bodies arrive in one chunk: decoded as they are, without a copy into a joined buffer first
          const body = chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size);
          settle(() => resolve({ status, headers, text: body.toString('utf8') }));
        },
        onResponseError: (_c, err) => {
          const f = err instanceof TransportFailure ? err : classifyTransportError(err);
          settle(() => reject(written || f.kind !== 'network' ? f : new TransportFailure('connect', f.code, { cause: err })));
        },
      };

      try {
        this.pool(req.origin, req.tls).dispatch(
          {
            path: req.path,
            method: req.method,
            headers: req.headers,
            body: req.body ?? null,
            // Backstops only (coarse timers); the native timers above fire first.
            headersTimeout: t.headersMs + 1_000,
            bodyTimeout: t.bodyMs + 1_000,
            // Never let undici replay a request on its own: every repetition is decided by the caller.
            idempotent: false,
          },
          handler,
        );
      } catch (err) {
        settle(() => reject(classifyTransportError(err)));
      }
    });
  }

  async close(): Promise<void> {
    this.closed = true;
    const pools = [...this.pools.values()];
    this.pools.clear();
    this.plain = new Map();
    this.withTls = new WeakMap();
    await Promise.all(
      pools.map(async (p) => {
        // Give in-flight requests a moment, then cut.
        const timer = setTimeout(() => void p.destroy().catch(() => undefined), 2_000);
        try {
          await p.close();
        } catch {
          /* already destroyed */
        } finally {
          clearTimeout(timer);
        }
      }),
    );
  }
}

function poolKey(origin: string, tls?: TlsIdentity): string {
  const o = new URL(origin).origin;
  if (!tls || (!tls.cert && !tls.key && !tls.ca)) return o;
  const h = createHash('sha256');
  for (const part of [tls.cert, tls.key, tls.ca]) h.update(part ? String(part) : '-').update('\n');
  return `${o}#${h.digest('hex').slice(0, 16)}`;
}
