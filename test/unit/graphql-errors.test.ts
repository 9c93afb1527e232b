import { flattenValidationErrors, stripEchoedValues } from '../../src/graphql/errors';

describe('stripEchoedValues', () => {
  it('drops the echoed variable value but keeps the path and reason', () => {
    const msg =
      'Variable "$input" got invalid value { card: "4111-1111; secret", amount: "1e5" } at "input.amount"; Decimal must look like "100.10" (no exponent, at most 8 decimals)';
    const out = stripEchoedValues(msg);
    expect(out).toBe(
      'Variable "$input" got an invalid value at "input.amount": Decimal must look like "100.10" (no exponent, at most 8 decimals)',
    );
    expect(out).not.toContain('4111');
  });

  it('drops values from built-in scalar reasons', () => {
    const out = stripEchoedValues('Variable "$n" got invalid value "PII-123"; Int cannot represent non-integer value: "PII-123"');
    expect(out).not.toContain('PII-123');
    expect(out).toContain('Int cannot represent non-integer value');
  });

  it('drops "found" literals from argument validation messages', () => {
    const out = stripEchoedValues('Expected value of type "Decimal!", found "my secret"; Decimal must be a string');
    expect(out).toBe('Expected value of type "Decimal!"; Decimal must be a string');
  });
});

describe('flattenValidationErrors', () => {
  it('keeps property paths and constraint names, never target or value', () => {
    const out = flattenValidationErrors([
      {
        property: 'input',
        target: { secret: 'x' },
        value: { secret: 'x' },
        children: [{ property: 'email', value: 'not-an-email', constraints: { isEmail: 'email must be an email' }, children: [] }],
      },
    ]);
    expect(out).toEqual([{ path: 'input.email', constraints: { isEmail: 'email must be an email' } }]);
    expect(JSON.stringify(out)).not.toContain('not-an-email');
  });
});
