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
import type { Registry } from 'prom-client';
import { TokenCache, tokenCacheCounter, type Verified } from './token-cache';

const DEV_ISSUER = 'remittance-bff-dev';
const DEV_AUDIENCE = 'remittance-bff';
const DEV_ALG = 'ES256';
/** Asymmetric algorithms only: `none` and HMAC (key confusion) are never accepted. */
const ALGORITHMS = ['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'ES512', 'EdDSA'];
/** An Authorization header carrying a bearer token (RFC 6750 token68). */
const BEARER = /^Bearer\s+([A-Za-z0-9._~+/-]+=*)$/i;
/** Seconds of clock skew accepted on exp and nbf. */
const CLOCK_TOLERANCE_S = 30;

type StaticKey = KeyLike | Uint8Array;
type VerifyKey = StaticKey | JWTVerifyGetKey;

interface DevKeyFile {
  alg: string;
  privateJwk: JWK;
  publicJwk: JWK;
}

/** The development key pair, generated once and kept in DATA_DIR so tokens survive restarts. */
export async function loadOrCreateDevKeys(dataDir: string): Promise<DevKeyFile> {
  const file = join(dataDir, 'dev-auth-keys.json');
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

export class AuthService {
  private constructor(
    private readonly key: VerifyKey,
    private readonly issuer: string | undefined,
    private readonly audience: string | undefined,
    private readonly clock: Clock,
    /** Present only in the embedded default (development key pair). */
    private readonly devSigner: { privateJwk: JWK; alg: string } | null,
    private readonly cache: TokenCache,
    private readonly cacheMetrics: ReturnType<typeof tokenCacheCounter> | undefined,
  ) {}

  /**
   * `auth.tokenCache`: successful verifications kept (LRU, `size` 0 = off) for at most `maxAgeMs` and never
   * past the token's expiry (src/auth/token-cache.ts); absent = off. `metrics`: where auth_token_cache_total goes.
   */
  static async create(auth: Config['auth'], dataDir: string, clock: Clock, metrics?: Registry): Promise<AuthService> {
    const cache = new TokenCache(auth.tokenCache?.size ?? 0, auth.tokenCache?.maxAgeMs ?? 0, clock);
    const counter = cache.enabled && metrics ? tokenCacheCounter(metrics) : undefined;
    if (auth.jwksUrl) {
      return new AuthService(
        createRemoteJWKSet(new URL(auth.jwksUrl), { cooldownDuration: 30_000, cacheMaxAge: 600_000 }),
        auth.issuer ?? undefined,
        auth.audience ?? undefined,
        clock,
        null,
        cache,
        counter,
      );
    }
    if (auth.publicKey) {
      const pem = auth.publicKey.includes('-----BEGIN') ? auth.publicKey.replace(/\\n/g, '\n') : readFileSync(auth.publicKey, 'utf8');
      return new AuthService(createPublicKey(pem), auth.issuer ?? undefined, auth.audience ?? undefined, clock, null, cache, counter);
    }
    const dev = await loadOrCreateDevKeys(dataDir);
    const pub = await importJWK(dev.publicJwk, dev.alg);
    return new AuthService(
      pub,
      auth.issuer ?? DEV_ISSUER,
      auth.audience ?? DEV_AUDIENCE,
      clock,
      { privateJwk: dev.privateJwk, alg: dev.alg },
      cache,
      counter,
    );
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
    const acceptedUntilMs = (Math.ceil(exp) + CLOCK_TOLERANCE_S) * 1000;
    const notBeforeMs = nbf === undefined ? 0 : Math.ceil(nbf - CLOCK_TOLERANCE_S) * 1000;
    const verified = toVerified(checked);
    this.cache.set(key, { caller: { ...verified.caller }, expiresAtMs: verified.expiresAtMs }, nowMs, acceptedUntilMs, notBeforeMs);
    return verified;
  }

  private async verifySignature(token: string): Promise<{ caller: Caller; exp: number; nbf: number | undefined }> {
    let payload;
    try {
      const options = {
        algorithms: ALGORITHMS,
        issuer: this.issuer,
        audience: this.audience,
        currentDate: this.clock.now(),
        clockTolerance: CLOCK_TOLERANCE_S,
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
    // exp is required and checked to be a number by jwtVerify
    return { caller: { userId: payload.sub, role }, exp: payload.exp as number, nbf: payload.nbf };
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
      .setIssuer(this.issuer ?? DEV_ISSUER)
      .setAudience(this.audience ?? DEV_AUDIENCE)
      .setIssuedAt(now)
      .setExpirationTime(now + ttlSeconds)
      .sign(key);
  }
}

const toVerified = (v: { caller: Caller; exp: number }): Verified => ({ caller: v.caller, expiresAtMs: v.exp * 1000 });
