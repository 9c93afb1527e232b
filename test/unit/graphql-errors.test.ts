import { GraphQLError } from 'graphql';
import pino from 'pino';
import { isDatabaseUnavailable } from '../../src/db/db.errors';
import { createErrorFormatter, flattenValidationErrors, stripEchoedValues } from '../../src/graphql/errors';

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

describe('the database out of reach, however it is wrapped', () => {
  const logger = pino({ level: 'silent' });
  const format = createErrorFormatter(logger);
  const p1017 = Object.assign(new Error('Server has closed the connection.'), { code: 'P1017' });
  it.each([
    ['as it is', p1017],
    ['in a located error (a resolver threw it)', new GraphQLError('x', { path: ['transfer'], originalError: p1017 })],
    // graphql-ws hands a subscription's stream error wrapped, without a path
    [
      'in a GraphQLError without a path (a subscription cut)',
      new GraphQLError('Server has closed the connection.', { originalError: p1017 }),
    ],
    ['as the cause of another error', new Error('stream ended', { cause: p1017 })],
    ['in a GraphQLError around an error caused by it', new GraphQLError('x', { originalError: new Error('y', { cause: p1017 }) })],
  ])('%s → SERVICE_UNAVAILABLE', (_label, error) => {
    const out = format({ message: (error as Error).message }, error);
    expect(out.extensions?.code).toBe('SERVICE_UNAVAILABLE');
    expect(isDatabaseUnavailable(error)).toBe(true);
  });
  it('a bug wrapped the same way is not', () => {
    expect(isDatabaseUnavailable(new GraphQLError('x', { originalError: new TypeError('undefined is not a function') }))).toBe(false);
  });
});
