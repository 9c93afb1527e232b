import { Kind } from 'graphql';
import { DateTimeScalar, DecimalScalar } from '../../src/graphql/scalars';

describe('Decimal scalar', () => {
  it.each(['0', '100', '100.10', '-3.5', '12345678901234.12345678'])('accepts %s exactly', (v) => {
    expect(DecimalScalar.parseValue(v)).toBe(v);
    expect(DecimalScalar.serialize(v)).toBe(v);
  });
  it('serializes up to 20 integer digits, but accepts at most 14 as input (what the money columns store)', () => {
    expect(DecimalScalar.serialize('12345678901234567890.12345678')).toBe('12345678901234567890.12345678');
    expect(() => DecimalScalar.parseValue('123456789012345')).toThrow(/at most 14 integer digits/);
  });
  it.each([100.1, '1e5', '01.0', '1.', '.5', '1.123456789', 'abc', '', ' 1', '12345678901234567890'])(
    'refuses %p without echoing it',
    (v) => {
      expect(() => DecimalScalar.parseValue(v)).toThrow(/^Decimal must/);
      try {
        DecimalScalar.parseValue(v);
      } catch (e) {
        if (typeof v === 'string' && v.length > 2) expect((e as Error).message).not.toContain(v);
      }
    },
  );
  it('refuses numeric literals (floats) in queries', () => {
    expect(() => DecimalScalar.parseLiteral({ kind: Kind.FLOAT, value: '1.5' })).toThrow();
    expect(DecimalScalar.parseLiteral({ kind: Kind.STRING, value: '1.50' })).toBe('1.50');
  });
});

describe('DateTime scalar', () => {
  it('serializes to UTC ISO 8601', () => {
    expect(DateTimeScalar.serialize(new Date('2026-11-21T10:00:00+02:00'))).toBe('2026-11-21T08:00:00.000Z');
  });
  it('parses ISO 8601 with a zone and refuses the rest', () => {
    expect((DateTimeScalar.parseValue('2026-11-21T10:00:00Z') as Date).toISOString()).toBe('2026-11-21T10:00:00.000Z');
    expect(() => DateTimeScalar.parseValue('2026-11-21')).toThrow();
    expect(() => DateTimeScalar.parseValue('2026-11-21T10:00:00')).toThrow();
    expect(() => DateTimeScalar.parseValue(1700000000)).toThrow();
  });
});
