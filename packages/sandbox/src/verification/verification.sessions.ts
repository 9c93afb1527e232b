/**
 * Sessions and verifications of the simulated verification-session API ("not shown" upstream beyond
 * userRef; sandbox decisions):
 *
 * - POST /v1/sessions { userRef (required, non-empty string ≤ 256), redirectUrl?, metadata? (object) } → 201
 *   session { id (uuid), userRef, status, createdAt, expiresAt, url, redirectUrl, metadata }.
 *   status: "created" → "completed" once a verification is decided for it; "expired" once the sandbox clock
 *   passes expiresAt (createdAt + 24 h) while still "created". url = <origin>/verification/hosted/{id}, a
 *   placeholder HTML page (200 for a known session, 404 otherwise).
 * - GET /v1/sessions/{id} → 200 session; unknown or another tenant's → 404.
 * - POST /v1/verifications { sessionId (required), type? ("identity" default, or "document") } → 201
 *   verification { id, sessionId, userRef, type, status, createdAt, decidedAt }. status "approved", or
 *   "declined" when the session's userRef is "Rejected". Unknown/other tenant's session → 404; expired →
 *   409 session_expired.
 * - GET /v1/verifications/{id} → 200 verification; unknown or another tenant's → 404.
 */
import { randomUUID } from 'node:crypto';
import type { SandboxContext } from '../sandbox.context';

export const SESSION_LIFETIME_S = 24 * 3600;

interface Session {
  id: string;
  tenantId: string;
  userRef: string;
  status: 'created' | 'completed';
  createdAt: string;
  expiresAtMs: number;
  redirectUrl: string | null;
  metadata: Record<string, unknown>;
}

interface Verification {
  id: string;
  tenantId: string;
  sessionId: string;
  userRef: string;
  type: 'identity' | 'document';
  status: 'approved' | 'declined';
  createdAt: string;
  decidedAt: string;
}

export interface VerificationError {
  status: number;
  body: { error: string; error_description: string };
}

const err = (status: number, error: string, description: string): VerificationError => ({
  status,
  body: { error, error_description: description },
});

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

export class SessionStore {
  private readonly sessions = new Map<string, Session>();
  private readonly verifications = new Map<string, Verification>();

  constructor(private readonly ctx: SandboxContext) {}

  reset(): void {
    this.sessions.clear();
    this.verifications.clear();
  }

  private view(s: Session) {
    const expired = s.status === 'created' && this.ctx.nowMs() >= s.expiresAtMs;
    return {
      id: s.id,
      userRef: s.userRef,
      status: expired ? 'expired' : s.status,
      createdAt: s.createdAt,
      expiresAt: new Date(s.expiresAtMs).toISOString(),
      url: `${this.ctx.publicOrigin}/verification/hosted/${s.id}`,
      redirectUrl: s.redirectUrl,
      metadata: s.metadata,
    };
  }

  createSession(tenantId: string, body: unknown) {
    if (!isObject(body)) return err(400, 'invalid_request', 'body must be a JSON object with userRef');
    if (typeof body.userRef !== 'string' || body.userRef.trim() === '' || body.userRef.length > 256)
      return err(400, 'invalid_request', 'userRef is required (a non-empty string of at most 256 characters)');
    if (body.redirectUrl !== undefined && typeof body.redirectUrl !== 'string')
      return err(400, 'invalid_request', 'redirectUrl must be a string');
    if (body.metadata !== undefined && !isObject(body.metadata)) return err(400, 'invalid_request', 'metadata must be an object');
    const now = this.ctx.nowMs();
    const s: Session = {
      id: randomUUID(),
      tenantId,
      userRef: body.userRef,
      status: 'created',
      createdAt: new Date(now).toISOString(),
      expiresAtMs: now + SESSION_LIFETIME_S * 1000,
      redirectUrl: (body.redirectUrl as string | undefined) ?? null,
      metadata: (body.metadata as Record<string, unknown> | undefined) ?? {},
    };
    this.sessions.set(s.id, s);
    return { status: 201, body: this.view(s) };
  }

  exists(id: string): boolean {
    return this.sessions.has(id);
  }

  getSession(tenantId: string, id: string) {
    const s = this.sessions.get(id);
    if (!s || s.tenantId !== tenantId) return err(404, 'not_found', 'session not found');
    return { status: 200, body: this.view(s) };
  }

  createVerification(tenantId: string, body: unknown) {
    if (!isObject(body) || typeof body.sessionId !== 'string' || body.sessionId === '')
      return err(400, 'invalid_request', 'sessionId is required');
    const type = body.type ?? 'identity';
    if (type !== 'identity' && type !== 'document') return err(400, 'invalid_request', 'type must be identity or document');
    const s = this.sessions.get(body.sessionId);
    if (!s || s.tenantId !== tenantId) return err(404, 'not_found', 'session not found');
    if (this.view(s).status === 'expired') return err(409, 'session_expired', 'the session has expired');
    const now = this.ctx.now().toISOString();
    const v: Verification = {
      id: randomUUID(),
      tenantId,
      sessionId: s.id,
      userRef: s.userRef,
      type,
      status: s.userRef === 'Rejected' ? 'declined' : 'approved',
      createdAt: now,
      decidedAt: now,
    };
    this.verifications.set(v.id, v);
    s.status = 'completed';
    return { status: 201, body: this.verificationView(v) };
  }

  getVerification(tenantId: string, id: string) {
    const v = this.verifications.get(id);
    if (!v || v.tenantId !== tenantId) return err(404, 'not_found', 'verification not found');
    return { status: 200, body: this.verificationView(v) };
  }

  private verificationView({ tenantId: _t, ...v }: Verification) {
    return v;
  }
}
