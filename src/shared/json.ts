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

/**
 * The value with every object member that is null or undefined left out, at any depth (array items stay as they
 * are): for a GraphQL request, a nullable argument given as null is the same request as one that leaves it out.
 */
export function withoutNullMembers(v: unknown): unknown {
  if (v === null || typeof v !== 'object') return v;
  if (Array.isArray(v)) return v.map(withoutNullMembers);
  const out: Record<string, unknown> = {};
  for (const [k, x] of Object.entries(v as Record<string, unknown>)) if (x !== null && x !== undefined) out[k] = withoutNullMembers(x);
  return out;
}

/** sha256 (hex) of a value's canonical JSON. */
export const canonicalDigest = (v: unknown): string => createHash('sha256').update(canonicalJson(v)).digest('hex');
