import { minorUnits, parseCorridors, sendAmountProblem, type CorridorRule } from '../../src/shared/money';

describe('corridor amount limits', () => {
  const parsed = parseCorridors('USD>BRL=1..50,KWD>*=..3000,*=..10000');
  const rules = (parsed as { rules: CorridorRule[] }).rules;
  it('apply to currency codes whatever their letter case', () => {
    for (const [src, dst] of [
      ['USD', 'BRL'],
      ['usd', 'brl'],
      ['Usd', 'Brl'],
    ])
      expect(sendAmountProblem('sourceAmount', '5000', { sourceCurrency: src!, destinationCurrency: dst! }, rules)?.message).toBe(
        'sourceAmount must not exceed 50.00 USD per transfer for USD to BRL',
      );
    expect(sendAmountProblem('sourceAmount', '50', { sourceCurrency: 'usd', destinationCurrency: 'brl' }, rules)).toBeNull();
  });
  it('minor units follow the code whatever its letter case', () => {
    expect(minorUnits('kwd')).toBe(3);
    expect(minorUnits('jpy')).toBe(0);
    expect(sendAmountProblem('sourceAmount', '1.2345', { sourceCurrency: 'kwd', destinationCurrency: 'BRL' }, rules)?.message).toBe(
      'sourceAmount has more decimals than KWD allows',
    );
  });
});
