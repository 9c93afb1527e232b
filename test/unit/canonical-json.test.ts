import fc from 'fast-check';
import { Prisma } from '../../src/generated/prisma/client';
import { canonicalDigest, canonicalJson } from '../../src/shared/json';

/**
 * What canonical JSON means, written the plain way: JSON.stringify of each leaf, objects' members sorted by key (written
 * out here: an object built in sorted order would put integer-like keys first again).
 */
function reference(v: unknown, omitNull: boolean): string {
  if (v === null || typeof v !== 'object') return JSON.stringify(v ?? null);
  if (Array.isArray(v)) return `[${v.map((x) => reference(x, omitNull)).join(',')}]`;
  const members = Object.entries(v as Record<string, unknown>)
    .filter(([, x]) => x !== undefined && !(omitNull && x === null))
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([k, x]) => `${JSON.stringify(k)}:${reference(x, omitNull)}`);
  return `{${members.join(',')}}`;
}

const jsonish = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: 'small' },
    fc.constantFrom(null, undefined, true, false, 0, -1.5, 1e21),
    fc.string(),
    fc.integer(),
    fc.array(tie('value'), { maxLength: 4 }),
    fc.dictionary(fc.string({ maxLength: 6 }), tie('value'), { maxKeys: 5 }),
  ),
})).value;

test('any JSON value: its members sorted by key, each written as JSON.stringify writes it, with and without null members', () => {
  fc.assert(
    fc.property(jsonish, fc.boolean(), (v, omitNull) => {
      expect(canonicalJson(v, omitNull)).toBe(reference(v, omitNull));
      // and it is JSON: without omitNull it reads back as JSON.stringify's text of the value does
      if (!omitNull) expect(JSON.parse(canonicalJson(v))).toEqual(JSON.parse(JSON.stringify(v ?? null)));
    }),
    { numRuns: 500 },
  );
});

test('key order does not matter, at any depth', () => {
  fc.assert(
    fc.property(
      fc.dictionary(fc.string({ maxLength: 6 }), fc.oneof(fc.integer(), fc.dictionary(fc.string({ maxLength: 3 }), fc.string()))),
      (o) => {
        const reversed = (x: Record<string, unknown>): Record<string, unknown> =>
          Object.fromEntries(
            Object.entries(x)
              .reverse()
              .map(([k, y]) => [k, y !== null && typeof y === 'object' ? reversed(y as Record<string, unknown>) : y]),
          );
        expect(canonicalJson(reversed(o))).toBe(canonicalJson(o));
      },
    ),
  );
});

test('undefined members are left out; null members only with omitNull, never array items', () => {
  expect(canonicalJson({ b: 1, a: { d: [1, { y: 2, x: 1 }], c: undefined } })).toBe('{"a":{"d":[1,{"x":1,"y":2}]},"b":1}');
  expect(canonicalJson({ a: null, b: [null, undefined] })).toBe('{"a":null,"b":[null,null]}');
  expect(canonicalJson({ a: null, b: [null], c: { d: null } }, true)).toBe('{"b":[null],"c":{}}');
  expect(canonicalJson(undefined)).toBe('null');
  // integer-like keys sort as text, not first as an object's own order puts them
  expect(canonicalJson({ 9: 1, 10: 2, b: 3, a: 4 })).toBe('{"10":2,"9":1,"a":4,"b":3}');
});

test('a Date or a Decimal is written as JSON.stringify writes it: two instants never hash alike', () => {
  const a = new Date('2026-01-01T00:00:00Z');
  const b = new Date('2026-06-01T00:00:00Z');
  expect(canonicalJson({ at: a })).toBe('{"at":"2026-01-01T00:00:00.000Z"}');
  expect(canonicalDigest({ at: a })).not.toBe(canonicalDigest({ at: b }));
  expect(canonicalJson({ amount: new Prisma.Decimal('10.50') })).toBe(JSON.stringify({ amount: new Prisma.Decimal('10.50') }));
  expect(canonicalDigest({ amount: new Prisma.Decimal('10.5') })).not.toBe(canonicalDigest({ amount: new Prisma.Decimal('11') }));
});

test('toJSON is taken once per value, as JSON.stringify takes it, before members are left out', () => {
  // an invalid Date's JSON is null: left out with omitNull, at any depth
  expect(canonicalJson({ a: { at: new Date(Number.NaN) }, b: 1 }, true)).toBe('{"a":{},"b":1}');
  // a toJSON giving undefined leaves its member out, as JSON.stringify does
  expect(canonicalJson({ a: { toJSON: () => undefined }, b: 1 })).toBe(JSON.stringify({ a: { toJSON: () => undefined }, b: 1 }));
  // a toJSON whose result has a toJSON of its own is not applied again (nor forever)
  const nested = {
    z: 1,
    toJSON(): unknown {
      return { y: 2, toJSON: () => 'again' };
    },
  };
  expect(JSON.parse(canonicalJson({ n: nested }))).toEqual(JSON.parse(JSON.stringify({ n: nested })));
});
