import { getMetadataStorage as validationMetadata, validate, type ValidationError, type ValidatorOptions } from 'class-validator';
import { getNamedType, type GraphQLResolveInfo } from 'graphql';
import { ArgumentValidationError, getMetadataStorage, type ValidatorFn } from 'type-graphql';
import type { FieldErrorCode, FieldProblem } from '../shared/errors';

/**
 * class-validator's options for every argument object (TypeGraphQL's own defaults applied: missing properties are
 * the GraphQL types' business, so they are skipped). Unknown objects are refused and properties without a
 * decorator stripped.
 */
const OPTIONS: ValidatorOptions = {
  forbidUnknownValues: true,
  whitelist: true,
  forbidNonWhitelisted: false,
  skipMissingProperties: true,
  validationError: { target: false, value: false },
};

/**
 * Flat argument objects (only primitive values) known to pass, per class: `first: 20` is checked once, not per request.
 * Kept as a tree — per property in the object's order, a Map from its name to a Map from its value to the next level,
 * PASSED where an object ends — so a lookup builds no key and allocates nothing; values compare as Map keys do (20 is
 * not '20'). At most MEMO_ENTRIES objects per class (then forgotten all at once and learnt again: no bookkeeping per
 * hit), none whose property names and string values are longer than MAX_MEMO_TEXT in all.
 */
const MEMO_ENTRIES = 1000;
const MAX_MEMO_TEXT = 512;
const PASSED = Symbol('passed');
type Level = Map<unknown, unknown>;
interface Memo {
  root: Level;
  size: number;
}
const passed = new WeakMap<Function, Memo>();

/** Whether this exact flat object was remembered (an object value is never a key of the tree: a miss). */
function remembered(memo: Memo, value: Record<string, unknown>, keys: readonly string[]): boolean {
  let level: Level | undefined = memo.root;
  for (let i = 0; i < keys.length && level !== undefined; i++) {
    const byValue = level.get(keys[i]) as Level | undefined;
    level = byValue?.get(value[keys[i]!]) as Level | undefined;
  }
  return level !== undefined && level.has(PASSED);
}

/** Only primitive values, and not too much text: what the memo may hold. */
function isFlat(value: Record<string, unknown>, keys: readonly string[]): boolean {
  let text = 0;
  for (const k of keys) {
    const v = value[k];
    const t = typeof v;
    if (t === 'string') text += (v as string).length;
    else if (v !== null && t !== 'number' && t !== 'boolean' && t !== 'undefined') return false;
    text += k.length;
  }
  return text <= MAX_MEMO_TEXT;
}

function remember(type: Function, value: Record<string, unknown>, keys: readonly string[]): void {
  let memo = passed.get(type);
  if (!memo) passed.set(type, (memo = { root: new Map(), size: 0 }));
  else if (memo.size >= MEMO_ENTRIES) {
    memo.root = new Map();
    memo.size = 0;
  }
  let level = memo.root;
  for (const k of keys) {
    let byValue = level.get(k) as Level | undefined;
    if (!byValue) level.set(k, (byValue = new Map()));
    let next = byValue.get(value[k]) as Level | undefined;
    if (!next) byValue.set(value[k], (next = new Map()));
    level = next;
  }
  if (!level.has(PASSED)) {
    level.set(PASSED, true);
    memo.size++;
  }
}

/** Checks one argument object; a remembered pass returns at once, with no promise made (the common case). */
function validateObject(value: object, type: Function, path: () => string): Promise<void> | undefined {
  const fields = value as Record<string, unknown>;
  const keys = Object.keys(value);
  const memo = passed.get(type);
  if (memo !== undefined && remembered(memo, fields, keys)) return undefined;
  return validate(value, OPTIONS).then((errors) => {
    if (errors.length > 0) throw new InputValidationError(errors, fieldProblems(errors, value, path()));
    // remembered only when nothing was stripped: a hit must leave the object as a run would
    if (Object.keys(value).length === keys.length && isFlat(fields, keys)) remember(type, fields, keys);
  });
}

/**
 * TypeGraphQL's `validateFn`: class-validator over the argument objects of TypeGraphQL's own input and args classes
 * (what TypeGraphQL's built-in validation does, imported once instead of on every call), with successful checks of
 * flat objects remembered. Scalars — strings, numbers, Dates, JSON objects — are left to their scalar's parsing: a
 * `validateFn` is not told an argument's `validate: false`, so the built-in types a scalar parses to are skipped here
 * (a Date is an instance of its argument's type, yet class-validator has nothing to check on it and would refuse it as
 * an unknown value).
 */
const SCALAR_TYPES: ReadonlySet<Function> = new Set<Function>([Date, Object, String, Number, Boolean, Array]);

export const validateArguments: ValidatorFn = (value, type, resolverData) => {
  if (typeof type !== 'function' || SCALAR_TYPES.has(type) || value === null || typeof value !== 'object') return;
  const info = (resolverData as { info?: GraphQLResolveInfo } | undefined)?.info;
  if (Array.isArray(value)) {
    const checks = value.flatMap((v, i) =>
      v instanceof type ? [validateObject(v, type, () => join(argumentName(type, info), String(i)))] : [],
    );
    return checks.length === 0 ? undefined : Promise.all(checks).then(() => undefined);
  }
  if (value instanceof type) return validateObject(value, type, () => argumentName(type, info));
};

