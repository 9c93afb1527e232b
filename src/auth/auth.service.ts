import { createPublicKey, randomUUID } from 'node:crypto';
import { link, mkdir, readFile, unlink, writeFile } from 'node:fs/promises';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import {
  SignJWT,
  createRemoteJWKSet,
  exportJWK,
  generateKeyPair,
  importJWK,
  jwtVerify,
  type JWK,
  type JWTVerifyGetKey,
  type KeyLike,
} from 'jose';
import { AppError, unauthenticated } from '../shared/errors';
import type { Clock } from '../shared/clock';
import type { Config } from '../config';
import { isRole, type Caller, type Role } from './auth.types';
import { tokenCacheCounter, type Metrics } from '../shared/metrics';
import { TokenCache, type Verified } from './token-cache';

const DEV_ISSUER = 'remittance-bff-dev';
const DEV_AUDIENCE = 'remittance-bff';
const DEV_ALG = 'ES256';
/** Asymmetric algorithms only: `none` and HMAC (key confusion) are never accepted. */
const ALGORITHMS = ['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'ES512', 'EdDSA'];
/** An Authorization header carrying a bearer token (RFC 6750 token68). */
const BEARER = /^Bearer\s+([A-Za-z0-9._~+/-]+=*)$/i;

type StaticKey = KeyLike | Uint8Array;
type VerifyKey = StaticKey | JWTVerifyGetKey;

interface DevKeyFile {
  alg: string;
  privateJwk: JWK;
  publicJwk: JWK;
}

/** The development key pair, generated once and kept in DATA_DIR so tokens survive restarts. */
/** The development key pair's file in DATA_DIR. */
export const DEV_KEYS_FILE = 'dev-auth-keys.json';

export async function loadOrCreateDevKeys(dataDir: string): Promise<DevKeyFile> {
  const file = join(dataDir, DEV_KEYS_FILE);
  try {
    return JSON.parse(await readFile(file, 'utf8')) as DevKeyFile;
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
  }
  const { privateKey, publicKey } = await generateKeyPair(DEV_ALG, { extractable: true });
  const keys: DevKeyFile = { alg: DEV_ALG, privateJwk: await exportJWK(privateKey), publicJwk: await exportJWK(publicKey) };
  await mkdir(dirname(file), { recursive: true });
  // Written whole under a name of its own, then linked into place: the file appears complete or not at all (another
  // process starting at the same time never reads it half-written), and only if no other process made it first.
  // A file system without hard links (FAT, some shared folders) gets the file created in place, as before.
  const text = JSON.stringify(keys);
  const draft = `${file}.${process.pid}.${randomUUID()}`;
  try {
    await writeFile(draft, text, { flag: 'wx', mode: 0o600 });
    try {
      await link(draft, file);
    } catch (e) {
      if (!NO_HARD_LINKS.has((e as NodeJS.ErrnoException).code ?? '')) throw e;
      await writeFile(file, text, { flag: 'wx', mode: 0o600 });
    }
    return keys;
  } catch (e) {
    // Another process created it first: use theirs.
    if ((e as NodeJS.ErrnoException).code === 'EEXIST') return JSON.parse(await readFile(file, 'utf8')) as DevKeyFile;
    throw e;
  } finally {
    await unlink(draft).catch(() => undefined);
  }
}

/** What `link` answers where the file system has no hard links. */
const NO_HARD_LINKS = new Set(['EPERM', 'ENOTSUP', 'EOPNOTSUPP', 'ENOSYS']);

interface Verification {
  key: VerifyKey;
  issuer: string | undefined;
  audience: string | undefined;
  /** Seconds of clock skew accepted on exp, nbf and iat. */
  clockSkewS: number;
  /** The longest a token may be valid for: exp − iat (or exp − nbf, or exp − now without either). */
  maxLifetimeS: number;
  /** Present only in the embedded default (development key pair). */
  devSigner: { privateJwk: JWK; alg: string } | null;
}

export class AuthService {
  private readonly key: VerifyKey;
  private readonly devSigner: Verification['devSigner'];

  private constructor(
    private readonly v: Verification,
    private readonly clock: Clock,
    private readonly cache: TokenCache,
    private readonly cacheMetrics: ReturnType<typeof tokenCacheCounter> | undefined,
  ) {
    this.key = v.key;
    this.devSigner = v.devSigner;
  }

  /**
   * `auth.tokenCache`: successful verifications kept (LRU, `size` 0 = off) for at most `maxAgeMs` and never
   * past the token's expiry (src/auth/token-cache.ts); absent = off. `metrics`: where auth_token_cache_total goes.
   */
  static async create(auth: Config['auth'], dataDir: string, clock: Clock, metrics?: Metrics['registry']): Promise<AuthService> {
    const cache = new TokenCache(auth.tokenCache?.size ?? 0, auth.tokenCache?.maxAgeMs ?? 0, clock);
    const counter = cache.enabled && metrics ? tokenCacheCounter(metrics) : undefined;
    const rules = { clockSkewS: auth.clockSkewS, maxLifetimeS: auth.maxTokenLifetimeS };
    const external = { issuer: auth.issuer ?? undefined, audience: auth.audience ?? undefined, devSigner: null, ...rules };
    if (auth.jwksUrl) {
      const key = createRemoteJWKSet(new URL(auth.jwksUrl), { cooldownDuration: 30_000, cacheMaxAge: 600_000 });
      return new AuthService({ key, ...external }, clock, cache, counter);
    }
    if (auth.publicKey) {
      const pem = auth.publicKey.includes('-----BEGIN') ? auth.publicKey.replace(/\\n/g, '\n') : readFileSync(auth.publicKey, 'utf8');
      return new AuthService({ key: createPublicKey(pem), ...external }, clock, cache, counter);
    }
    const dev = await loadOrCreateDevKeys(dataDir);
    const key = await importJWK(dev.publicJwk, dev.alg);
    const devSigner = { privateJwk: dev.privateJwk, alg: dev.alg };
    const issuer = auth.issuer ?? DEV_ISSUER;
    return new AuthService({ key, issuer, audience: auth.audience ?? DEV_AUDIENCE, devSigner, ...rules }, clock, cache, counter);
  }

  /** Entries in the verification cache (0 when it is off). */
  get tokenCacheSize(): number {
    return this.cache.size;
  }

  /** Verifies a bearer token; any problem → UNAUTHENTICATED (the reason is not disclosed to the caller). */
  async verify(token: string): Promise<Caller> {
    return (await this.verifyWithExpiry(token)).caller;
  }

  /** `verify`, plus the token's `exp` as epoch ms (no tolerance): what a long-lived session must end at. */
  private async verifyWithExpiry(token: string): Promise<Verified> {
    if (!this.cache.enabled) return toVerified(await this.verifySignature(token));
    const key = TokenCache.keyOf(token);
    const nowMs = this.clock.nowMs();
    const hit = this.cache.get(key);
    this.cacheMetrics?.[hit ? 'hit' : 'miss'].inc();
    if (hit) return { caller: { ...hit.caller }, expiresAtMs: hit.expiresAtMs };
    const checked = await this.verifySignature(token);
    const { exp, nbf } = checked;
    // the first instants jose refuses it at: exp <= now - tolerance, nbf > now + tolerance (now in whole seconds)
    const acceptedUntilMs = (Math.ceil(exp) + this.v.clockSkewS) * 1000;
    const notBeforeMs = nbf === undefined ? 0 : Math.ceil(nbf - this.v.clockSkewS) * 1000;
    const verified = toVerified(checked);
    this.cache.set(key, { caller: { ...verified.caller }, expiresAtMs: verified.expiresAtMs }, nowMs, acceptedUntilMs, notBeforeMs);
    return verified;
  }

  private async verifySignature(token: string): Promise<{ caller: Caller; exp: number; nbf: number | undefined }> {
    let payload;
    try {
      const options = {
        algorithms: ALGORITHMS,
        issuer: this.v.issuer,
        audience: this.v.audience,
        currentDate: this.clock.now(),
        clockTolerance: this.v.clockSkewS,
        requiredClaims: ['sub', 'exp'],
      };
      ({ payload } =
        typeof this.key === 'function' ? await jwtVerify(token, this.key, options) : await jwtVerify(token, this.key, options));
    } catch {
      throw unauthenticated('Invalid or expired token');
    }
    const role = payload.role;
    if (typeof payload.sub !== 'string' || payload.sub.length === 0 || payload.sub.length > 200 || !isRole(role))
      throw unauthenticated('Token lacks a valid subject or role');
    // exp is required and checked to be a number by jwtVerify (iat and nbf too, when present)
    const exp = payload.exp as number;
    if (!this.withinLifetime(exp, payload.iat, payload.nbf)) throw unauthenticated('Invalid or expired token');
    return { caller: { userId: payload.sub, role }, exp, nbf: payload.nbf };
  }

  /**
   * A token issued in the future (iat beyond the clock skew) is refused, and so is one valid for longer than the
   * maximum lifetime — exp − iat, or exp − nbf, or (neither given) exp − now: a token that never expires is a
   * credential that cannot be taken back.
   */
  private withinLifetime(exp: number, iat: number | undefined, nbf: number | undefined): boolean {
    const nowS = this.clock.nowMs() / 1000;
    if (iat !== undefined && iat > nowS + this.v.clockSkewS) return false;
    const from = iat ?? nbf ?? nowS;
    return exp - from <= this.v.maxLifetimeS;
  }

  /**
   * The caller of an Authorization header when that needs no work but a look-up — `null`: no header; the cached
   * verification of its token — else undefined (a bad header, a token not in the cache, the cache off): ask
   * `fromAuthorizationHeader`. Synchronous: the common request pays no promise for its (cached) authentication.
   */
  cachedFromAuthorizationHeader(header: string | undefined | null): Caller | null | undefined {
    if (header === undefined || header === null || header === '') return null;
    if (!this.cache.enabled) return undefined;
    const m = BEARER.exec(header.trim());
    if (!m) return undefined;
    const hit = this.cache.get(TokenCache.keyOf(m[1]!));
    if (!hit) return undefined;
    this.cacheMetrics?.hit.inc();
    return { ...hit.caller };
  }

  /** `null` when there is no Authorization header; throws UNAUTHENTICATED when one is present but bad. */
  async fromAuthorizationHeader(header: string | undefined | null): Promise<Caller | null> {
    return (await this.sessionFromAuthorizationHeader(header))?.caller ?? null;
  }

  /**
   * `fromAuthorizationHeader` for a long-lived session (a websocket): also when the token expires (its `exp`,
   * epoch ms, without the clock tolerance), so the session can end with it.
   */
  async sessionFromAuthorizationHeader(header: string | undefined | null): Promise<Verified | null> {
    if (header === undefined || header === null || header === '') return null;
    const m = BEARER.exec(header.trim());
    if (!m) throw unauthenticated('Authorization must be "Bearer <token>"');
    return this.verifyWithExpiry(m[1]!);
  }

  get canIssueDevTokens(): boolean {
    return this.devSigner !== null;
  }

  /** Development only: a token signed with the embedded key pair (what `npm run token` prints). */
  async issueDevToken(sub: string, role: Role, ttlSeconds = 12 * 3600): Promise<string> {
    if (!this.devSigner) throw new AppError('FORBIDDEN', 'Development tokens are only available with the embedded key pair');
    const key = await importJWK(this.devSigner.privateJwk, this.devSigner.alg);
    const now = Math.floor(this.clock.nowMs() / 1000);
    return new SignJWT({ role })
      .setProtectedHeader({ alg: this.devSigner.alg, typ: 'JWT' })
      .setSubject(sub)
      .setIssuer(this.v.issuer ?? DEV_ISSUER)
      .setAudience(this.v.audience ?? DEV_AUDIENCE)
      .setIssuedAt(now)
      .setExpirationTime(now + ttlSeconds)
      .sign(key);
  }
}

const toVerified = (v: { caller: Caller; exp: number }): Verified => ({ caller: v.caller, expiresAtMs: v.exp * 1000 });
