import { randomBytes } from 'node:crypto';
import { AppError } from '../../shared/errors';

/**
 * Money on the wire.
 *
 * The upstream APIs carry amounts and rates as JSON numbers. Callers hand the clients amounts as
 * decimal strings ("100.10"); the clients write that exact digit sequence as the JSON number literal
 * (`"total":100.10`) — no `Number(...)`, no float rounding, whatever the precision. Amounts in responses
 * are passed through as the JS numbers JSON.parse produced; no client does arithmetic on them.
 */
export type DecimalString = string;

const DECIMAL = /^-?(0|[1-9]\d*)(\.\d+)?$/;

export function isDecimalString(s: unknown): s is DecimalString {
  return typeof s === 'string' && DECIMAL.test(s);
}

/** A JSON number written verbatim from a validated decimal string. */
class JsonDecimal {
  constructor(readonly literal: string) {
    // A caller bug or bad input, never sent upstream; the value is not echoed.
    if (!isDecimalString(literal)) throw new AppError('BAD_USER_INPUT', 'An amount is not a decimal string (e.g. "100.10")');
  }
}

export const jsonDecimal = (s: DecimalString): JsonDecimal => new JsonDecimal(s);
/** Optional variant: undefined stays undefined (so the key is omitted). */
export const jsonDecimalOpt = (s: DecimalString | undefined): JsonDecimal | undefined => (s === undefined ? undefined : new JsonDecimal(s));

/** JSON.stringify, except that JsonDecimal values are written as bare number literals. */
export function stringifyJson(value: unknown): string {
  const nonce = randomBytes(6).toString('hex');
  const literals: string[] = [];
  const text = JSON.stringify(value, (_k, v: unknown) => {
    if (v instanceof JsonDecimal) {
      literals.push(v.literal);
      return `\u0000${nonce}:${literals.length - 1}\u0000`;
    }
    return v;
  });
  if (literals.length === 0) return text;
  // JSON.stringify escapes U+0000 as \u0000, so the marker cannot collide with user text.
  return text.replace(new RegExp(`"\\\\u0000${nonce}:(\\d+)\\\\u0000"`, 'g'), (_m, i: string) => literals[Number(i)]);
}
