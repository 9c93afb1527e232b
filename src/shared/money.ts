import Decimal from 'decimal.js';
import type { FieldErrorCode } from './errors';

/**
 * Money inside the service: decimal.js values (never floats), decimal strings on the API and in the
 * database (Prisma.Decimal is decimal.js too). Amounts are formatted with their currency's ISO 4217 minor
 * units, e.g. "100.10" USD, "1500" JPY, "1.250" KWD.
 */

const ZERO_DECIMAL = new Set([
  'BIF',
  'CLP',
  'DJF',
  'GNF',
  'ISK',
  'JPY',
  'KMF',
  'KRW',
  'PYG',
  'RWF',
  'UGX',
  'VND',
  'VUV',
  'XAF',
  'XOF',
  'XPF',
]);
const THREE_DECIMAL = new Set(['BHD', 'IQD', 'JOD', 'KWD', 'LYD', 'OMR', 'TND']);

/** ISO 4217 minor units of a currency (2 unless listed). */
export function minorUnits(currency: string): number {
  const code = currency.toUpperCase();
  if (ZERO_DECIMAL.has(code)) return 0;
  if (THREE_DECIMAL.has(code)) return 3;
  return 2;
}

type DecimalLike = Decimal | string | { toString(): string };

export const dec = (v: DecimalLike): Decimal => (v instanceof Decimal ? v : new Decimal(v.toString()));

/** An amount as the API shows it: exactly the currency's minor units, no exponent. */
export function formatAmount(v: DecimalLike, currency: string): string {
  return dec(v).toFixed(minorUnits(currency), Decimal.ROUND_HALF_UP);
}

/**
 * A Money value as the API shows it: an ISO 4217 currency (three capital letters) with exactly its minor units
 * ("0.00" USD, "1500" JPY); any other asset code (a wallet may hold one) with its exact amount.
 */
export function moneyOf(v: DecimalLike, currency: string): { amount: string; currency: string } {
  return { amount: /^[A-Z]{3}$/.test(currency) ? formatAmount(v, currency) : dec(v).toFixed(), currency };
}

/** A rate as a plain decimal string without trailing zeros or exponent ("5.0123"). */
export function formatRate(v: DecimalLike): string {
  return dec(v).toFixed();
}

/** A JSON number from an upstream response, as the exact decimal string of its shortest representation. */
export function fromJsonNumber(n: number): string {
  return new Decimal(n).toFixed();
}

/** amount × rate, rounded half-up to the destination currency's minor units. */
export function convert(amount: DecimalLike, rate: DecimalLike, currency: string): string {
  return dec(amount).mul(dec(rate)).toFixed(minorUnits(currency), Decimal.ROUND_HALF_UP);
}

/** True when `v` has no more decimals than the currency allows. */
export function fitsMinorUnits(v: DecimalLike, currency: string): boolean {
  return dec(v).decimalPlaces() <= minorUnits(currency);
}

/**
 * Corridor rules (TRANSFER_CORRIDORS): the least and the most one transfer may send, in the source currency, per
 * corridor — source currency → destination currency, optionally for one destination country. The most specific
 * rule applies: `USD>MXN/MX`, then `USD>MXN`, then `USD>*`, then `*` (the default, always present).
 */
export interface CorridorRule extends CorridorKey {
  /** Decimal strings; no minimum given → the source currency's smallest unit. */
  min: string | null;
  max: string;
}

const CORRIDOR = /^(?:(\*)|([A-Z]{3})>(?:(\*)|([A-Z]{3})(?:\/([A-Z]{2}))?))=(\d{1,14}(?:\.\d{1,3})?)?\.\.(\d{1,14}(?:\.\d{1,3})?)$/;

/** The entries of a comma-separated corridor-style setting (TRANSFER_CORRIDORS, TRANSFER_FEES, …), spaces removed. */
export const configEntries = (text: string): string[] =>
  text
    .split(',')
    .map((e) => e.replace(/\s+/g, ''))
    .filter(Boolean);

/**
 * `USD>BRL=1..10000, USD>MXN/MX=5..2500, USD>*=1..10000, *=..10000` → rules, or the entries that are not
 * understood. A missing `*` gets `..10000`.
 */
export function parseCorridors(text: string): { rules: CorridorRule[] } | { invalid: string[] } {
  const rules: CorridorRule[] = [];
  const invalid: string[] = [];
  for (const entry of configEntries(text)) {
    const m = CORRIDOR.exec(entry);
    if (!m || (m[6] !== undefined && dec(m[6]).gt(m[7]!)) || dec(m[7]!).lte(0)) {
      invalid.push(entry);
      continue;
    }
    rules.push({
      sourceCurrency: m[2] ?? null,
      destinationCurrency: m[4] ?? null,
      destinationCountry: m[5] ?? null,
      min: m[6] ?? null,
      max: m[7]!,
    });
  }
  if (invalid.length) return { invalid };
  if (!rules.some((r) => r.sourceCurrency === null))
    rules.push({ sourceCurrency: null, destinationCurrency: null, destinationCountry: null, min: null, max: '10000' });
  return { rules };
}

