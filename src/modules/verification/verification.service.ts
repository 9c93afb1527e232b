import type { PrismaClient } from '../../generated/prisma/client';
import type { Caller } from '../../auth/auth.types';
import type { GatewayClient } from '../../upstream/gateway/gateway.client';
import type { VerificationClient } from '../../upstream/verification/verification.client';
import type { Session, Verification } from '../../upstream/verification/verification.types';
import { notFound } from '../../shared/errors';

/** The gateway's person field paths → PersonInput's (the API's one address shape; contact details beside it). */
const PERSON_FIELD: Record<string, string> = {
  'address.addressLine1': 'address.line1',
  'address.addressLine2': 'address.line2',
  'address.state': 'address.region',
  'address.phoneNumber': 'phoneNumber',
  'address.emailAddress': 'email',
};
const personField = (path: string): string => PERSON_FIELD[path] ?? path;

const str = (v: unknown): string | null => (typeof v === 'string' && v !== '' ? v : null);
const strs = (v: unknown): string[] => (Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : []);
const date = (v: unknown): Date | null => {
  const d = typeof v === 'string' ? new Date(v) : null;
  return d && !Number.isNaN(d.getTime()) ? d : null;
};

/**
 * KYC helpers: the country person schema, and sessions/verifications of the verification-session API.
 *
 * Sessions belong to our tenant upstream, not to a user, so `verification_session_owners` records who
 * started each one: customers read and use only their own (another's id answers NOT_FOUND, exactly as an
 * unknown id does); back-office and admins read any. userRef sent upstream is always the caller's id.
 * The client asks for a token with exactly the scope each endpoint needs (sessions | verifications).
 */
export class VerificationService {
  constructor(
    private readonly prisma: PrismaClient,
    private readonly verification: VerificationClient,
    private readonly gateway: GatewayClient,
  ) {}

  /** GET /schema/person. Its response is "not shown"; read as the sandbox answers it, unknown keys ignored. */
  async personRequirements(countryCode: string) {
    const raw: Record<string, unknown> = await this.gateway.getPersonSchema(countryCode);
    const rules = (v: unknown) => {
      const o = (typeof v === 'object' && v !== null ? v : {}) as Record<string, unknown>;
      return {
        requiredFields: strs(o.requiredFields).map(personField),
        identificationTypes: strs(o.identificationTypes),
        identificationPattern: str(o.identificationPattern),
        postalCodePattern: str(o.postalCodePattern),
        regionCodePattern: str(o.statePattern),
      };
    };
    return {
      countryCode: str(raw.countryCode) ?? countryCode,
      isDefault: raw.default === true,
      individual: rules(raw.individual),
      business: rules(raw.business),
    };
  }

  async startSession(caller: Caller, redirectUrl?: string) {
    const s = await this.verification.createSession({ userRef: caller.userId, ...(redirectUrl ? { redirectUrl } : {}) });
    await this.prisma.verificationSessionOwner.create({ data: { sessionId: s.id, ownerId: caller.userId } });
    return sessionView(s, caller.userId);
  }

  async getSession(caller: Caller, sessionId: string) {
    const owner = await this.ownerOf(caller, sessionId);
    const s = await this.verification.getSession(sessionId);
    return sessionView(s, owner ?? str(s.userRef) ?? '');
  }

  async createVerification(caller: Caller, sessionId: string, type: string) {
    await this.ownerOf(caller, sessionId);
    const v = await this.verification.createVerification({ sessionId, type });
    return verificationView(v, sessionId);
  }

  /** The session's owner; NOT_FOUND for a customer who does not own it (or an unknown id). */
  private async ownerOf(caller: Caller, sessionId: string): Promise<string | null> {
    const row = await this.prisma.verificationSessionOwner.findUnique({ where: { sessionId } });
    if (caller.role === 'customer' && row?.ownerId !== caller.userId) throw notFound('Verification session');
    return row?.ownerId ?? null;
  }
}

function sessionView(s: Session, ownerId: string) {
  return {
    id: s.id,
    ownerId,
    status: str(s.status) ?? 'unknown',
    url: str(s.url),
    createdAt: date(s.createdAt),
    expiresAt: date(s.expiresAt),
  };
}

function verificationView(v: Verification, sessionId: string) {
  return {
    id: v.id,
    sessionId: str(v.sessionId) ?? sessionId,
    type: str(v.type) ?? 'identity',
    status: str(v.status) ?? 'unknown',
    createdAt: date(v.createdAt),
    decidedAt: date(v.decidedAt),
  };
}
