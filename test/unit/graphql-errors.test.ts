import 'reflect-metadata';
import { GraphQLError } from 'graphql';
import { IsEmail, IsIn, Length, ValidateNested } from 'class-validator';
import pino from 'pino';
import { isDatabaseUnavailable } from '../../src/db/db.errors';
import { fieldProblems, InputValidationError, validateArguments } from '../../src/graphql/arg-validation';
import { createErrorFormatter, stripEchoedValues, variableProblem } from '../../src/graphql/errors';
import { AppError, badField, notFound } from '../../src/shared/errors';
import { CATALOGS } from '../../src/shared/messages';

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

class Contact {
  @Length(2, 5, { message: 'name must be 2 to 5 characters' })
  name!: string;
  @IsEmail({}, { message: 'email must be an email address' })
  email!: string;
}
class Form {
  @IsIn(['A', 'B'], { message: 'kind must be A or B' })
  kind!: string;
  @ValidateNested()
  contact!: Contact;
}
const form = (kind: string, contact: Partial<Contact>) =>
  Object.assign(new Form(), { kind, contact: Object.assign(new Contact(), contact) });
const refusal = async (value: object): Promise<InputValidationError> => {
  try {
    await validateArguments(value, Form, undefined as never);
  } catch (e) {
    return e as InputValidationError;
  }
  throw new Error('not refused');
};

describe('field problems of class-validator refusals', () => {
  it('one per field: its path, a code judged on the value, the developer message — never target or value', async () => {
    const e = await refusal(form('C', { name: 'much too long', email: 'not-an-email' }));
    expect(e).toBeInstanceOf(InputValidationError);
    expect(e.fields).toEqual([
      { path: 'kind', code: 'INVALID_CHOICE', detail: 'kind must be A or B' },
      { path: 'contact.name', code: 'TOO_LONG', detail: 'name must be 2 to 5 characters' },
      { path: 'contact.email', code: 'INVALID_FORMAT', detail: 'email must be an email address' },
    ]);
    expect(JSON.stringify(e.fields)).not.toContain('not-an-email');
    expect((await refusal(form('A', { name: 'x', email: 'a@b.co' }))).fields).toEqual([
      { path: 'contact.name', code: 'TOO_SHORT', detail: 'name must be 2 to 5 characters' },
    ]);
    expect((await refusal(form('A', { name: '', email: 'a@b.co' }))).fields[0]!.code).toBe('REQUIRED');
  });

  it('without the values (an ArgumentValidationError not of ours): the constraint alone decides', () => {
    expect(
      fieldProblems(
        [{ property: 'input', children: [{ property: 'email', constraints: { isEmail: 'email must be an email' } }] }],
        undefined,
        '',
      ),
    ).toEqual([{ path: 'input.email', code: 'INVALID_FORMAT', detail: 'email must be an email' }]);
  });
});

