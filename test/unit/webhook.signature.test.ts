import { createHmac } from 'node:crypto';
import fc from 'fast-check';
import { parseSignatureHeader, signatureHeaderFor, verifySignature } from '../../src/modules/webhook/webhook.signature';
import { decodeKey, SecretBox, SecretDecryptionError, secretFingerprint } from '../../src/modules/webhook/webhook.crypto';
import { PRODUCTION_REQUIRED } from '../helpers/config';

const secret = 'c2VjcmV0LXNlY3JldC1zZWNyZXQtc2VjcmV0LXNlY3I=';
const body = Buffer.from('{"event":"AgentUpdatedEvents","id":"a"}');
const now = Date.parse('2026-01-01T00:00:00Z');
const t = Math.floor(now / 1000);
const verify = (header: string | undefined, opts: { raw?: Buffer; secrets?: string[]; nowMs?: number } = {}) =>
  verifySignature({ header, rawBody: opts.raw ?? body, secrets: opts.secrets ?? [secret], nowMs: opts.nowMs ?? now, toleranceS: 300 });

describe('X-Service-Signature', () => {
  it('matches an independent HMAC-SHA256 over "t.body"', () => {
    const v1 = createHmac('sha256', secret).update(`${t}.${body.toString()}`).digest('hex');
    expect(signatureHeaderFor(secret, t, body)).toBe(`t=${t},v1=${v1}`);
    expect(verify(`t=${t},v1=${v1}`)).toEqual({ ok: true, timestamp: t, secretIndex: 0 });
  });

  it('vectors: tampered, wrong secret, old/future, several v1, missing, malformed', () => {
    const good = signatureHeaderFor(secret, t, body);
    expect(verify(good, { raw: Buffer.from(body.toString().replace('"a"', '"b"')) })).toEqual({ ok: false, reason: 'mismatch' });
    expect(verify(good, { secrets: ['another-secret'] })).toEqual({ ok: false, reason: 'mismatch' });
    expect(verify(signatureHeaderFor(secret, t - 301, body))).toEqual({ ok: false, reason: 'timestamp_out_of_tolerance' });
    expect(verify(signatureHeaderFor(secret, t + 301, body))).toEqual({ ok: false, reason: 'timestamp_out_of_tolerance' });
    expect(verify(signatureHeaderFor(secret, t - 300, body)).ok).toBe(true);
    expect(verify(signatureHeaderFor(secret, t + 300, body)).ok).toBe(true);
    const v1 = good.split('v1=')[1]!;
    expect(verify(`t=${t},v1=${'0'.repeat(64)},v1=${v1},v0=zz,v2=abc`).ok).toBe(true);
    expect(verify(`v1=${v1},t=${t}`).ok).toBe(true); // order of parts does not matter
    expect(verify(`t=${t},v1=${'0'.repeat(64)},v1=${'1'.repeat(64)}`)).toEqual({ ok: false, reason: 'mismatch' });
    expect(verify(undefined)).toEqual({ ok: false, reason: 'missing' });
    for (const bad of [
      `t=${t}`,
      `v1=${v1}`,
      `t=abc,v1=${v1}`,
      `t=${t},t=${t},v1=${v1}`,
      `t=${t},v1=${v1.slice(2)}`,
      'garbage',
      `t=-1,v1=${v1}`,
      `=${t}`,
    ])
      expect(verify(bad)).toEqual({ ok: false, reason: 'malformed' });
  });

  it('several secrets: any one verifies, and which one is reported', () => {
    expect(verify(signatureHeaderFor(secret, t, body), { secrets: ['x', secret] })).toMatchObject({ ok: true, secretIndex: 1 });
  });

  it('fuzz: arbitrary headers never verify and never throw', () => {
    fc.assert(
      fc.property(
        fc.oneof(fc.string(), fc.string({ unit: 'binary' }), fc.constantFrom(`t=${t},v1=`, `t=${t},v1=${'a'.repeat(64)}`)),
        (h) => {
          expect(verify(h).ok).toBe(false);
          expect(() => parseSignatureHeader(h)).not.toThrow();
        },
      ),
      { numRuns: 2000 },
    );
  });
});

