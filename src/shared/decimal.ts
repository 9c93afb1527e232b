import Decimal from 'decimal.js';

/**
 * Upstream JSON numbers → exact decimal strings for the API's Decimal scalar.
 *
 * JSON.parse already turned the upstream's digits into the nearest double; `String(n)` is that double's
 * shortest round-trip representation (e.g. 0.1 stays "0.1", 100.1 stays "100.1" — never
 * "100.09999999999999"), so decimal.js reads it back with no float noise. toFixed() removes exponents
 * ("1e-7" → "0.0000001"). No arithmetic happens on floats.
 *
 * The Decimal scalar carries at most 8 decimals: a value with more (a long FX rate) is rounded half-even
 * to 8 decimals — the only place a number is rounded, and it is a display value (the gateway's own rate is
 * what a payment carries, by fxId).
 */
export function decimalFromNumber(n: number, maxDecimals = 8): string {
  if (!Number.isFinite(n)) throw new TypeError('not a finite number');
  const d = new Decimal(String(n));
  const rounded = d.decimalPlaces() > maxDecimals ? d.toDecimalPlaces(maxDecimals, Decimal.ROUND_HALF_EVEN) : d;
  const s = rounded.toFixed();
  return s === '-0' ? '0' : s;
}
