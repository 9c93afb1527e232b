import { GraphQLScalarType, Kind } from 'graphql';
import { inStoredRange } from '../shared/clock';

/**
 * Money travels as exact decimal strings ("100.10"): never a float on the wire or inside the service.
 * Parse errors never echo the value back (it may be a typo'd account number pasted in the wrong field).
 */
const DECIMAL_RE = /^-?(0|[1-9]\d{0,19})(\.\d{1,8})?$/;
/** Inputs: at most 14 integer digits, what every money column stores (Decimal(20,6)); anything larger is refused here. */
const DECIMAL_INPUT_RE = /^-?(0|[1-9]\d{0,13})(\.\d{1,8})?$/;
const DECIMAL_INPUT_REASON = 'Decimal must look like "100.10" (no exponent, at most 14 integer digits and 8 decimals)';

export const DecimalScalar = new GraphQLScalarType<string, string>({
  name: 'Decimal',
  description:
    'An exact decimal number as a string, e.g. "100.10", no exponent, never a float. Inputs: up to 14 integer digits and 8 decimals (amounts: no more decimals than their currency has); outputs up to 20 integer digits.',
  specifiedByURL: 'https://en.wikipedia.org/wiki/Decimal_data_type',
  serialize(value) {
    if (typeof value === 'string' && DECIMAL_RE.test(value)) return value;
    if (value !== null && typeof value === 'object' && 'toFixed' in value && typeof value.toString === 'function') {
      const s = String(value);
      if (DECIMAL_RE.test(s)) return s; // decimal.js / Prisma.Decimal
    }
    throw new TypeError('Decimal cannot serialize a non-decimal value');
  },
  parseValue(value) {
    if (typeof value !== 'string') throw new TypeError('Decimal must be a string such as "100.10"');
    if (!DECIMAL_INPUT_RE.test(value)) throw new TypeError(DECIMAL_INPUT_REASON);
    return value;
  },
  parseLiteral(ast) {
    if (ast.kind !== Kind.STRING) throw new TypeError('Decimal must be a string such as "100.10"');
    if (!DECIMAL_INPUT_RE.test(ast.value)) throw new TypeError(DECIMAL_INPUT_REASON);
    return ast.value;
  },
});

const ISO_RE = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?(Z|[+-]\d{2}:\d{2})$/;
const DATE_TIME_REASON =
  'DateTime must be an ISO 8601 string with a time zone between the years 0001 and 9999 UTC, e.g. "2026-11-21T10:00:00Z"';

/** An input instant, or null: the ISO form, a real date, and within what the database stores (inStoredRange). */
function parseDateTime(value: unknown): Date | null {
  if (typeof value !== 'string' || !ISO_RE.test(value)) return null;
  const d = new Date(value);
  return inStoredRange(d) ? d : null;
}

export const DateTimeScalar = new GraphQLScalarType<Date, string>({
  name: 'DateTime',
  description:
    'A date and time in ISO 8601 with a time zone, always answered in UTC, e.g. "2026-11-21T10:00:00.000Z". Inputs: between the years 0001 and 9999 UTC (what the database stores); others are BAD_USER_INPUT.',
  serialize(value) {
    const d = value instanceof Date ? value : typeof value === 'string' || typeof value === 'number' ? new Date(value) : null;
    if (!d || Number.isNaN(d.getTime())) throw new TypeError('DateTime cannot serialize an invalid date');
    return d.toISOString();
  },
  parseValue(value) {
    const d = parseDateTime(value);
    if (!d) throw new TypeError(DATE_TIME_REASON);
    return d;
  },
  parseLiteral(ast) {
    const d = ast.kind === Kind.STRING ? parseDateTime(ast.value) : null;
    if (!d) throw new TypeError(DATE_TIME_REASON);
    return d;
  },
});
