import { minorUnits, sendAmountProblem } from '../../src/shared/money';

describe('per-transfer amount limits', () => {
  const limits = { default: '10000', byCurrency: { USD: '50', KWD: '3000' } };
  it('apply to a currency code whatever its letter case', () => {
    for (const c of ['USD', 'usd', 'Usd']) expect(sendAmountProblem('sourceAmount', '5000', c, limits)).toBe('sourceAmount must not exceed 50.00 USD per transfer');
    expect(sendAmountProblem('sourceAmount', '50', 'usd', limits)).toBeNull();
  });
  it('minor units follow the code whatever its letter case', () => {
    expect(minorUnits('kwd')).toBe(3);
    expect(minorUnits('jpy')).toBe(0);
    expect(sendAmountProblem('sourceAmount', '1.2345', 'kwd', limits)).toBe('sourceAmount has more decimals than kwd allows');
  });
});
