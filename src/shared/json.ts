import { createHash } from 'node:crypto';

/**
 * One JSON text per value, whatever order its object keys came in: keys sorted, `undefined` members left out (as
 * `JSON.stringify` leaves them out). For comparing and hashing JSON values — request arguments, event payloads, what
 * an app was shown.
 */
export function canonicalJson(v: unknown): string {
  if (v === null || typeof v !== 'object') return JSON.stringify(v ?? null);
  if (Array.isArray(v)) return `[${v.map(canonicalJson).join(',')}]`;
  const entries = Object.entries(v as Record<string, unknown>)
    .filter(([, x]) => x !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `{${entries.map(([k, x]) => `${JSON.stringify(k)}:${canonicalJson(x)}`).join(',')}}`;
}

/** sha256 (hex) of a value's canonical JSON. */
export const canonicalDigest = (v: unknown): string => createHash('sha256').update(canonicalJson(v)).digest('hex');
