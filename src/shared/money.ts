import Decimal from 'decimal.js';

/**
 * Money inside the service: decimal.js values (never floats), decimal strings on the API and in the
 * database (Prisma.Decimal is decimal.js too). Amounts are formatted with their currency's ISO 4217 minor
 * units, e.g. "100.10" USD, "1500" JPY, "1.250" KWD.
 */
export { Decimal };

const ZERO_DECIMAL = new Set([
  'BIF', 'CLP', 'DJF', 'GNF', 'ISK', 'JPY', 'KMF', 'KRW', 'PYG', 'RWF', 'UGX', 'VND', 'VUV', 'XAF', 'XOF', 'XPF',
]);
const THREE_DECIMAL = new Set(['BHD', 'IQD', 'JOD', 'KWD', 'LYD', 'OMR', 'TND']);

/** ISO 4217 minor units of a currency (2 unless listed). */
export function minorUnits(currency: string): number {
  if (ZERO_DECIMAL.has(currency)) return 0;
  if (THREE_DECIMAL.has(currency)) return 3;
  return 2;
}

export type DecimalLike = Decimal | string | { toString(): string };

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

/** The most one transfer may send, per source currency (TRANSFER_MAX_AMOUNT, TRANSFER_MAX_AMOUNT_BY_CURRENCY). */
export interface TransferAmountLimits {
  default: string;
  byCurrency: Record<string, string>;
}

/** Why `amount` cannot be sent in one transfer in `currency` (not positive, too many decimals, above the maximum), or null. */
export function sendAmountProblem(field: string, amount: DecimalLike, currency: string, limits: TransferAmountLimits): string | null {
  const a = dec(amount);
  if (!a.gt(0)) return `${field} must be greater than 0`;
  if (!fitsMinorUnits(a, currency)) return `${field} has more decimals than ${currency} allows`;
  const max = limits.byCurrency[currency] ?? limits.default;
  if (a.gt(dec(max))) return `${field} must not exceed ${formatAmount(max, currency)} ${currency} per transfer`;
  return null;
}
