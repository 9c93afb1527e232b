/**
 * RS256 access tokens of the simulated verification-session API, signed and verified with `jose`.
 *
 * The key pair is generated when the plugin starts, so a token of another sandbox instance ("another
 * environment") fails verification. Expiry is checked against the sandbox clock. The public key is served as
 * a JWKS at /verification/.well-known/jwks.json.
 */
import { randomUUID } from 'node:crypto';
import { exportJWK, generateKeyPair, jwtVerify, SignJWT, type KeyLike } from 'jose';

export interface AccessClaims {
  iss: string;
  aud: string;
  sub: string; // client id
  tenant_id: string;
  scope: string;
  iat: number;
  exp: number;
  jti: string;
}

export const TOKEN_ISSUER = 'sandbox-verification';
export const TOKEN_AUDIENCE = 'verification-session-api';

export class TokenSigner {
  readonly kid = randomUUID();

  private constructor(
    private readonly privateKey: KeyLike,
    private readonly publicKey: KeyLike,
  ) {}

  static async create(): Promise<TokenSigner> {
    const { privateKey, publicKey } = await generateKeyPair('RS256');
    return new TokenSigner(privateKey, publicKey);
  }

  async jwks() {
    const jwk = await exportJWK(this.publicKey);
    return { keys: [{ ...jwk, kid: this.kid, alg: 'RS256', use: 'sig' }] };
  }

  async sign(claims: { sub: string; tenant_id: string; scope: string; iat: number; exp: number }): Promise<string> {
    return new SignJWT({ tenant_id: claims.tenant_id, scope: claims.scope })
      .setProtectedHeader({ alg: 'RS256', typ: 'at+jwt', kid: this.kid })
      .setIssuer(TOKEN_ISSUER)
      .setAudience(TOKEN_AUDIENCE)
      .setSubject(claims.sub)
      .setIssuedAt(claims.iat)
      .setExpirationTime(claims.exp)
      .setJti(randomUUID())
      .sign(this.privateKey);
  }

  /** The claims of a valid, unexpired token of this instance; otherwise a reason. */
  async verify(token: string, now: Date): Promise<{ ok: true; claims: AccessClaims } | { ok: false; reason: string }> {
    try {
      const { payload } = await jwtVerify(token, this.publicKey, {
        algorithms: ['RS256'],
        issuer: TOKEN_ISSUER,
        audience: TOKEN_AUDIENCE,
        currentDate: now,
        clockTolerance: 0,
      });
      if (typeof payload.scope !== 'string' || typeof payload.tenant_id !== 'string') return { ok: false, reason: 'invalid token' };
      return { ok: true, claims: payload as unknown as AccessClaims };
    } catch (e) {
      const code = (e as { code?: string }).code;
      return { ok: false, reason: code === 'ERR_JWT_EXPIRED' ? 'token expired' : 'invalid token or issued by another environment' };
    }
  }
}
