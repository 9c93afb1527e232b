import { payoutRank, platformRank, platformTarget } from '../../src/modules/transfers/transfer.platform';

const facts = (upstreamTransactionStatus: string | null, payoutStatus: string | null = null) => ({
  upstreamTransactionStatus,
  payoutStatus,
});

describe('platformTarget: the status the latest platform facts call for', () => {
  it('moves a captured transfer on with payout progress, whatever arrived first', () => {
    expect(platformTarget('CAPTURED', facts('WaitingPayout'))).toEqual({ to: 'PAYOUT_PENDING' });
    expect(platformTarget('CAPTURED', facts('Paid'))).toEqual({ to: 'COMPLETED' });
    expect(platformTarget('CAPTURED', facts('Completed'))).toEqual({ to: 'COMPLETED' });
    expect(platformTarget('PAYOUT_PENDING', facts('Completed'))).toEqual({ to: 'COMPLETED' });
    expect(platformTarget('PAYOUT_PENDING', facts('WaitingPayout'))).toBeNull();
  });

  it('fails the payout leg on platform or payout errors', () => {
    expect(platformTarget('CAPTURED', facts('PayoutRejected'))?.to).toBe('FAILED');
    expect(platformTarget('PAYOUT_PENDING', facts('WaitingPayout', 'ERROR'))).toMatchObject({ to: 'FAILED', failureCode: 'PAYOUT_ERROR' });
  });

  it('asks nothing of a transfer whose own step has not caught up (the facts wait on the row)', () => {
    expect(platformTarget('AUTHORIZED', facts('Completed'))).toBeNull();
    expect(platformTarget('PENDING', facts('Completed'))).toBeNull();
  });

  it("follows the platform's own release of an authorization", () => {
    expect(platformTarget('AUTHORIZED', facts('Voided'))).toEqual({ to: 'VOIDED' });
    expect(platformTarget('AUTHORIZED', facts('Cancelled'))).toMatchObject({ to: 'EXPIRED', failureCode: 'AUTHORIZATION_CANCELLED' });
  });

  it('never touches terminal transfers', () => {
    for (const s of ['COMPLETED', 'VOIDED', 'EXPIRED', 'FAILED', 'DECLINED', 'REJECTED'] as const) {
      expect(platformTarget(s, facts('Completed', 'ERROR'))).toBeNull();
    }
  });

  it('ranks facts so they only move forward', () => {
    expect(platformRank('Created')).toBeLessThan(platformRank('PaymentCaptured'));
    expect(platformRank('Paid')).toBeLessThan(platformRank('Completed'));
    expect(platformRank('NoSuchStatus')).toBe(-2);
    expect(payoutRank('AUTHORIZED')).toBeLessThan(payoutRank('PENDING'));
    expect(payoutRank('PENDING')).toBeLessThan(payoutRank('CAPTURED'));
    expect(payoutRank('CAPTURED')).toBeLessThan(payoutRank('VOIDED'));
    expect(payoutRank('SETTLED')).toBe(-2);
  });

  it('a cancellation requested is not the end: the Cancelled or Voided that follows still applies', () => {
    expect(platformRank('CancelRequested')).toBeGreaterThan(platformRank('Paid'));
    expect(platformRank('CancelRequested')).toBeLessThan(platformRank('Cancelled'));
    expect(platformRank('CancelRequested')).toBeLessThan(platformRank('Voided'));
  });
});
