/**
 * Fees and delivery times (src/shared/pricing.ts): the configuration grammar, which entry applies, and the
 * arithmetic — total = amount + fee exactly, in the source currency's minor units (0, 2 and 3 decimals).
 */
import fc from 'fast-check';
import Decimal from 'decimal.js';
import {
  deliveryEstimate,
  deliveryWindow,
  feeFunding,
  parseDeliveryTimes,
  parseFees,
  priceOf,
  type DeliveryRule,
  type FeeRule,
  type FeeRounding,
  type Pricing,
} from '../../src/shared/pricing';
import { minorUnits } from '../../src/shared/money';

const fees = (text: string): FeeRule[] => {
  const p = parseFees(text);
  if (!('rules' in p)) throw new Error(`not understood: ${p.invalid.join(', ')}`);
  return p.rules;
};
const times = (text: string): DeliveryRule[] => {
  const p = parseDeliveryTimes(text);
  if (!('rules' in p)) throw new Error(`not understood: ${p.invalid.join(', ')}`);
  return p.rules;
};
const pricing = (f: string, rounding: FeeRounding = 'HALF_UP', d = '*=1h..3d'): Pricing => ({
  fees: fees(f),
  rounding,
  delivery: times(d),
});
const USD_BRL = { sourceCurrency: 'USD', destinationCurrency: 'BRL' };

describe('fees', () => {
  it('fixed, percentage and both, each rounded once to the minor units of the source currency', () => {
    const p = pricing('USD>BRL:CARD=2.99+1%,USD>BRL:BANK_ACCOUNT=0.99,USD>MXN=1.5%,*=0');
    expect(priceOf(p, USD_BRL, 'CARD', '100.00')).toEqual({ fee: '3.99', total: '103.99' });
    expect(priceOf(p, USD_BRL, 'CARD', '0.55')).toEqual({ fee: '3.00', total: '3.55' }); // 2.99 + 0.0055 → 3.00 (half up)
    expect(priceOf(p, USD_BRL, 'BANK_ACCOUNT', '100.00')).toEqual({ fee: '0.99', total: '100.99' });
    expect(priceOf(p, { sourceCurrency: 'USD', destinationCurrency: 'MXN' }, 'CARD', '33.33')).toEqual({ fee: '0.50', total: '33.83' });
    expect(priceOf(p, { sourceCurrency: 'EUR', destinationCurrency: 'BRL' }, 'CARD', '10.00')).toEqual({ fee: '0.00', total: '10.00' });
  });

  it('0, 2 and 3 decimals: JPY, USD, KWD', () => {
    const p = pricing('JPY>*=1.5%,KWD>*=0.125+0.5%,USD>*=0.3+2.9%');
    expect(priceOf(p, { sourceCurrency: 'JPY', destinationCurrency: 'PHP' }, 'CARD', '10001')).toEqual({ fee: '150', total: '10151' });
    expect(priceOf(p, { sourceCurrency: 'KWD', destinationCurrency: 'INR' }, 'CARD', '12.345')).toEqual({ fee: '0.187', total: '12.532' });
    expect(priceOf(p, { sourceCurrency: 'USD', destinationCurrency: 'INR' }, 'CARD', '19.99')).toEqual({ fee: '0.88', total: '20.87' });
  });

  it('rounding modes: HALF_UP, HALF_EVEN, UP, DOWN', () => {
    const at = (r: FeeRounding, amount: string) => priceOf(pricing('*=1%', r), USD_BRL, null, amount).fee;
    // 1 % of 12.50 = 0.125; of 13.50 = 0.135; of 10.01 = 0.1001
    expect(['HALF_UP', 'HALF_EVEN', 'UP', 'DOWN'].map((r) => at(r as FeeRounding, '12.50'))).toEqual(['0.13', '0.12', '0.13', '0.12']);
    expect(at('HALF_EVEN', '13.50')).toBe('0.14');
    expect(at('UP', '10.01')).toBe('0.11');
    expect(at('DOWN', '10.01')).toBe('0.10');
  });

  it('the most specific entry applies: country over pair over source over *, a funding type over none', () => {
    const p = pricing('USD>BRL/BR:CARD=4,USD>BRL/BR=3,USD>BRL:CARD=2,USD>BRL=1,USD>*=0.5,*=0.25');
    const fee = (c: object, f: 'CARD' | 'BANK_ACCOUNT' | null) => priceOf(p, { ...USD_BRL, ...c }, f, '10.00').fee;
    expect(fee({ destinationCountry: 'BR' }, 'CARD')).toBe('4.00');
    expect(fee({ destinationCountry: 'BR' }, 'BANK_ACCOUNT')).toBe('3.00');
    expect(fee({}, 'CARD')).toBe('2.00');
    expect(fee({ destinationCountry: 'PT' }, 'BANK_ACCOUNT')).toBe('1.00');
    expect(fee({ destinationCurrency: 'EUR' }, 'CARD')).toBe('0.50');
    expect(fee({ sourceCurrency: 'GBP' }, 'CARD')).toBe('0.25');
    expect(fee({}, null)).toBe('1.00'); // a payment method of no funding family: the unqualified entry
  });

  it('a missing * charges nothing; entries not understood are all reported', () => {
    expect(fees('USD>BRL=1').at(-1)).toMatchObject({ sourceCurrency: null, fixed: '0', percent: '0' });
    expect(parseFees('USD>BRL=abc, *:CARD=1, USD>*:CARD=1, USD>BRL:WIRE=1, USD>BRL=-1, USD>BRL=1+%, USD>BRL=101%')).toEqual({
      invalid: ['USD>BRL=abc', '*:CARD=1', 'USD>*:CARD=1', 'USD>BRL:WIRE=1', 'USD>BRL=-1', 'USD>BRL=1+%', 'USD>BRL=101%'],
    });
  });

  it('payment methods map to their funding family', () => {
    expect(['CARD', 'CREDIT_CARD', 'DEBIT_CARD', 'AFT', 'BANK_ACCOUNT', 'ACH', 'CASH'].map(feeFunding)).toEqual([
      'CARD',
      'CARD',
      'CARD',
      'CARD',
      'BANK_ACCOUNT',
      'BANK_ACCOUNT',
      null,
    ]);
  });

  it('property: total = amount + fee exactly, the fee has the currency’s minor units and is what the rule says within half a unit', () => {
    const currencies = ['JPY', 'USD', 'KWD', 'BRL', 'CLP', 'BHD'];
    fc.assert(
      fc.property(
        fc.constantFrom(...currencies),
        fc.bigInt({ min: 1n, max: 10n ** 14n }),
        fc.integer({ min: 0, max: 99_999 }),
        fc.integer({ min: 0, max: 999_999 }),
        fc.constantFrom<FeeRounding>('HALF_UP', 'HALF_EVEN', 'UP', 'DOWN'),
        (currency, minor, fixedThousandths, percentTenThousandths, rounding) => {
          const units = minorUnits(currency);
          const amount = new Decimal(minor.toString()).div(new Decimal(10).pow(units)).toFixed(units);
          const fixed = new Decimal(fixedThousandths).div(1000).toFixed();
          const percent = new Decimal(percentTenThousandths).div(10_000).toFixed();
          const p: Pricing = { fees: fees(`*=${fixed}+${percent}%`), rounding, delivery: [] };
          const { fee, total } = priceOf(p, { sourceCurrency: currency, destinationCurrency: 'EUR' }, 'CARD', amount);
          const exact = new Decimal(fixed).plus(new Decimal(amount).mul(percent).div(100));
          const unit = new Decimal(1).div(new Decimal(10).pow(units));
          return (
            new Decimal(total).eq(new Decimal(amount).plus(fee)) &&
            new Decimal(fee).decimalPlaces() <= units &&
            fee.split('.')[1]?.length === (units || undefined) &&
            new Decimal(fee).minus(exact).abs().lt(unit) &&
            (rounding !== 'UP' || new Decimal(fee).gte(exact)) &&
            (rounding !== 'DOWN' || new Decimal(fee).lte(exact))
          );
        },
      ),
      { numRuns: 500 },
    );
  });
});

