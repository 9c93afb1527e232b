/**
 * Currencies and money arithmetic. Amounts are numbers on the wire (as the upstream JSON) and decimal.js
 * values inside: no float arithmetic on amounts.
 */
import Decimal from 'decimal.js';
import { Issues } from './gateway.errors';
import type { Json } from './gateway.validate';

/**
 * Reference rates: units of each ISO 4217 currency per 1 USD (fixed, so quotes are deterministic).
 * Any pair is priced through its USD cross rate.
 */
const USD_RATES =
  'USD:1 EUR:0.9215 GBP:0.7893 JPY:151.37 CHF:0.8812 CAD:1.3642 AUD:1.5271 NZD:1.6634 CNY:7.2334 HKD:7.8251 ' +
  'SGD:1.3478 KRW:1352.4 TWD:32.015 INR:83.412 PKR:278.35 BDT:109.72 LKR:301.28 NPR:133.46 IDR:15893 MYR:4.7315 ' +
  'THB:36.482 PHP:56.218 VND:25410 KHR:4075.5 LAK:21350 MMK:2099.5 MNT:3395 KZT:447.6 UZS:12650 KGS:89.15 ' +
  'TJS:10.94 AZN:1.7 GEL:2.685 AMD:388.2 TRY:32.214 ILS:3.7125 AED:3.6725 SAR:3.7502 QAR:3.641 KWD:0.30772 ' +
  'BHD:0.37701 OMR:0.38502 JOD:0.7092 LBP:89500 EGP:47.35 MAD:10.061 TND:3.1235 DZD:134.52 LYD:4.8375 ' +
  'IQD:1310.5 IRR:42075 AFN:71.85 NGN:1394.2 GHS:13.425 KES:131.75 UGX:3815.5 TZS:2585 RWF:1298.4 ETB:57.12 ' +
  'ZAR:18.634 BWP:13.712 NAD:18.634 ZMW:25.813 MWK:1733.5 MZN:63.875 AOA:837.5 XOF:604.5 XAF:604.5 CDF:2785 ' +
  'SLE:22.65 GMD:67.85 GNF:8600 LRD:193.4 SOS:571.5 SDG:601.5 MGA:4460 MUR:46.25 SCR:13.615 CVE:101.62 ' +
  'MXN:16.734 GTQ:7.7815 HNL:24.712 NIO:36.785 CRC:512.45 PAB:1 DOP:59.125 HTG:132.75 JMD:155.42 TTD:6.7815 ' +
  'BBD:2 BSD:1 BZD:2.0165 XCD:2.7026 COP:3912.5 PEN:3.7185 CLP:942.35 ARS:872.5 BOB:6.91 PYG:7412.5 UYU:38.965 ' +
  'BRL:5.0123 VES:36.42 GYD:209.25 SRD:35.12 AWG:1.79 ANG:1.79 KYD:0.8333 BMD:1 FJD:2.2512 PGK:3.7825 ' +
  'WST:2.7415 TOP:2.3612 VUV:119.65 SBD:8.4625 XPF:109.95 RUB:92.415 UAH:39.125 BYN:3.2715 MDL:17.685 ' +
  'PLN:3.9725 CZK:23.215 HUF:361.45 RON:4.5825 BGN:1.8023 RSD:107.85 MKD:56.725 ALL:94.35 BAM:1.8023 ' +
  'ISK:138.45 NOK:10.7425 SEK:10.5815 DKK:6.8712 MVR:15.42 BTN:83.412 BND:1.3478 MOP:8.0625 SYP:13002 ' +
  'YER:250.35 DJF:177.72 ERN:15 KMF:453.35 LSL:18.634 SZL:18.634 BIF:2865 SSP:1305.5 STN:22.58 MRU:39.725 ' +
  'TMT:3.5 CUP:24 XDR:0.7551';

const RATES = new Map<string, Decimal>();
for (const item of USD_RATES.split(' ')) {
  const [code, rate] = item.split(':');
  RATES.set(code, new Decimal(rate));
}

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

export const isCurrency = (code: unknown): code is string => typeof code === 'string' && RATES.has(code);
export const currencies = (): string[] => [...RATES.keys()];

export function minorUnits(currency: string): number {
  if (ZERO_DECIMAL.has(currency)) return 0;
  if (THREE_DECIMAL.has(currency)) return 3;
  return 2;
}

/** Reference cross rate src→dst, 8 significant digits (USD→BRL is exactly 5.0123). */
export function referenceRate(src: string, dst: string): Decimal {
  const s = RATES.get(src);
  const d = RATES.get(dst);
  if (!s || !d) throw new Error(`unknown currency ${src} or ${dst}`);
  return d.div(s).toSignificantDigits(8, Decimal.ROUND_HALF_UP);
}

/** amount × rate, rounded half-up to the destination currency's minor units. */
export function convert(amount: Decimal, rate: Decimal, dstCurrency: string): Decimal {
  return amount.mul(rate).toDecimalPlaces(minorUnits(dstCurrency), Decimal.ROUND_HALF_UP);
}

/** A positive amount in `currency` with at most its minor-unit decimals; adds an issue otherwise. */
export function parsePositiveAmount(issues: Issues, value: unknown, currency: string | undefined, path: string): Decimal | undefined {
  if (value === undefined || value === null) {
    issues.add(path, 'required');
    return undefined;
  }
  if (typeof value !== 'number' || !Number.isFinite(value)) {
    issues.add(path, 'must be a number');
    return undefined;
  }
  const d = new Decimal(value);
  if (d.lte(0)) {
    issues.add(path, 'must be greater than 0');
    return undefined;
  }
  if (currency && isCurrency(currency) && d.decimalPlaces() > minorUnits(currency)) {
    issues.add(path, `must have at most ${minorUnits(currency)} decimal places for ${currency}`);
    return undefined;
  }
  return d;
}

/** An Amount object { total, currency } (both required). */
export function parseAmountObject(
  issues: Issues,
  parent: Json,
  key: string,
  path: string,
): { total: Decimal; currency: string } | undefined {
  const v = parent[key];
  if (v === undefined || v === null) {
    issues.add(path, 'required');
    return undefined;
  }
  if (typeof v !== 'object' || Array.isArray(v)) {
    issues.add(path, 'must be an object { total, currency }');
    return undefined;
  }
  const o = v as Json;
  let currency: string | undefined;
  if (o.currency === undefined || o.currency === null || o.currency === '') issues.add(`${path}.currency`, 'required');
  else if (!isCurrency(o.currency)) issues.add(`${path}.currency`, 'must be a supported ISO 4217 code');
  else currency = o.currency;
  const total = parsePositiveAmount(issues, o.total, currency, `${path}.total`);
  return total && currency ? { total, currency } : undefined;
}

export const num = (d: Decimal): number => d.toNumber();
