/**
 * The argument validator given to TypeGraphQL: class-validator over input and args objects, scalars left to their
 * scalar's parsing, a success remembered only for flat objects and never a failure.
 */
import { IsObject, IsOptional, IsString } from 'class-validator';
import { ArgumentValidationError } from 'type-graphql';
import { validateArguments } from '../../src/graphql/arg-validation';
import { PageArgs } from '../../src/graphql/relay';

const run = (value: unknown, type: unknown) => validateArguments(value, type as never, undefined as never);
const page = (fields: Partial<PageArgs> & Record<string, unknown>) => Object.assign(new PageArgs(), fields);

test('a Date (a DateTime argument parsed) is a scalar: not refused as an unknown object', async () => {
  await expect(Promise.resolve(run(new Date(), Date))).resolves.toBeUndefined();
  await expect(Promise.resolve(run({ any: 'json' }, Object))).resolves.toBeUndefined();
  await expect(Promise.resolve(run('text', String))).resolves.toBeUndefined();
});

test('an args object is checked: out of range is an ArgumentValidationError, every time (a failure is never remembered)', async () => {
  for (let i = 0; i < 2; i++) await expect(run(page({ first: 500 }), PageArgs)).rejects.toBeInstanceOf(ArgumentValidationError);
  await expect(run(page({ first: 20 }), PageArgs)).resolves.toBeUndefined();
  // the same flat object passes again from the memo — at once, no promise made — and a different one is still checked
  expect(run(page({ first: 20 }), PageArgs)).toBeUndefined();
  await expect(run(page({ first: 0 }), PageArgs)).rejects.toBeInstanceOf(ArgumentValidationError);
});

test('undecorated properties are stripped, also when the same object was seen before', async () => {
  for (let i = 0; i < 2; i++) {
    const args = page({ first: 5, sneaky: 'x' });
    await run(args, PageArgs);
    expect(args).not.toHaveProperty('sneaky');
    expect(args.first).toBe(5);
  }
});

test('lists: each item of the argument class is checked', async () => {
  await expect(run([page({ first: 1 }), page({ first: 101 })], PageArgs)).rejects.toBeInstanceOf(ArgumentValidationError);
  await expect(Promise.resolve(run([page({ first: 1 })], PageArgs))).resolves.toBeUndefined();
});

test('the memo knows exact objects only: the same text of another type, one property more or fewer, is checked', async () => {
  await expect(run(page({ first: 7, after: 'c' }), PageArgs)).resolves.toBeUndefined();
  expect(run(page({ first: 7, after: 'c' }), PageArgs)).toBeUndefined();
  // '7' is not 7: class-validator refuses it, every time
  for (let i = 0; i < 2; i++)
    await expect(run(page({ first: '7' as never, after: 'c' }), PageArgs)).rejects.toBeInstanceOf(ArgumentValidationError);
  // a prefix or an extension of a remembered object is not remembered
  expect(run(page({ first: 7 }), PageArgs)).toBeInstanceOf(Promise);
  const longer = page({ first: 7, after: 'c', sneaky: 'x' });
  expect(run(longer, PageArgs)).toBeInstanceOf(Promise);
  // the values of one property do not stand for another's: after: 7 is not first: 7
  for (let i = 0; i < 2; i++) await expect(run(page({ after: 7 as never }), PageArgs)).rejects.toBeInstanceOf(ArgumentValidationError);
});

class Note {
  @IsString()
  text!: string;

  @IsOptional()
  @IsObject()
  meta?: object;
}
const note = (fields: Partial<Note>) => Object.assign(new Note(), fields);

test('an object with an object value or too much text is checked every time (and still passes), a short flat one once', async () => {
  for (const fields of [{ text: 'x'.repeat(600) }, { text: 'short', meta: { any: 1 } }])
    for (let i = 0; i < 2; i++) {
      const r = run(note(fields), Note);
      expect(r).toBeInstanceOf(Promise);
      await expect(r).resolves.toBeUndefined();
    }
  await run(note({ text: 'short' }), Note);
  expect(run(note({ text: 'short' }), Note)).toBeUndefined();
});
