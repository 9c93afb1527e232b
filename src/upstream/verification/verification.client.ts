import type { Clock } from '../../shared/clock';
import type { AuthProvider, UpstreamCaller } from '../http/upstream.caller';
import { bearerAuth, TokenCache, normaliseScope } from '../http/upstream.token-cache';
import {
  sessionSchema,
  verificationSchema,
  verificationTokenSchema,
  type CreateSessionRequest,
  type CreateVerificationRequest,
  type Session,
  type Verification,
  type VerificationScope,
  type VerificationToken,
} from './verification.types';

interface VerificationClientOptions {
  clientId: string;
  clientSecret: string;
  /** 'body' (client_id/client_secret form fields, default) or 'basic' (HTTP Basic, RFC 6749 §2.3.1). */
  authMethod?: 'body' | 'basic';
  /** Refresh the token this many seconds before it expires (default 60; the document recommends 30–60). */
  tokenRefreshMarginS?: number;
  /**
   * true (default): each call asks for a token with exactly the scope its endpoint needs (`sessions` or
   * `verifications`) — least privilege, one cached token per scope. false: no scope parameter; one token
   * carrying every scope granted to the client (cache key '').
   */
  requestScopes?: boolean;
  clock: Clock;
}

/**
 * The verification-session API: RFC 6749 client-credentials tokens, cached per scope with single-flight
 * refresh before expiry, and the /v1 session and verification endpoints.
 *
 * - Token errors (400 unsupported_grant_type / invalid_scope / invalid_request, 401 invalid_client) →
 *   UpstreamError kind token_rejected with upstreamCode = the RFC 6749 `error`; never retried.
 * - A 401 from /v1/* → the token is dropped, a fresh one fetched and the call sent once more; a second 401
 *   fails (kind unauthorized). 403 insufficient_scope → kind forbidden (upstreamCode from the body or the
 *   WWW-Authenticate challenge), not retried. 404 (another tenant's session) → kind not_found.
 * - createSession / createVerification carry no idempotency key: never repeated (except the 401 resend,
 *   which cannot duplicate: a 401 request is not processed). getSession is a read.
 */
export class VerificationClient {
  readonly tokens: TokenCache;

  constructor(
    private readonly caller: UpstreamCaller,
    private readonly opts: VerificationClientOptions,
  ) {
    this.tokens = new TokenCache({
      clock: opts.clock,
      marginMs: (opts.tokenRefreshMarginS ?? 60) * 1000,
      fetch: (scope) => this.requestToken(scope || undefined),
    });
  }

  private authFor(scope: VerificationScope): AuthProvider {
    return bearerAuth(this.tokens, this.opts.requestScopes === false ? '' : scope);
  }

  /** POST /oauth/token (client credentials). Normally called only through the token cache. */
  requestToken(scope?: string | readonly string[]): Promise<VerificationToken> {
    const form: Record<string, string> = { grant_type: 'client_credentials' };
    const s = normaliseScope(scope);
    if (s) form.scope = s;
    const headers: Record<string, string> = {};
    if (this.opts.authMethod === 'basic') {
      const id = formEncode(this.opts.clientId);
      const secret = formEncode(this.opts.clientSecret);
      headers.authorization = `Basic ${Buffer.from(`${id}:${secret}`).toString('base64')}`;
    } else {
      form.client_id = this.opts.clientId;
      form.client_secret = this.opts.clientSecret;
    }
    return this.caller.call({
      operation: 'token',
      method: 'POST',
      path: '/oauth/token',
      form,
      headers,
      timeoutClass: 'read',
      repeat: 'safe',
      schema: verificationTokenSchema,
      classify: (res) => (res.status === 400 || res.status === 401 ? { kind: 'token_rejected', retryable: false } : undefined),
    });
  }

  /** POST /v1/sessions (scope sessions). */
  createSession(req: CreateSessionRequest): Promise<Session> {
    return this.caller.call({
      operation: 'createSession',
      method: 'POST',
      path: '/v1/sessions',
      json: req,
      timeoutClass: 'write',
      repeat: 'never',
      auth: this.authFor('sessions'),
      schema: sessionSchema,
    });
  }

  /** GET /v1/sessions/{sessionId} (scope sessions); another tenant's session → UpstreamError not_found. */
  getSession(sessionId: string): Promise<Session> {
    return this.caller.call({
      operation: 'getSession',
      method: 'GET',
      path: `/v1/sessions/${encodeURIComponent(sessionId)}`,
      timeoutClass: 'read',
      repeat: 'safe',
      auth: this.authFor('sessions'),
      schema: sessionSchema,
    });
  }

  /** POST /v1/verifications (scope verifications). */
  createVerification(req: CreateVerificationRequest): Promise<Verification> {
    return this.caller.call({
      operation: 'createVerification',
      method: 'POST',
      path: '/v1/verifications',
      json: req,
      timeoutClass: 'write',
      repeat: 'never',
      auth: this.authFor('verifications'),
      schema: verificationSchema,
    });
  }

  /**
   * GET /v1/verifications/{verificationId} (scope verifications). Not in the document's endpoint table;
   * served by the sandbox (packages/sandbox/src/verification/verification.plugin.ts) and kept for read-back.
   */
  getVerification(verificationId: string): Promise<Verification> {
    return this.caller.call({
      operation: 'getVerification',
      method: 'GET',
      path: `/v1/verifications/${encodeURIComponent(verificationId)}`,
      timeoutClass: 'read',
      repeat: 'safe',
      auth: this.authFor('verifications'),
      schema: verificationSchema,
    });
  }
}

/** application/x-www-form-urlencoded encoding of a Basic credential part (RFC 6749 §2.3.1). */
function formEncode(v: string): string {
  return encodeURIComponent(v).replace(/%20/g, '+');
}
