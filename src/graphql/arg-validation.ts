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
 * At most MEMO_ENTRIES per class (then forgotten all at once and learnt again: no bookkeeping per hit).
 */
const MEMO_ENTRIES = 1000;
const MAX_MEMO_KEY = 512;
const passed = new WeakMap<Function, Set<string>>();

/** The memo key of a flat object (each own key, the type and the value of its primitive value), or null when it is not flat. */
function flatKey(value: object, keys: readonly string[]): string | null {
  let key = '';
  for (const k of keys) {
    const v = (value as Record<string, unknown>)[k];
    const t = typeof v;
    if (v !== null && t !== 'string' && t !== 'number' && t !== 'boolean' && t !== 'undefined') return null;
    key += `${k}\u0000${t}\u0000${String(v)}\u0000`;
    if (key.length > MAX_MEMO_KEY) return null;
  }
  return key;
}

/** Checks one argument object; a remembered pass returns at once, with no promise made (the common case). */
function validateObject(value: object, type: Function): Promise<void> | undefined {
  const keys = Object.keys(value);
  const key = flatKey(value, keys);
  const memo = key === null ? undefined : passed.get(type);
  if (key !== null && memo?.has(key)) return undefined;
  return validate(value, OPTIONS).then((errors) => {
    if (errors.length > 0) throw new ArgumentValidationError(errors);
    // remembered only when nothing was stripped: a hit must leave the object as a run would
    if (key !== null && Object.keys(value).length === keys.length) {
      if (!memo) passed.set(type, new Set([key]));
      else {
        if (memo.size >= MEMO_ENTRIES) memo.clear();
        memo.add(key);
      }
    }
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