describe('the error formatter speaks the language asked for', () => {
  const format = createErrorFormatter(pino({ level: 'silent' }));
  const located = (originalError: Error) => new GraphQLError(originalError.message, { path: ['x'], originalError });

  it("an AppError: the code's customer message, the developer message in extensions.detail, the code untouched", () => {
    for (const language of ['en', 'es', 'pt'] as const) {
      const out = format({ message: 'Quote not found', path: ['x'] }, located(notFound('Quote')), language);
      expect(out).toEqual({
        path: ['x'],
        message: CATALOGS[language].errors.NOT_FOUND,
        extensions: { code: 'NOT_FOUND', detail: 'Quote not found' },
      });
    }
    expect(format({ message: 'x' }, located(notFound('Quote'))).message).toBe(CATALOGS.en.errors.NOT_FOUND);
  });

  it('field problems become extensions.fields with localized messages; other details stay where they are', () => {
    const error = badField('input.sourceAmount', 'BELOW_MINIMUM', 'sourceAmount must be at least 10.00 USD', {
      minAmount: { amount: '10.00', currency: 'USD' },
    });
    const out = format({ message: error.message }, located(error), 'pt');
    expect(out.message).toBe(CATALOGS.pt.errors.BAD_USER_INPUT);
    expect(out.extensions).toEqual({
      code: 'BAD_USER_INPUT',
      detail: 'sourceAmount must be at least 10.00 USD',
      minAmount: { amount: '10.00', currency: 'USD' },
      fields: [{ path: 'input.sourceAmount', code: 'BELOW_MINIMUM', message: CATALOGS.pt.fields.BELOW_MINIMUM }],
    });
  });

  it('class-validator refusals: the same shape', async () => {
    const e = await refusal(form('C', { name: 'ok', email: 'a@b.co' }));
    const out = format({ message: e.message }, located(e), 'es');
    expect(out.message).toBe(CATALOGS.es.errors.BAD_USER_INPUT);
    expect(out.extensions).toEqual({
      code: 'BAD_USER_INPUT',
      detail: 'Invalid input: kind must be A or B',
      fields: [{ path: 'kind', code: 'INVALID_CHOICE', message: CATALOGS.es.fields.INVALID_CHOICE }],
    });
  });

  it("a variable's value graphql-js refused: its path and code, nothing of the value", () => {
    const message =
      'Variable "$input" got invalid value { amount: "PII 1e5" } at "input.amount"; Expected type "Decimal". Decimal must look like "100.10"';
    const out = format(
      { message, extensions: { code: 'BAD_USER_INPUT' } },
      new GraphQLError(message, { extensions: { code: 'BAD_USER_INPUT' } }),
      'es',
    );
    expect(out.extensions).toMatchObject({
      code: 'BAD_USER_INPUT',
      fields: [{ path: 'input.amount', code: 'INVALID_FORMAT', message: CATALOGS.es.fields.INVALID_FORMAT }],
    });
    expect(JSON.stringify(out)).not.toContain('PII');
  });

  it('an unexpected error: INTERNAL_SERVER_ERROR in the language asked for', () => {
    const out = format({ message: 'boom' }, located(new TypeError('boom')), 'pt');
    expect(out).toMatchObject({ message: CATALOGS.pt.errors.INTERNAL_SERVER_ERROR, extensions: { code: 'INTERNAL_SERVER_ERROR' } });
    expect(JSON.stringify(out)).not.toContain('boom');
  });

  it('an AppError code keeps its own message table entry (every AppError code)', () => {
    const e = new AppError('QUOTE_EXPIRED', 'The quote has expired; get a new quote');
    expect(format({ message: e.message }, located(e), 'es')).toMatchObject({
      message: CATALOGS.es.errors.QUOTE_EXPIRED,
      extensions: { code: 'QUOTE_EXPIRED', detail: 'The quote has expired; get a new quote' },
    });
  });
});

describe('variableProblem', () => {
  it.each([
    ['Variable "$input" of required type "CreateQuoteInput!" was not provided.', { path: 'input', code: 'REQUIRED' }],
    ['Variable "$id" of non-null type "ID!" must not be null.', { path: 'id', code: 'REQUIRED' }],
    [
      'Variable "$input" got invalid value { a: 1 } at "input.recipient.customer"; Field "firstName" of required type "String!" was not provided.',
      { path: 'input.recipient.customer.firstName', code: 'REQUIRED' },
    ],
    [
      'Variable "$input" got invalid value null at "input.items[2].name"; Expected non-nullable type "String!" not to be null.',
      { path: 'input.items.2.name', code: 'REQUIRED' },
    ],
    [
      'Variable "$input" got invalid value "X" at "input.type"; Value "X" does not exist in "FundingType" enum.',
      { path: 'input.type', code: 'INVALID_CHOICE' },
    ],
    ['Variable "$n" got invalid value "a"; Int cannot represent non-integer value: "a"', { path: 'n', code: 'INVALID_FORMAT' }],
    // a field the client made up: its name is not repeated as a path
    ['Variable "$input" got invalid value { zz: 1 }; Field "zz" is not defined by type "CreateQuoteInput".', null],
    ['Cannot query field "x" on type "Query".', null],
  ])('%s', (message, problem) => {
    expect(variableProblem(message)).toEqual(problem);
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
