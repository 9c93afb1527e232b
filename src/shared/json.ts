import { createHash } from 'node:crypto';

/**
 * One JSON text per value, whatever order its object keys came in: keys sorted, `undefined` members left out (as
 * `JSON.stringify` leaves them out). For comparing and hashing JSON values — request arguments, event payloads, what
 * an app was shown. `omitNull`: null members are left out too, at any depth (array items stay as they are) — for a
 * GraphQL request, a nullable argument given as null is the same request as one that leaves it out.
 */
export function canonicalJson(v: unknown, omitNull = false): string {
  if (v === null || typeof v !== 'object') return JSON.stringify(v ?? null);
  if (Array.isArray(v)) return `[${v.map((x) => canonicalJson(x, omitNull)).join(',')}]`;
  const entries = Object.entries(v as Record<string, unknown>)
    .filter(([, x]) => x !== undefined && !(omitNull && x === null))
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `{${entries.map(([k, x]) => `${JSON.stringify(k)}:${canonicalJson(x, omitNull)}`).join(',')}}`;
}

/** sha256 (hex) of a value's canonical JSON (canonicalJson, with `omitNull` as there). */
export const canonicalDigest = (v: unknown, omitNull = false): string =>
  createHash('sha256').update(canonicalJson(v, omitNull)).digest('hex');
