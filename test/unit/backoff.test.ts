import { backoffDelay } from '../../src/shared/backoff';

describe('backoffDelay', () => {
  it('doubles from the base up to the cap', () => {
    expect([0, 1, 2, 3, 4, 5].map((attempt) => backoffDelay({ baseMs: 250, maxMs: 5_000, attempt }))).toEqual([
      250, 500, 1_000, 2_000, 4_000, 5_000,
    ]);
  });

  it('stops doubling at maxExponent, and stays finite for any count', () => {
    expect(backoffDelay({ baseMs: 100, maxMs: 1e9, attempt: 10, maxExponent: 6 })).toBe(6_400);
    expect(backoffDelay({ baseMs: 250, maxMs: 5_000, attempt: 5_000 })).toBe(5_000);
  });

  it('takes a negative count as the first retry', () => {
    expect(backoffDelay({ baseMs: 100, maxMs: 1_000, attempt: -1 })).toBe(100);
  });

  it('full jitter: a whole number of ms below the delay', () => {
    expect(backoffDelay({ baseMs: 100, maxMs: 1_000, attempt: 2, jitter: 'full', random: () => 0.999 })).toBe(399);
    expect(backoffDelay({ baseMs: 100, maxMs: 1_000, attempt: 2, jitter: 'full', random: () => 0 })).toBe(0);
  });

  it('double jitter: between the delay and twice it', () => {
    expect(backoffDelay({ baseMs: 5, maxMs: 100, attempt: 1, jitter: 'double', random: () => 0.5 })).toBe(15);
    expect(backoffDelay({ baseMs: 5, maxMs: 100, attempt: 9, jitter: 'double', random: () => 0 })).toBe(100);
  });
});