/** Which corridor a rule is for: null source currency is the `*` default, null destination currency `SRC>*`. */
export interface CorridorKey {
  sourceCurrency: string | null;
  destinationCurrency: string | null;
  destinationCountry: string | null;
}

/**
 * How specifically a rule matches a corridor: 3 its country, 2 its currency pair, 1 its source currency, 0 the `*`
 * default; -1 another corridor.
 */
export function corridorScore(
  r: CorridorKey,
  c: { sourceCurrency: string; destinationCurrency: string; destinationCountry?: string | null },
): number {
  if (r.sourceCurrency === null) return 0;
  if (r.sourceCurrency !== c.sourceCurrency) return -1;
  if (r.destinationCurrency === null) return 1;
  if (r.destinationCurrency !== c.destinationCurrency) return -1;
  if (r.destinationCountry === null) return 2;
  return r.destinationCountry === c.destinationCountry ? 3 : -1;
}

/** The rule for one corridor: the most specific that matches (see CorridorRule). */
export function corridorRule(rules: readonly CorridorRule[], source: string, destination: string, country?: string | null): CorridorRule {
  const c = { sourceCurrency: source, destinationCurrency: destination, destinationCountry: country ?? null };
  let best = rules[0]!;
  for (const r of rules) if (corridorScore(r, c) > corridorScore(best, c)) best = r;
  return best;
}

/** A rule's bounds as amounts of the source currency (the minimum defaults to its smallest unit). */
export function corridorBounds(
  rule: CorridorRule,
  sourceCurrency: string,
): { min: { amount: string; currency: string }; max: { amount: string; currency: string } } {
  const smallest = new Decimal(1).div(new Decimal(10).pow(minorUnits(sourceCurrency)));
  return {
    min: { amount: formatAmount(rule.min ?? smallest, sourceCurrency), currency: sourceCurrency },
    max: { amount: formatAmount(rule.max, sourceCurrency), currency: sourceCurrency },
  };
}

interface AmountProblem {
  message: string;
  /** What is wrong with the amount's field (the caller names the field: errors.ts badField). */
  code: FieldErrorCode;
  /** Safe for the caller: the bound it missed, never the amount sent. */
  details: Record<string, unknown>;
}

/**
 * Why `amount` cannot be sent in one transfer through this corridor (not positive, too many decimals, below its
 * minimum, above its maximum), or null.
 */
export function sendAmountProblem(
  field: string,
  amount: DecimalLike,
  corridor: { sourceCurrency: string; destinationCurrency: string; destinationCountry?: string | null },
  rules: readonly CorridorRule[],
): AmountProblem | null {
  const a = dec(amount);
  // ISO 4217 codes are matched whatever the spelling
  const currency = corridor.sourceCurrency.toUpperCase();
  const destination = corridor.destinationCurrency.toUpperCase();
  if (!a.gt(0)) return { message: `${field} must be greater than 0`, code: 'OUT_OF_RANGE', details: {} };
  if (!fitsMinorUnits(a, currency))
    return { message: `${field} has more decimals than ${currency} allows`, code: 'TOO_MANY_DECIMALS', details: {} };
  const { min, max } = corridorBounds(corridorRule(rules, currency, destination, corridor.destinationCountry?.toUpperCase()), currency);
  const name = `${currency} to ${destination}`;
  if (a.lt(min.amount))
    return {
      message: `${field} must be at least ${min.amount} ${currency} for ${name}`,
      code: 'BELOW_MINIMUM',
      details: { minAmount: min },
    };
  if (a.gt(max.amount))
    return {
      message: `${field} must not exceed ${max.amount} ${currency} per transfer for ${name}`,
      code: 'ABOVE_MAXIMUM',
      details: { maxAmount: max },
    };
  return null;
}

/** Why `amount` is not a positive amount of `currency` with at most its minor units (for a BAD_USER_INPUT), or null. */
export function positiveAmountProblem(field: string, amount: string, currency: string): string | null {
  if (!/^\d+(\.\d+)?$/.test(amount)) return `${field} must be a positive decimal such as "100.00"`;
  if (!dec(amount).greaterThan(0)) return `${field} must be greater than zero`;
  if (!fitsMinorUnits(amount, currency)) return `${field} has more decimals than ${currency} allows (${minorUnits(currency)})`;
  return null;
}
