import { validate, type ValidatorOptions } from 'class-validator';
import { ArgumentValidationError, type ValidatorFn } from 'type-graphql';

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
function validateObject(value: object, type: Function): Promise<void> | undefined {
  const fields = value as Record<string, unknown>;
  const keys = Object.keys(value);
  const memo = passed.get(type);
  if (memo !== undefined && remembered(memo, fields, keys)) return undefined;
  return validate(value, OPTIONS).then((errors) => {
    if (errors.length > 0) throw new ArgumentValidationError(errors);
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

export const validateArguments: ValidatorFn = (value, type) => {
  if (typeof type !== 'function' || SCALAR_TYPES.has(type) || value === null || typeof value !== 'object') return;
  if (Array.isArray(value)) {
    const items = value.filter((v): v is object => v instanceof type);
    return items.length === 0 ? undefined : Promise.all(items.map((v) => validateObject(v, type))).then(() => undefined);
  }
  if (value instanceof type) return validateObject(value, type);
};