/**
 * class-validator's refusal of an argument object (TypeGraphQL's ArgumentValidationError), with what is wrong with
 * each field worked out while the values are at hand: the error formatter answers `extensions.fields` from `fields`.
 */
export class InputValidationError extends ArgumentValidationError {
  constructor(
    errors: ValidationError[],
    readonly fields: readonly FieldValidationProblem[],
  ) {
    super(errors);
  }
}

/** A field's problem, with class-validator's message (the developer's detail, never the value). */
interface FieldValidationProblem extends FieldProblem {
  detail: string;
}

const join = (prefix: string, name: string) => (prefix ? `${prefix}.${name}` : name);

/**
 * The argument a checked object is the value of, for the paths of its fields: "" for an @Args() class (its fields
 * are the arguments themselves), else the one argument of the field whose type is the object's input type ("" when
 * none or several are).
 */
function argumentName(type: Function, info: GraphQLResolveInfo | undefined): string {
  if (!info) return '';
  const metadata = getMetadataStorage();
  if (metadata.argumentTypes.some((t) => t.target === type)) return '';
  const name = metadata.inputTypes.find((t) => t.target === type)?.name;
  const args = info.parentType.getFields()[info.fieldName]?.args.filter((a) => getNamedType(a.type).name === name) ?? [];
  return args.length === 1 ? args[0]!.name : '';
}

/**
 * Each field class-validator refused, once (its first constraint), with its path from the argument on; `holder` is the
 * object checked (undefined: the values are not known, and a length is judged INVALID).
 */
export function fieldProblems(
  errors: readonly ValidationError[],
  holder: unknown,
  prefix: string,
  out: FieldValidationProblem[] = [],
): FieldValidationProblem[] {
  for (const e of errors) {
    const path = e.property === '' ? prefix : join(prefix, e.property);
    const value = holder !== null && typeof holder === 'object' ? (holder as Record<string, unknown>)[e.property] : undefined;
    const first = e.constraints ? Object.entries(e.constraints)[0] : undefined;
    if (first) out.push({ path, code: fieldCode(first[0], value, holder, e.property), detail: first[1] });
    if (e.children?.length) fieldProblems(e.children, value, path, out);
  }
  return out;
}

/** class-validator constraints that say a value is not in its expected form. */
const FORMAT_CONSTRAINTS = new Set([
  'matches',
  'isEmail',
  'isUUID',
  'isUrl',
  'isISO31661Alpha2',
  'isISO4217CurrencyCode',
  'isString',
  'isInt',
  'isNumber',
  'isBoolean',
  'isObject',
  'isDate',
  'isDateString',
  'isISO8601',
  'isDecimal',
]);

/** The field error code of a class-validator constraint (its name), judged on the value where it takes the value. */
function fieldCode(constraint: string, value: unknown, holder: unknown, property: string): FieldErrorCode {
  switch (constraint) {
    case 'isDefined':
    case 'isNotEmpty':
    case 'arrayNotEmpty':
      return 'REQUIRED';
    case 'isLength':
    case 'minLength':
    case 'maxLength':
      return lengthCode(constraint, value, holder, property);
    case 'arrayMinSize':
      return Array.isArray(value) && value.length === 0 ? 'REQUIRED' : 'TOO_FEW_ITEMS';
    case 'arrayMaxSize':
      return 'TOO_MANY_ITEMS';
    case 'min':
    case 'max':
    case 'isPositive':
    case 'minDate':
    case 'maxDate':
      return 'OUT_OF_RANGE';
    case 'isIn':
    case 'isEnum':
      return 'INVALID_CHOICE';
    default:
      return FORMAT_CONSTRAINTS.has(constraint) ? 'INVALID_FORMAT' : 'INVALID';
  }
}

/**
 * Empty → REQUIRED; else TOO_SHORT or TOO_LONG by the constraint's bounds (class-validator's metadata of the holder's
 * class). A list checked item by item (`each`) is judged on its first item out of bounds.
 */
function lengthCode(constraint: string, value: unknown, holder: unknown, property: string): FieldErrorCode {
  if (constraint === 'maxLength') return 'TOO_LONG';
  if (value === undefined) return 'INVALID';
  const texts = (Array.isArray(value) ? value : [value]).filter((v): v is string => typeof v === 'string');
  if (texts.length === 0) return 'INVALID_FORMAT';
  if (constraint === 'minLength') return texts.some((t) => t === '') ? 'REQUIRED' : 'TOO_SHORT';
  const target = holder !== null && typeof holder === 'object' ? holder.constructor : undefined;
  const bounds = target
    ? validationMetadata()
        .getTargetValidationMetadatas(target, '', true, false)
        .find((m) => m.propertyName === property && m.name === 'isLength')?.constraints
    : undefined;
  const [min, max] = (bounds ?? []) as [number | undefined, number | undefined];
  for (const t of texts) {
    const length = [...t].length; // as class-validator counts: a surrogate pair is one character
    if (length === 0 && (min ?? 0) > 0) return 'REQUIRED';
    if (min !== undefined && length < min) return 'TOO_SHORT';
    if (max !== undefined && length > max) return 'TOO_LONG';
  }
  return 'INVALID';
}