describe('secrets at rest (AES-256-GCM)', () => {
  const key = decodeKey(Buffer.alloc(32, 7).toString('base64'))!;
  const box = new SecretBox(key);

  it('round-trips, never contains the plaintext, uses a fresh IV, binds the row (AAD)', () => {
    const a = box.encrypt(secret, 'sub-1');
    const b = box.encrypt(secret, 'sub-1');
    expect(a).not.toBe(b);
    expect(a).not.toContain(secret);
    expect(a).not.toContain(Buffer.from(secret).toString('base64'));
    expect(a.startsWith(`v1.${box.keyId}.`)).toBe(true);
    expect(box.decrypt(a, 'sub-1')).toBe(secret);
    expect(() => box.decrypt(a, 'sub-2')).toThrow(SecretDecryptionError);
    const parts = a.split('.');
    parts[4] = Buffer.from('tampered').toString('base64url');
    expect(() => box.decrypt(parts.join('.'), 'sub-1')).toThrow(SecretDecryptionError);
    const other = new SecretBox(Buffer.alloc(32, 8));
    expect(() => other.decrypt(a, 'sub-1')).toThrow(/encrypted with key/);
  });

  it('keys: base64 of exactly 32 bytes; fingerprint = first 8 hex of sha256', () => {
    expect(decodeKey('short')).toBeNull();
    expect(decodeKey(Buffer.alloc(31).toString('base64'))).toBeNull();
    expect(decodeKey(Buffer.alloc(32, 1).toString('base64url'))).toHaveLength(32);
    expect(secretFingerprint('abc')).toBe('ba7816bf');
  });
});

describe('config', () => {
  const { loadConfig } = require('../../src/config') as typeof import('../../src/config');
  it('WEBHOOK_* variables: defaults, validation, key required in production', () => {
    expect(loadConfig({}).webhooks).toEqual({
      encryptionKey: null,
      toleranceS: 300,
      pollIntervalMs: 1000,
      secretCacheMs: 5000,
      maxAttempts: 12,
      concurrency: 4,
    });
    expect(() => loadConfig({ WEBHOOK_SECRET_ENCRYPTION_KEY: 'c2hvcnQ=' })).toThrow(
      /WEBHOOK_SECRET_ENCRYPTION_KEY: must be base64 of 32 bytes/,
    );
    expect(() => loadConfig({ WEBHOOK_TOLERANCE_S: '0' })).toThrow(/WEBHOOK_TOLERANCE_S/);
    const prod: Record<string, string> = {
      NODE_ENV: 'production',
      DATABASE_URL: 'postgres://db/x',
      AUTH_JWKS_URL: 'https://idp.example/jwks.json',
      GATEWAY_BASE_URL: 'https://gw.example',
      REMITTANCES_BASE_URL: 'https://rp.example',
      VERIFICATION_BASE_URL: 'https://vs.example',
      ...PRODUCTION_REQUIRED,
    };
    expect(() => loadConfig(prod)).toThrow(/WEBHOOK_SECRET_ENCRYPTION_KEY: is required in production/);
    // the endpoint the service registers its signed subscription for: production cannot receive webhooks without it
    const { PUBLIC_URL: _u, ...noUrl } = prod;
    expect(() => loadConfig({ ...noUrl, WEBHOOK_SECRET_ENCRYPTION_KEY: Buffer.alloc(32, 3).toString('base64') })).toThrow(
      /PUBLIC_URL: is required in production/,
    );
    const key = Buffer.alloc(32, 3).toString('base64');
    expect(loadConfig({ ...prod, WEBHOOK_SECRET_ENCRYPTION_KEY: key }).webhooks.encryptionKey).toBe(key);
  });
});