describe('delivery times', () => {
  it('per destination type, the widest window when none is given, anchored at a time', () => {
    const p = pricing('*=0', 'HALF_UP', 'USD>BRL:PIX=..1h,USD>BRL:WALLET=5m..10m,*=1h..3d');
    expect(deliveryWindow(p, USD_BRL, 'PIX')).toEqual({ minSeconds: 0, maxSeconds: 3600 });
    expect(deliveryWindow(p, USD_BRL, 'WALLET')).toEqual({ minSeconds: 300, maxSeconds: 600 });
    expect(deliveryWindow(p, USD_BRL, null)).toEqual({ minSeconds: 0, maxSeconds: 3600 });
    expect(deliveryWindow(p, { sourceCurrency: 'EUR', destinationCurrency: 'BRL' }, 'PIX')).toEqual({
      minSeconds: 3600,
      maxSeconds: 259200,
    });
    const from = new Date('2026-11-28T10:00:00.000Z');
    expect(deliveryEstimate(p, USD_BRL, 'WALLET', from)).toEqual({
      earliest: new Date('2026-11-28T10:05:00.000Z'),
      latest: new Date('2026-11-28T10:10:00.000Z'),
    });
  });

  it('grammar: durations 0, s, m, h, d; MIN ≤ MAX; a missing * is 0..3d', () => {
    expect(times('USD>BRL=90s..2d').at(-1)).toMatchObject({ sourceCurrency: null, minSeconds: 0, maxSeconds: 259200 });
    expect(times('USD>BRL=90s..2d')[0]).toMatchObject({ minSeconds: 90, maxSeconds: 172800 });
    expect(parseDeliveryTimes('USD>BRL=2h..1h, USD>BRL=..0, USD>BRL=1w..2w, USD>BRL:CARD=..1h, USD>BRL=1h')).toEqual({
      invalid: ['USD>BRL=2h..1h', 'USD>BRL=..0', 'USD>BRL=1w..2w', 'USD>BRL:CARD=..1h', 'USD>BRL=1h'],
    });
  });
});
