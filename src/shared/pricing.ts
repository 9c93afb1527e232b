import Decimal from 'decimal.js';
import { configEntries, corridorScore, dec, formatAmount, minorUnits, type CorridorKey } from './money';

/**
 * What a transfer costs the sender and when it arrives, per corridor — configured like the corridors' amount bounds
 * (TRANSFER_FEES, TRANSFER_FEE_ROUNDING, TRANSFER_DELIVERY_TIMES): `SRC>DST[/CC][:QUALIFIER]=VALUE` entries, the most
 * specific matching entry applies (country over currency pair over source currency over `*`; an entry with the
 * qualifier over one without).
 *
 * Fees: `FIXED`, `PERCENT%` or `FIXED+PERCENT%`, in the source currency, qualified by the funding type (CARD or
 * BANK_ACCOUNT; a linked account funds as BANK_ACCOUNT). fee = round(FIXED + amount × PERCENT / 100) to the source
 * currency's minor units, once, with TRANSFER_FEE_ROUNDING; total = amount + fee, exactly.
 *
 * Delivery times: `MIN..MAX` durations (`0`, `90s`, `30m`, `2h`, `3d`), qualified by the destination type (WALLET or
 * PIX). The platform documents no delivery time of its own: the configured one is the estimate.
 */

/** The funding families fees are set for (createQuote's paymentMethod maps to one: feeFunding). */
export const FEE_FUNDINGS = ['CARD', 'BANK_ACCOUNT'] as const;
export type FeeFunding = (typeof FEE_FUNDINGS)[number];
/** The destination types delivery times are set for. */
export const DELIVERY_DESTINATIONS = ['WALLET', 'PIX'] as const;
export type DeliveryDestination = (typeof DELIVERY_DESTINATIONS)[number];

/** The quote's payment methods that fund each family (any other method: only unqualified fee entries apply). */
const FEE_FUNDING_OF_METHOD: Record<string, FeeFunding> = {
  CARD: 'CARD',
  CREDIT_CARD: 'CARD',
  DEBIT_CARD: 'CARD',
  AFT: 'CARD',
  BANK_ACCOUNT: 'BANK_ACCOUNT',
  ACH: 'BANK_ACCOUNT',
};
export const feeFunding = (paymentMethod: string): FeeFunding | null => FEE_FUNDING_OF_METHOD[paymentMethod] ?? null;

export const FEE_ROUNDINGS = {
  HALF_UP: Decimal.ROUND_HALF_UP,
  HALF_EVEN: Decimal.ROUND_HALF_EVEN,
  UP: Decimal.ROUND_UP,
  DOWN: Decimal.ROUND_DOWN,
} as const;
export type FeeRounding = keyof typeof FEE_ROUNDINGS;

interface Qualified extends CorridorKey {
  /** Null: any funding (fees) or any destination type (delivery). */
  qualifier: string | null;
}
export interface FeeRule extends Qualified {
  /** Decimal strings, both ≥ 0. */
  fixed: string;
  percent: string;
}
export interface DeliveryRule extends Qualified {
  minSeconds: number;
  maxSeconds: number;
}

const ANY_KEY = { sourceCurrency: null, destinationCurrency: null, destinationCountry: null, qualifier: null };
const KEY = /^(?:(\*)|([A-Z]{3})>(?:(\*)|([A-Z]{3})(?:\/([A-Z]{2}))?))(?::([A-Z_]+))?=(.+)$/;
const FEE = /^(?:(\d{1,9}(?:\.\d{1,3})?)(?:\+(\d{1,2}(?:\.\d{1,4})?)%)?|(\d{1,2}(?:\.\d{1,4})?)%)$/;
const DURATION = /^(\d{1,6})([smhd]?)$/;
const UNIT_SECONDS: Record<string, number> = { '': 1, s: 1, m: 60, h: 3600, d: 86400 };

function parseEntries<T extends Qualified>(
  text: string,
  qualifiers: readonly string[],
  value: (v: string) => Omit<T, keyof Qualified> | null,
  fallback: Omit<T, keyof Qualified>,
): { rules: T[] } | { invalid: string[] } {
  const rules: T[] = [];
  const invalid: string[] = [];
  for (const entry of configEntries(text)) {
    const m = KEY.exec(entry);
    const v = m ? value(m[7]!) : null;
    // a qualifier only on a currency pair (`USD>BRL:CARD`), never on `*` or `USD>*`
    const q = m?.[6] ?? null;
    if (!m || !v || (q !== null && (!qualifiers.includes(q) || m[4] === undefined))) {
      invalid.push(entry);
      continue;
    }
    rules.push({
      sourceCurrency: m[2] ?? null,
      destinationCurrency: m[4] ?? null,
      destinationCountry: m[5] ?? null,
      qualifier: q,
      ...v,
    } as T);
  }
  if (invalid.length) return { invalid };
  if (!rules.some((r) => r.sourceCurrency === null)) rules.push({ ...ANY_KEY, ...fallback } as T);
  return { rules };
}

