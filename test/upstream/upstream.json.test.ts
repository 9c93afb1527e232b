import { ManualClock } from '../../src/shared/clock';
import { GatewayClient } from '../../src/upstream/gateway/gateway.client';
import { jsonDecimal, stringifyJson, isDecimalString } from '../../src/upstream/http/upstream.json';
import { bankListSchema } from '../../src/upstream/gateway/gateway.types';

describe('exact decimal JSON', () => {
  it('writes decimal strings verbatim as JSON numbers', () => {
    const text = stringifyJson({ a: jsonDecimal('100.10'), b: ['x\u0000y', jsonDecimal('0.123456789012345678901')], c: undefined });
    expect(text).toBe('{"a":100.10,"b":["x\\u0000y",0.123456789012345678901]}');
  });
  it('rejects non-decimal strings', () => {
    expect(() => jsonDecimal('1e3')).toThrow();
    expect(() => jsonDecimal('01.5')).toThrow();
    expect(() => jsonDecimal('NaN')).toThrow();
    expect(isDecimalString('-0.5')).toBe(true);
  });
  it('cannot be spoofed by user strings that look like markers', () => {
    const text = stringifyJson({ s: '\u0000abc:0\u0000', d: jsonDecimal('1.5') });
    expect(JSON.parse(text)).toEqual({ s: '\u0000abc:0\u0000', d: 1.5 });
  });
});

describe('amount inputs on the clients', () => {
  it('a non-decimal amount rejects (BAD_USER_INPUT) before anything is sent', async () => {
    const caller = { callMoneyMoving: jest.fn(), call: jest.fn() };
    const gw = new GatewayClient(caller as never, { clientId: 'c', clientSecret: 's', clock: new ManualClock() });
    await expect(gw.capturePayment('p1', { amount: '1e2' })).rejects.toMatchObject({ code: 'BAD_USER_INPUT' });
    expect(caller.callMoneyMoving).not.toHaveBeenCalled();
  });
});

describe('optional strings of gateway answers', () => {
  const page = (bank: Record<string, unknown>) => ({ banks: [bank], page: 0, resultsPerPage: 20, totalResults: 1 });
  const bank = { bankCode: '001', bankName: 'Banco do Brasil', countryCode: 'BR' };

  it('stay null or absent as they came (no transform: it doubled what validating a page allocates)', () => {
    const withNull = bankListSchema.parse(page({ ...bank, swift: null }));
    expect(withNull.banks[0]).toStrictEqual({ ...bank, swift: null });
    const absent = bankListSchema.parse(page(bank));
    expect(absent.banks[0]).toStrictEqual(bank);
    expect(absent.banks[0]).not.toHaveProperty('swift');
  });

  it('are still checked, and unknown fields still dropped', () => {
    expect(bankListSchema.safeParse(page({ ...bank, swift: 42 })).success).toBe(false);
    expect(bankListSchema.parse(page({ ...bank, swift: 'BRASBRRJ', extra: 'x' })).banks[0]).toStrictEqual({ ...bank, swift: 'BRASBRRJ' });
  });
});
