import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SignJWT, generateKeyPair, decodeJwt } from 'jose';
import { Registry } from 'prom-client';
import { AuthService } from '../../src/auth/auth.service';
import { loadConfig } from '../../src/config';
import { ManualClock } from '../../src/shared/clock';

/** The verification cache of src/auth: reuse never widens what the signature check accepts. */
describe('bearer token verification cache', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'rbff-token-cache-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  const make = async (env: Record<string, string> = {}) => {
    const clock = new ManualClock(Date.parse('2026-03-01T10:00:00.250Z'));
    const registry = new Registry();
    const auth = await AuthService.create(loadConfig({ DATA_DIR: dir, ...env }).auth, dir, clock, registry);
    const count = async (outcome: 'hit' | 'miss') => {
      const m = (await registry.getMetricsAsJSON()).find((x) => x.name === 'auth_token_cache_total');
      return (m?.values.find((v) => v.labels.outcome === outcome)?.value as number | undefined) ?? 0;
    };
    return { auth, clock, count };
  };
  const refused = (p: Promise<unknown>) => expect(p).rejects.toMatchObject({ code: 'UNAUTHENTICATED' });

  it('answers a repeated token from the cache, and still refuses it once expired (judged with the injected clock)', async () => {
    const { auth, clock, count } = await make({ AUTH_TOKEN_CACHE_MAX_AGE_S: '3600' });
    const token = await auth.issueDevToken('alice', 'customer', 120);
    await expect(auth.verify(token)).resolves.toEqual({ userId: 'alice', role: 'customer' });
    await expect(auth.verify(token)).resolves.toEqual({ userId: 'alice', role: 'customer' });
    expect(await count('miss')).toBe(1);
    expect(await count('hit')).toBe(1);
    expect(auth.tokenCacheSize).toBe(1);

    // jose accepts exp + 30 s of skew; the cached entry ends at the same instant
    const exp = decodeJwt(token).exp! * 1000;
    clock.set(exp + 30_000 - 1);
    await expect(auth.verify(token)).resolves.toEqual({ userId: 'alice', role: 'customer' });
    expect(await count('hit')).toBe(2);
    clock.set(exp + 30_000);
    await refused(auth.verify(token));
    expect(auth.tokenCacheSize).toBe(0);
    clock.advance(3_600_000);
    await refused(auth.verify(token));
  });

  it('agrees with the uncached service at every instant around expiry', async () => {
    const cached = await make({ AUTH_TOKEN_CACHE_MAX_AGE_S: '3600' });
    const plain = await make({ AUTH_TOKEN_CACHE_SIZE: '0' });
    const token = await cached.auth.issueDevToken('bob', 'backoffice', 60);
    await cached.auth.verify(token); // cached now
    const exp = decodeJwt(token).exp! * 1000;
    for (const at of [exp - 1, exp, exp + 29_000, exp + 29_999, exp + 30_000, exp + 30_001, exp + 31_000]) {
      cached.clock.set(at);
      plain.clock.set(at);
      const a = await cached.auth.verify(token).then(
        () => 'ok',
        (e: { code: string }) => e.code,
      );
      const b = await plain.auth.verify(token).then(
        () => 'ok',
        (e: { code: string }) => e.code,
      );
      expect([at - exp, a]).toEqual([at - exp, b]);
    }
  });

  it('refuses a forged token with the same claims and another signature, even while the genuine one is cached', async () => {
    const { auth, count } = await make();
    const token = await auth.issueDevToken('alice', 'admin', 600);
    await auth.verify(token);
    await auth.verify(token);
    expect(await count('hit')).toBe(1);

    // same header and claims, signed with another ES256 key
    const claims = decodeJwt(token);
    const { privateKey } = await generateKeyPair('ES256');
    const forged = await new SignJWT({ ...claims }).setProtectedHeader({ alg: 'ES256', typ: 'JWT' }).sign(privateKey);
    expect(forged.split('.').slice(0, 2)).toEqual(token.split('.').slice(0, 2));
    expect(forged).not.toBe(token);
    await refused(auth.verify(forged));
    // the genuine signature with one character changed
    const [h, p, s] = token.split('.');
    const tampered = `${h}.${p}.${s!.slice(0, 10)}${s![10] === 'A' ? 'B' : 'A'}${s!.slice(11)}`;
    await refused(auth.verify(tampered));
    // failures are never cached: refused again, still only the genuine entry
    await refused(auth.verify(forged));
    expect(auth.tokenCacheSize).toBe(1);
    expect(await count('hit')).toBe(1);
  });

  it('verifies the signature again after the maximum age', async () => {
    const { auth, clock, count } = await make({ AUTH_TOKEN_CACHE_MAX_AGE_S: '60' });
    const token = await auth.issueDevToken('carol', 'customer', 3600);
    await auth.verify(token);
    clock.advance(59_999);
    await auth.verify(token);
    expect([await count('miss'), await count('hit')]).toEqual([1, 1]);
    clock.advance(1);
    await auth.verify(token);
    expect([await count('miss'), await count('hit')]).toEqual([2, 1]);
  });

  it('keeps at most AUTH_TOKEN_CACHE_SIZE entries, least recently used out first', async () => {
    const { auth, count } = await make({ AUTH_TOKEN_CACHE_SIZE: '2' });
    const [a, b, c] = await Promise.all(['a', 'b', 'c'].map((s) => auth.issueDevToken(s, 'customer', 600)));
    await auth.verify(a!);
    await auth.verify(b!);
    await auth.verify(a!); // a is now the most recent
    await auth.verify(c!); // evicts b
    expect(auth.tokenCacheSize).toBe(2);
    const hits = await count('hit');
    await auth.verify(a!);
    expect(await count('hit')).toBe(hits + 1);
    await auth.verify(b!);
    expect(await count('hit')).toBe(hits + 1);
  });

  it('works with the cache off (AUTH_TOKEN_CACHE_SIZE=0): every token verified, expiry refused', async () => {
    const { auth, clock, count } = await make({ AUTH_TOKEN_CACHE_SIZE: '0' });
    const token = await auth.issueDevToken('dave', 'customer', 60);
    await expect(auth.verify(token)).resolves.toEqual({ userId: 'dave', role: 'customer' });
    await expect(auth.verify(token)).resolves.toEqual({ userId: 'dave', role: 'customer' });
    expect(auth.tokenCacheSize).toBe(0);
    expect([await count('hit'), await count('miss')]).toEqual([0, 0]);
    clock.advance(91_000);
    await refused(auth.verify(token));
  });

  it('returns a copy: a caller mutating what it got does not change the cached principal', async () => {
    const { auth } = await make();
    const token = await auth.issueDevToken('erin', 'customer', 600);
    const first = await auth.verify(token);
    (first as { role: string }).role = 'admin';
    const again = await auth.verify(token);
    (again as { role: string }).role = 'admin';
    await expect(auth.verify(token)).resolves.toEqual({ userId: 'erin', role: 'customer' });
  });
});
