/**
 * Encryption at rest of webhook signing secrets: AES-256-GCM under WEBHOOK_SECRET_ENCRYPTION_KEY
 * (32 bytes, base64). Envelope stored in webhook_secrets.encrypted_secret:
 *
 *   v1.<key id>.<iv>.<tag>.<ciphertext>       (base64url parts; key id = first 8 hex of sha256(key))
 *
 * - A fresh random 96-bit IV per encryption; the 128-bit tag authenticates the ciphertext.
 * - Additional authenticated data = the subscription id, so a ciphertext copied onto another row fails.
 * - The key id names which key encrypted a row: a service started with another key says so clearly
 *   instead of failing with an opaque authentication error.
 *
 * Embedded default (no key configured, not production): a key generated once into DATA_DIR
 * (webhook-secret.key, mode 0600), like the development auth keys. Production requires the variable.
 */
import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const VERSION = 'v1';

export class SecretDecryptionError extends Error {
  override readonly name = 'SecretDecryptionError';
}

export class SecretBox {
  readonly keyId: string;

  constructor(private readonly key: Buffer) {
    if (key.length !== 32) throw new Error('the webhook secret encryption key must be 32 bytes');
    this.keyId = keyIdOf(key);
  }

  encrypt(plaintext: string, aad: string): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    cipher.setAAD(Buffer.from(aad, 'utf8'));
    const ct = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    const tag = cipher.getAuthTag();
    return [VERSION, this.keyId, b64u(iv), b64u(tag), b64u(ct)].join('.');
  }

  decrypt(envelope: string, aad: string): string {
    const parts = envelope.split('.');
    if (parts.length !== 5 || parts[0] !== VERSION) throw new SecretDecryptionError('not a v1 secret envelope');
    const [, keyId, iv, tag, ct] = parts as [string, string, string, string, string];
    if (keyId !== this.keyId) throw new SecretDecryptionError(`encrypted with key ${keyId}, but the configured key is ${this.keyId}`);
    try {
      const decipher = createDecipheriv('aes-256-gcm', this.key, Buffer.from(iv, 'base64url'));
      decipher.setAAD(Buffer.from(aad, 'utf8'));
      decipher.setAuthTag(Buffer.from(tag, 'base64url'));
      return Buffer.concat([decipher.update(Buffer.from(ct, 'base64url')), decipher.final()]).toString('utf8');
    } catch {
      throw new SecretDecryptionError('the secret envelope does not authenticate (tampered or wrong row)');
    }
  }
}

const b64u = (b: Buffer) => b.toString('base64url');
const keyIdOf = (key: Buffer) => createHash('sha256').update(key).digest('hex').slice(0, 8);

/** "first 8 hex characters of sha256 of the secret" — the platform's secretFingerprint. */
export const secretFingerprint = (secret: string) => createHash('sha256').update(secret, 'utf8').digest('hex').slice(0, 8);

/** Decodes a configured key (base64 or base64url of 32 bytes); null when invalid. */
export function decodeKey(value: string): Buffer | null {
  const v = value.trim();
  if (!/^[A-Za-z0-9+/_-]{42,44}={0,2}$/.test(v)) return null;
  const key = Buffer.from(v.replace(/-/g, '+').replace(/_/g, '/'), 'base64');
  return key.length === 32 ? key : null;
}

/** The embedded default: DATA_DIR/webhook-secret.key, generated once (0600). */
export function loadOrCreateDevKey(dataDir: string): Buffer {
  const file = join(dataDir, 'webhook-secret.key');
  if (existsSync(file)) {
    const key = decodeKey(readFileSync(file, 'utf8'));
    if (!key) throw new Error(`${file} does not hold a base64 32-byte key`);
    return key;
  }
  mkdirSync(dataDir, { recursive: true });
  const key = randomBytes(32);
  try {
    writeFileSync(file, `${key.toString('base64')}\n`, { mode: 0o600, flag: 'wx' });
  } catch (e) {
    // another process created it first: use theirs
    if ((e as NodeJS.ErrnoException).code === 'EEXIST') return loadOrCreateDevKey(dataDir);
    throw e;
  }
  chmodSync(file, 0o600);
  return key;
}