/** `USD>BRL:CARD=2.99+1%, USD>BRL:BANK_ACCOUNT=0.99, *=0` → rules (a missing `*` is `*=0`), or the entries not understood. */
export function parseFees(text: string): { rules: FeeRule[] } | { invalid: string[] } {
  return parseEntries<FeeRule>(
    text,
    FEE_FUNDINGS,
    (v) => {
      const m = FEE.exec(v);
      if (!m) return null;
      return m[3] !== undefined ? { fixed: '0', percent: m[3] } : { fixed: m[1]!, percent: m[2] ?? '0' };
    },
    { fixed: '0', percent: '0' },
  );
}

/** `USD>BRL:PIX=0..1h, USD>BRL:WALLET=..10m, *=1h..3d` → rules (no MIN: 0; a missing `*` is `*=0..3d`), or the entries not understood. */
export function parseDeliveryTimes(text: string): { rules: DeliveryRule[] } | { invalid: string[] } {
  const seconds = (d: string): number | null => {
    const m = DURATION.exec(d);
    return m ? Number(m[1]) * UNIT_SECONDS[m[2]!]! : null;
  };
  return parseEntries<DeliveryRule>(
    text,
    DELIVERY_DESTINATIONS,
    (v) => {
      const [lo, hi, ...rest] = v.split('..');
      if (hi === undefined || rest.length) return null;
      const min = lo === '' ? 0 : seconds(lo!);
      const max = seconds(hi);
      return min !== null && max !== null && max > 0 && min <= max ? { minSeconds: min, maxSeconds: max } : null;
    },
    { minSeconds: 0, maxSeconds: 3 * 86400 },
  );
}

/**
 * The most specific rule for a corridor and qualifier (an entry with the qualifier beats one without, at equal corridor
 * specificity); `fallback` when none matches (parsed rules always hold a `*`).
 */
function ruleFor<T extends Qualified>(rules: readonly T[], corridor: Required<Corridor>, qualifier: string | null, fallback: T): T {
  const score = (r: T) => {
    const c = corridorScore(r, corridor);
    if (c < 0 || (r.qualifier !== null && r.qualifier !== qualifier)) return -1;
    return c * 2 + (r.qualifier !== null ? 1 : 0);
  };
  let best = fallback;
  let bestScore = -1;
  for (const r of rules) {
    const sc = score(r);
    if (sc > bestScore) [best, bestScore] = [r, sc];
  }
  return best;
}

const NO_FEE: FeeRule = { ...ANY_KEY, fixed: '0', percent: '0' };
const DEFAULT_DELIVERY: DeliveryRule = { ...ANY_KEY, minSeconds: 0, maxSeconds: 3 * 86400 };

export interface Corridor {
  sourceCurrency: string;
  destinationCurrency: string;
  destinationCountry?: string | null;
}
const keyOf = (c: Corridor): Required<Corridor> => ({
  sourceCurrency: c.sourceCurrency.toUpperCase(),
  destinationCurrency: c.destinationCurrency.toUpperCase(),
  destinationCountry: c.destinationCountry?.toUpperCase() ?? null,
});

export interface Pricing {
  fees: readonly FeeRule[];
  rounding: FeeRounding;
  delivery: readonly DeliveryRule[];
}

/** The fee rule that prices a corridor for one funding family (null: a method of no family, only unqualified rules). */
export const feeRule = (p: Pricing, c: Corridor, funding: FeeFunding | null): FeeRule => ruleFor(p.fees, keyOf(c), funding, NO_FEE);

/** What the service charges to send `amount` (source currency), and what the sender pays: amount + fee. Exact decimal strings. */
export function priceOf(p: Pricing, c: Corridor, funding: FeeFunding | null, amount: string): { fee: string; total: string } {
  const currency = c.sourceCurrency.toUpperCase();
  const r = feeRule(p, c, funding);
  const fee = dec(r.fixed).plus(dec(amount).mul(r.percent).div(100)).toDecimalPlaces(minorUnits(currency), FEE_ROUNDINGS[p.rounding]);
  return { fee: formatAmount(fee, currency), total: formatAmount(dec(amount).plus(fee), currency) };
}

/** How long a payout through a corridor takes to one destination type, or — no type — the widest window over all types. */
export function deliveryWindow(
  p: Pricing,
  c: Corridor,
  destination: DeliveryDestination | null,
): { minSeconds: number; maxSeconds: number } {
  const types = destination ? [destination] : DELIVERY_DESTINATIONS;
  const windows = types.map((t) => ruleFor(p.delivery, keyOf(c), t, DEFAULT_DELIVERY));
  return { minSeconds: Math.min(...windows.map((w) => w.minSeconds)), maxSeconds: Math.max(...windows.map((w) => w.maxSeconds)) };
}

/** The delivery estimate from `from`: { earliest, latest }. */
export function deliveryEstimate(
  p: Pricing,
  c: Corridor,
  destination: DeliveryDestination | null,
  from: Date,
): { earliest: Date; latest: Date } {
  const w = deliveryWindow(p, c, destination);
  return { earliest: new Date(from.getTime() + w.minSeconds * 1000), latest: new Date(from.getTime() + w.maxSeconds * 1000) };
}
