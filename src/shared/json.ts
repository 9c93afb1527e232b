import { createHash } from 'node:crypto';

/**
 * One JSON text per value, whatever order its object keys came in: keys sorted, `undefined` members left out (as
 * `JSON.stringify` leaves them out). For comparing and hashing JSON values — request arguments, event payloads, what
 * an app was shown. `omitNull`: null members are left out too, at any depth (array items stay as they are) — for a
 * GraphQL request, a nullable argument given as null is the same request as one that leaves it out.
 */
export function canonicalJson(v: unknown, omitNull = false): string {
  if (v === null || typeof v !== 'object') return JSON.stringify(v ?? null);
  // as JSON.stringify writes it (a Date as its ISO text, a Decimal as its digits), not as the object's own fields
  const json = (v as { toJSON?: unknown }).toJSON;
  if (typeof json === 'function') {
    const j: unknown = json.call(v);
    if (j !== v) return canonicalJson(j, omitNull);
  }
  // built as one string (no entry pairs, filtered and mapped arrays, joins): event payloads and request arguments
  // are written on every webhook and every idempotent request
  let out: string;
  if (Array.isArray(v)) {
    out = '[';
    for (let i = 0; i < v.length; i++) out += (i === 0 ? '' : ',') + canonicalJson(v[i], omitNull);
    return `${out}]`;
  }
  const o = v as Record<string, unknown>;
  const keys = Object.keys(o).sort(); // code-unit order, as `<` compares
  out = '{';
  for (const k of keys) {
    const x = o[k];
    if (x === undefined || (omitNull && x === null)) continue;
    out += (out.length === 1 ? '' : ',') + JSON.stringify(k) + ':' + canonicalJson(x, omitNull);
  }
  return `${out}}`;
}

/** sha256 (hex) of a value's canonical JSON (canonicalJson, with `omitNull` as there). */
export const canonicalDigest = (v: unknown, omitNull = false): string =>
  createHash('sha256').update(canonicalJson(v, omitNull)).digest('hex');
