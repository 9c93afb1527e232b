import { createHash } from 'node:crypto';

/**
 * One JSON text per value, whatever order its object keys came in: keys sorted, otherwise as `JSON.stringify` writes
 * it (a value's `toJSON()` taken once; `undefined`, function and symbol members left out). For comparing and hashing
 * JSON values — request arguments, event payloads, what an app was shown. `omitNull`: null members are left out too,
 * at any depth (array items stay as they are) — for a GraphQL request, a nullable argument given as null is the same
 * request as one that leaves it out.
 */
export function canonicalJson(v: unknown, omitNull = false): string {
  return write(jsonValue(v), omitNull);
}

/** What JSON.stringify writes for a value: its `toJSON()` once (a Date's ISO text, a Decimal's digits), else itself. */
function jsonValue(v: unknown): unknown {
  if (v !== null && typeof v === 'object') {
    const toJSON = (v as { toJSON?: unknown }).toJSON;
    if (typeof toJSON === 'function') return toJSON.call(v) as unknown;
  }
  return v;
}

// built as one string (no entry pairs, filtered and mapped arrays, joins): event payloads and request arguments are
// written on every webhook and every idempotent request
function write(v: unknown, omitNull: boolean): string {
  // a function or a symbol is no JSON value: null where it stands, as an array item (JSON.stringify writes it so)
  if (v === null || typeof v !== 'object') return (JSON.stringify(v) as string | undefined) ?? 'null';
  let out: string;
  if (Array.isArray(v)) {
    out = '[';
    for (let i = 0; i < v.length; i++) out += (i === 0 ? '' : ',') + write(jsonValue(v[i]), omitNull);
    return `${out}]`;
  }
  const o = v as Record<string, unknown>;
  const keys = Object.keys(o).sort(); // code-unit order, as `<` compares
  out = '{';
  for (const k of keys) {
    const x = jsonValue(o[k]);
    // left out as JSON.stringify leaves them out: undefined, functions and symbols (and null with omitNull)
    if (x === undefined || typeof x === 'function' || typeof x === 'symbol' || (omitNull && x === null)) continue;
    out += (out.length === 1 ? '' : ',') + JSON.stringify(k) + ':' + write(x, omitNull);
  }
  return `${out}}`;
}

/** sha256 (hex) of a value's canonical JSON (canonicalJson, with `omitNull` as there). */
export const canonicalDigest = (v: unknown, omitNull = false): string =>
  createHash('sha256').update(canonicalJson(v, omitNull)).digest('hex');
