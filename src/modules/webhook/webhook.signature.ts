/**
 * X-Service-Signature verification (remittances platform, "Signature"):
 *
 *   X-Service-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256(secret, t + "." + raw body)>
 *
 * - The MAC is computed over the raw body bytes exactly as received (never a re-serialised JSON).
 * - Every v1 value of the header is considered (a sender may list several, e.g. during its own rotation);
 *   unknown schemes (v0, v2 …) are ignored, as the platform says future versions come "alongside".
 * - Comparison is constant-time (crypto.timingSafeEqual on equal-length buffers).
 * - t must be within ±toleranceS of our (injected) clock: an old signature is a replay, a future one is
 *   refused as well (the window is symmetric).
 * - Several candidate secrets may be given (one per stored subscription secret); any match verifies.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';

export const SIGNATURE_HEADER = 'x-service-signature';

type SignatureFailure = 'missing' | 'malformed' | 'timestamp_out_of_tolerance' | 'mismatch';

export type SignatureResult = { ok: true; timestamp: number; secretIndex: number } | { ok: false; reason: SignatureFailure };

interface ParsedSignature {
  timestamp: number;
  /** The raw digits of t, exactly as sent (the signed string uses them, not a re-formatted number). */
  timestampText: string;
  v1: Buffer[];
}

const MAX_HEADER_LENGTH = 4096;
const HEX64 = /^[0-9a-fA-F]{64}$/;

/** Parses `t=…,v1=…[,v1=…]`; null when malformed (no t, several t, no valid v1, garbage). */
export function parseSignatureHeader(header: string | string[] | undefined): ParsedSignature | null {
  if (typeof header !== 'string' || header.length === 0 || header.length > MAX_HEADER_LENGTH) return null;
  let timestampText: string | null = null;
  const v1: Buffer[] = [];
  for (const rawPart of header.split(',')) {
    const part = rawPart.trim();
    if (part === '') continue;
    const eq = part.indexOf('=');
    if (eq <= 0) return null;
    const key = part.slice(0, eq).trim();
    const value = part.slice(eq + 1).trim();
    if (key === 't') {
      if (timestampText !== null || !/^\d{1,12}$/.test(value)) return null;
      timestampText = value;
    } else if (key === 'v1') {
      if (HEX64.test(value)) v1.push(Buffer.from(value, 'hex'));
      // a malformed v1 value is simply not a candidate
    }
    // other schemes (v0, v2, …) are ignored
  }
  if (timestampText === null || v1.length === 0) return null;
  return { timestamp: Number(timestampText), timestampText, v1 };
}

function computeSignature(secret: string, timestampText: string, rawBody: Buffer): Buffer {
  return createHmac('sha256', secret).update(`${timestampText}.`, 'utf8').update(rawBody).digest();
}

/** Builds a header value (used by tests and tools; the platform signs its own deliveries). */
export function signatureHeaderFor(secret: string, timestamp: number, rawBody: Buffer | string): string {
  const body = typeof rawBody === 'string' ? Buffer.from(rawBody, 'utf8') : rawBody;
  return `t=${timestamp},v1=${computeSignature(secret, String(timestamp), body).toString('hex')}`;
}

export function verifySignature(opts: {
  header: string | string[] | undefined;
  rawBody: Buffer;
  secrets: readonly string[];
  nowMs: number;
  toleranceS: number;
}): SignatureResult {
  if (opts.header === undefined || opts.header === '') return { ok: false, reason: 'missing' };
  const parsed = parseSignatureHeader(opts.header);
  if (!parsed) return { ok: false, reason: 'malformed' };
  const nowS = Math.floor(opts.nowMs / 1000);
  if (Math.abs(nowS - parsed.timestamp) > opts.toleranceS) return { ok: false, reason: 'timestamp_out_of_tolerance' };
  let match = -1;
  // Every (secret, v1) pair is compared, without early exit, so timing reveals nothing about which matched.
  opts.secrets.forEach((secret, i) => {
    const expected = computeSignature(secret, parsed.timestampText, opts.rawBody);
    for (const candidate of parsed.v1) if (timingSafeEqual(expected, candidate) && match < 0) match = i;
  });
  return match >= 0 ? { ok: true, timestamp: parsed.timestamp, secretIndex: match } : { ok: false, reason: 'mismatch' };
}
