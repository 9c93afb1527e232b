import { payoutRank, platformRank, platformTarget, quietPairs, valuesBelow } from '../../src/modules/transfer/transfer.platform';
import type { TransferStatus } from '../../src/modules/transfer/transfer.states';

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

  it('a payout that will not happen after the capture sends the money back (REFUND_PENDING), never FAILED', () => {
    expect(platformTarget('CAPTURED', facts('PayoutRejected'))).toMatchObject({
      to: 'REFUND_PENDING',
      failureCode: 'PAYOUT_PAYOUTREJECTED',
    });
    expect(platformTarget('PAYOUT_PENDING', facts('WaitingPayout', 'ERROR'))).toMatchObject({
      to: 'REFUND_PENDING',
      failureCode: 'PAYOUT_ERROR',
    });
    expect(platformTarget('CAPTURED', facts('WaitingPayout', 'DECLINED'))).toMatchObject({
      to: 'REFUND_PENDING',
      failureCode: 'PAYOUT_DECLINED',
    });
    expect(platformTarget('PAYOUT_PENDING', facts('Cancelled'))).toMatchObject({ to: 'REFUND_PENDING', failureCode: 'PAYOUT_CANCELLED' });
    // the saga decides in REFUND_PENDING (refund, or COMPLETED when paid out before a cancellation reached it)
    expect(platformTarget('REFUND_PENDING', facts('Paid'))).toBeNull();
    expect(platformTarget('REFUND_PENDING', facts('Cancelled'))).toBeNull();
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

  it('a mere fact is recognised where it calls for no move (quietPairs), and forwards only (valuesBelow)', () => {
    // PaymentProcessing moves nothing — except where a payout failure is already known after the capture
    const pairs = quietPairs('status', 'PaymentProcessing')!;
    expect(pairs).toEqual(expect.arrayContaining(['PENDING|', 'AUTHORIZED|', 'CAPTURED|PENDING', 'PAYOUT_PENDING|']));
    expect(pairs).not.toContain('CAPTURED|ERROR');
    for (const p of pairs) {
      const [status, other] = p.split('|') as [TransferStatus, string];
      expect(platformTarget(status, { upstreamTransactionStatus: 'PaymentProcessing', payoutStatus: other || null })).toBeNull();
    }
    // values that move a transfer once captured are not tried as mere facts
    expect(quietPairs('status', 'Paid')).toBeNull();
    expect(quietPairs('status', 'WaitingPayout')).toBeNull();
    expect(quietPairs('payout', 'ERROR')).toBeNull();
    expect(quietPairs('payout', 'CAPTURED')).toEqual(expect.arrayContaining(['AUTHORIZED|', 'CAPTURED|PaymentCaptured']));
    expect(valuesBelow('status', 'ProcessingPayout')).toEqual(['Created', 'PaymentProcessing', 'WaitingChallenge3ds', 'PaymentAuthorized']);
    expect(valuesBelow('payout', 'PENDING')).toEqual(['AUTHORIZED']);
  });
});
