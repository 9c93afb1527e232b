/**
 * The saga's decisions (transfer.decisions.ts), one status and one cause at a time, on plain rows — and the run that
 * carries them out (transfer.run.ts) against a fake step log and lease table. Every move a decision asks for must be
 * one the transition table allows for the cause it is recorded with.
 */
import { transferRow } from '../helpers/transfer-row';
import { Prisma, type SagaStep } from '../../src/generated/prisma/client';
import {
  afterAuthorization,
  afterCheck,
  afterPayment,
  afterRefund,
  authorizationRefused,
  causeFor,
  decide,
  nextRefundStep,
  type DecisionInput,
  type Move,
  type SagaDecision,
} from '../../src/modules/transfer/transfer.decisions';
import type { MoneyStepRequest } from '../../src/modules/transfer/transfer.columns';
import type { TransferLeases } from '../../src/modules/transfer/transfer.leases';
import type { TransferRow } from '../../src/modules/transfer/transfer.repository';
import { SagaRun } from '../../src/modules/transfer/transfer.run';
import type { Settlement } from '../../src/modules/transfer/transfer.steps';
import type { SagaStepLog } from '../../src/modules/transfer/transfer.steps.repository';
import {
  CAUSES,
  isTerminal,
  refusal,
  TRANSFER_STATUSES,
  type Cause,
  type TransferStatus,
} from '../../src/modules/transfer/transfer.states';

const NOW = Date.parse('2026-06-01T12:00:00Z');
const WINDOW_MS = 60 * 60_000;
const D = (v: string) => new Prisma.Decimal(v);

const ADDRESS = { line1: '1 Main St', city: 'Austin', region: 'TX', postalCode: '78701', countryCode: 'US' };
const details = (over: Record<string, unknown> = {}) => ({
  ipAddress: '203.0.113.7',
  fxId: 'fx-1',
  quoteExpiresAt: new Date(NOW + 60_000).toISOString(),
  sender: {
    customer: {
      firstName: 'Ana',
      lastName: 'Lima',
      email: 'a@example.com',
      phoneNumber: '+15550100',
      documentNumber: 'D1',
      documentType: 'ID',
      countryCode: 'US',
    },
    address: ADDRESS,
  },
  recipient: { customer: { firstName: 'Rui', lastName: 'Sá' }, address: ADDRESS, destination: { type: 'WALLET', walletId: 'w-1' } },
  funding: { type: 'CARD', cardToken: 'tok_card' },
  ...over,
});

function row(over: Partial<TransferRow> = {}): TransferRow {
  return transferRow({
    id: 't-1',
    feeAmount: D('3.99'),
    details: details() as Prisma.JsonValue,
    createdAt: new Date(NOW - 60_000),
    updatedAt: new Date(NOW - 60_000),
    ...over,
  });
}

function step(name: string, state: SagaStep['state'], request: unknown = {}, response: unknown = null): SagaStep {
  return {
    id: `s-${name}`,
    transferId: 't-1',
    step: name,
    idempotencyKey: `pay-1:${name}`,
    state,
    attempts: 0,
    request: request as Prisma.JsonValue,
    response: response as Prisma.JsonValue,
    lastError: null,
    createdAt: new Date(NOW),
    updatedAt: new Date(NOW),
  } as SagaStep;
}

/** Who starts a run: a mutation, the worker or a platform event (`timer` is a cause decisions record, never a run's). */
const RUN_CAUSES = CAUSES.filter((c) => c !== 'timer');

const stepsOf = (...s: SagaStep[]) => new Map(s.map((x) => [x.step, x]));

/** Every decision the cases below saw, with the status and cause it was made in (checked against the table at the end). */
const seen: { from: TransferStatus; cause: Cause; d: SagaDecision }[] = [];

function decideOn(t: TransferRow, steps: SagaStep[] = [], cause: Cause = 'worker', now = NOW): SagaDecision {
  const status = t.status as TransferStatus;
  const input: DecisionInput = { t, steps: stepsOf(...steps), now, cause: causeFor(status, cause), captureWindowMs: WINDOW_MS };
  const d = decide(input);
  seen.push({ from: status, cause: input.cause, d });
  return d;
}

const moveOf = (d: SagaDecision): Move => {
  if (d.kind !== 'move') throw new Error(`expected a move, got ${d.kind}`);
  return d.move;
};

describe('causeFor: the cause a run records its moves with', () => {
  it.each(TRANSFER_STATUSES.flatMap((s) => CAUSES.map((c) => [s, c] as const)))('%s, %s', (status, cause) => {
    const before = status === 'PENDING' || status === 'ACTION_REQUIRED';
    expect(causeFor(status, cause)).toBe(before ? 'worker' : cause);
  });
});

describe('what comes first, in every status', () => {
  const terminal = TRANSFER_STATUSES.filter((s) => isTerminal(s));
  const open = TRANSFER_STATUSES.filter((s) => !isTerminal(s));

  it.each(terminal.flatMap((s) => RUN_CAUSES.map((c) => [s, c] as const)))('%s (%s) rests', (status, cause) => {
    expect(decideOn(row({ status }), [step('capture', 'PENDING')], cause)).toEqual({ kind: 'rest' });
  });

  it.each(TRANSFER_STATUSES)('%s: an unsettled refund is run first (a back-office refund of a COMPLETED transfer too)', (status) => {
    const refund = step('refund:2', 'UNKNOWN');
    expect(decideOn(row({ status }), [step('refund:1', 'SUCCEEDED'), refund, step('void', 'PENDING')])).toEqual({
      kind: 'run',
      step: refund,
    });
  });

  it.each(open)('%s: an unsettled void, then capture, then authorization is re-run before anything else', (status) => {
    const [v, c, a] = [step('void', 'PENDING'), step('capture', 'UNKNOWN'), step('authorize', 'PENDING')];
    expect(decideOn(row({ status, cancelRequestedAt: new Date(NOW) }), [a, c, v])).toEqual({ kind: 'run', step: v });
    expect(decideOn(row({ status }), [a, c])).toEqual({ kind: 'run', step: c });
    expect(decideOn(row({ status }), [a])).toEqual({ kind: 'run', step: a });
  });
});

describe('PENDING and ACTION_REQUIRED: check, then authorize', () => {
  it.each(RUN_CAUSES)('a funding check comes first (%s); a check that did not approve is run again (its move was lost)', (cause) => {
    expect(decideOn(row(), [], cause)).toEqual({ kind: 'check', existing: undefined });
    const pending = step('check', 'PENDING');
    expect(decideOn(row(), [pending], cause)).toEqual({ kind: 'check', existing: pending });
    const challenged = step('check', 'SUCCEEDED', {}, { outcome: 'CHALLENGE' });
    expect(decideOn(row(), [challenged], cause)).toEqual({ kind: 'check', existing: challenged });
  });

  it('an approved check starts the authorization under the row lock, with the payment id and the quote', () => {
    expect(decideOn(row(), [step('check', 'SUCCEEDED', {}, { outcome: 'APPROVED' })])).toEqual({
      kind: 'start',
      step: 'authorize',
      request: { externalPaymentId: 'pay-1', fxId: 'fx-1' },
    });
  });

  it.each(RUN_CAUSES)('cancelled before any authorization (%s): VOIDED, nothing to release', (cause) => {
    const m = moveOf(decideOn(row({ cancelRequestedAt: new Date(NOW) }), [], cause));
    expect(m).toMatchObject({ to: 'VOIDED', patch: { failureCode: 'CANCELLED_BY_CUSTOMER' } });
    expect(m.cause).toBeUndefined(); // the run's: worker
  });

  it.each(['PENDING', 'ACTION_REQUIRED'] as const)('%s past the quote: EXPIRED by the timer', (status) => {
    const t = row({ status, details: details({ quoteExpiresAt: new Date(NOW - 1).toISOString() }) as Prisma.JsonValue });
    expect(moveOf(decideOn(t))).toMatchObject({ to: 'EXPIRED', cause: 'timer', patch: { failureCode: 'QUOTE_EXPIRED' } });
  });

  it('ACTION_REQUIRED waits for the customer until just after the quote expires', () => {
    const expires = new Date(NOW + 60_000);
    expect(decideOn(row({ status: 'ACTION_REQUIRED' }))).toEqual({ kind: 'wait', until: new Date(expires.getTime() + 1) });
  });

  it('a stored ACCOUNT_TOKEN transfer is not authorized: FAILED, nothing taken', () => {
    const t = row({ details: details({ funding: { type: 'ACCOUNT_TOKEN', accountToken: 'a' } }) as Prisma.JsonValue });
    expect(moveOf(decideOn(t))).toMatchObject({ to: 'FAILED', patch: { failureCode: 'FUNDING_NOT_OFFERED' } });
  });

  it('a settled authorization still PENDING (a crash between two writes) is applied', () => {
    const approved = step('authorize', 'SUCCEEDED', {}, { paymentId: 'p', status: 'AUTHORIZED', approved: true, message: null });
    expect(moveOf(decideOn(row(), [approved]))).toMatchObject({ to: 'AUTHORIZED' });
  });
});

describe('AUTHORIZED: capture on approval, release otherwise', () => {
  const authorized = (over: Partial<TransferRow> = {}) => row({ status: 'AUTHORIZED', authorizedAt: new Date(NOW - 1000), ...over });

  it.each(RUN_CAUSES)('compliance Approved (%s): the capture starts under the row lock', (cause) => {
    expect(decideOn(authorized({ complianceStatus: 'Approved' }), [], cause)).toEqual({
      kind: 'start',
      step: 'capture',
      request: { amount: null, requestedBy: 'compliance Approved' },
    });
  });

  it.each([
    ['a cancel', { cancelRequestedAt: new Date(NOW) }, { target: 'VOIDED', failureCode: 'CANCELLED_BY_CUSTOMER', requestedBy: 'cancel' }],
    ['a token PULL', { fundingType: 'account_token' }, { target: 'VOIDED', failureCode: 'FUNDING_NOT_OFFERED', requestedBy: 'no payout' }],
    [
      'compliance Rejected',
      { complianceStatus: 'Rejected' },
      { target: 'VOIDED', failureCode: 'COMPLIANCE_REJECTED', requestedBy: 'compliance Rejected' },
    ],
  ] as const)('%s voids the authorization', (_, over, request) => {
    expect(decideOn(authorized(over as Partial<TransferRow>))).toEqual({ kind: 'start', step: 'void', request });
  });

  it.each(RUN_CAUSES)(
    'an approval arriving after a cancel (%s) does not capture: the cancel wins, the authorization is released',
    (cause) => {
      const d = decideOn(authorized({ cancelRequestedAt: new Date(NOW - 500), complianceStatus: 'Approved' }), [], cause);
      expect(d).toEqual({
        kind: 'start',
        step: 'void',
        request: { target: 'VOIDED', failureCode: 'CANCELLED_BY_CUSTOMER', requestedBy: 'cancel' },
      });
    },
  );

  it('the capture window ends: the void is the timer’s', () => {
    expect(decideOn(authorized({ authorizedAt: new Date(NOW - WINDOW_MS) }), [], 'mutation')).toEqual({
      kind: 'start',
      step: 'void',
      request: { target: 'EXPIRED', failureCode: 'CAPTURE_WINDOW_EXPIRED', cause: 'timer' },
      cause: 'timer',
    });
  });

  it('a capture refused for good is compensated by a void', () => {
    expect(decideOn(authorized({ complianceStatus: 'Approved' }), [step('capture', 'FAILED')])).toMatchObject({
      kind: 'start',
      step: 'void',
      request: { failureCode: 'CAPTURE_FAILED' },
    });
  });

  it('waiting on compliance: on the platform, until the window ends at the latest', () => {
    expect(decideOn(authorized())).toEqual({ kind: 'wait-on-platform', until: NOW - 1000 + WINDOW_MS });
  });

  it.each(RUN_CAUSES)('a settled capture or void not applied yet is applied (%s)', (cause) => {
    const captured = step('capture', 'SUCCEEDED', { amount: null }, { status: 'CAPTURED' });
    expect(moveOf(decideOn(authorized(), [captured], cause))).toMatchObject({ to: 'CAPTURED', patch: { capturedAmount: '103.99' } });
    const voided = step('void', 'SUCCEEDED', { target: 'EXPIRED', failureCode: 'CAPTURE_WINDOW_EXPIRED' }, { status: 'VOIDED' });
    expect(moveOf(decideOn(authorized(), [voided], cause))).toMatchObject({
      to: 'EXPIRED',
      patch: { failureCode: 'CAPTURE_WINDOW_EXPIRED' },
    });
  });

  it('a settled step whose payment state moves nothing stops the run as it is', () => {
    expect(decideOn(authorized(), [step('capture', 'SUCCEEDED', {}, { status: 'AUTHORIZED' })])).toEqual({ kind: 'stop' });
  });

  it.each([
    ['Voided', 'VOIDED'],
    ['Cancelled', 'EXPIRED'],
  ] as const)('the platform reports %s while nothing of ours is in flight: %s, by webhook', (tx, to) => {
    expect(moveOf(decideOn(authorized({ upstreamTransactionStatus: tx })))).toMatchObject({ to, cause: 'webhook' });
  });
});

describe('CAPTURED and PAYOUT_PENDING: follow the payout', () => {
  it.each(['CAPTURED', 'PAYOUT_PENDING'] as const)('%s: platform facts recorded first are followed (webhook)', (status) => {
    expect(moveOf(decideOn(row({ status, upstreamTransactionStatus: 'Paid' })))).toMatchObject({ to: 'COMPLETED', cause: 'webhook' });
    expect(moveOf(decideOn(row({ status, upstreamTransactionStatus: 'PayoutRejected' })))).toMatchObject({
      to: 'REFUND_PENDING',
      patch: { failureCode: 'PAYOUT_PAYOUTREJECTED' },
    });
  });

  it('CAPTURED moves on to PAYOUT_PENDING once the platform waits for the payout', () => {
    expect(moveOf(decideOn(row({ status: 'CAPTURED', upstreamTransactionStatus: 'WaitingPayout' })))).toMatchObject({
      to: 'PAYOUT_PENDING',
    });
  });

  it.each(RUN_CAUSES)('a cancel after the capture (%s) sends the money back: REFUND_PENDING', (cause) => {
    const m = moveOf(decideOn(row({ status: 'PAYOUT_PENDING', cancelRequestedAt: new Date(NOW) }), [], cause));
    expect(m).toMatchObject({ to: 'REFUND_PENDING', cause: cause === 'mutation' ? 'mutation' : 'worker' });
  });

  it('a captured token PULL pays no recipient: REFUND_PENDING; otherwise the platform is waited on', () => {
    expect(moveOf(decideOn(row({ status: 'CAPTURED', fundingType: 'account_token' })))).toMatchObject({
      to: 'REFUND_PENDING',
      patch: { failureCode: 'FUNDING_NOT_OFFERED' },
    });
    expect(decideOn(row({ status: 'CAPTURED' }))).toEqual({ kind: 'wait-on-platform', until: null });
  });
});

describe('REFUND_PENDING: the money goes back once the payout is known to be none', () => {
  const pending = (over: Partial<TransferRow> = {}) => row({ status: 'REFUND_PENDING', capturedAmount: D('103.99'), ...over });

  it.each(RUN_CAUSES)('a stopped payout (%s) refunds all that is left, one step at a time', (cause) => {
    const d = decideOn(
      pending({ upstreamTransactionStatus: 'PayoutRejected', refundedAmount: D('3.99') }),
      [step('refund:1', 'SUCCEEDED')],
      cause,
    );
    expect(d).toEqual({
      kind: 'refund',
      step: 'refund:2',
      request: {
        amount: '100.00',
        kind: 'PAYOUT_FAILED',
        reason: 'the payout failed (PAYOUT_PAYOUTREJECTED)',
        requestedBy: 'worker',
        idempotencyKey: null,
      },
    });
  });

  it('all of it refunded: REFUNDED', () => {
    expect(moveOf(decideOn(pending({ upstreamTransactionStatus: 'Cancelled', refundedAmount: D('103.99') })))).toMatchObject({
      to: 'REFUNDED',
      cause: 'worker',
    });
  });

  it('a refund the gateway refused waits for a person', () => {
    expect(decideOn(pending({ upstreamTransactionStatus: 'Cancelled' }), [step('refund:1', 'FAILED')])).toMatchObject({
      kind: 'wait',
      until: null,
      attention: { level: 'warn' },
    });
  });

  it('cancelled and not stopped yet: the platform is asked to stop the payout (or the unsettled ask re-run)', () => {
    expect(decideOn(pending({ cancelRequestedAt: new Date(NOW) }))).toEqual({
      kind: 'start',
      step: 'cancel',
      request: { requestedBy: 'cancel' },
    });
    const ask = step('cancel', 'UNKNOWN');
    expect(decideOn(pending({ cancelRequestedAt: new Date(NOW) }), [ask])).toEqual({ kind: 'run', step: ask });
    expect(decideOn(pending({ cancelRequestedAt: new Date(NOW) }), [step('cancel', 'SUCCEEDED')])).toEqual({
      kind: 'wait-on-platform',
      until: null,
    });
  });

  it('the platform has no transaction to pay out: refunded as PAYOUT_NONE', () => {
    const d = decideOn(pending({ cancelRequestedAt: new Date(NOW) }), [step('cancel', 'SUCCEEDED', {}, { status: 'NoTransaction' })]);
    expect(d).toMatchObject({ kind: 'refund', request: { kind: 'CANCELLED', amount: '103.99' } });
  });

  it('paid out before the cancellation reached the platform: COMPLETED, no money moves; after a refund a person decides', () => {
    expect(moveOf(decideOn(pending({ upstreamTransactionStatus: 'Paid' })))).toMatchObject({ to: 'COMPLETED', cause: 'webhook' });
    expect(decideOn(pending({ upstreamTransactionStatus: 'Paid' }), [step('refund:1', 'SUCCEEDED')])).toMatchObject({
      kind: 'wait',
      attention: { level: 'error' },
    });
  });
});

describe('how an upstream answer moves the transfer', () => {
  const t = row();
  it('a card check: a challenge asks for 3-D Secure (with the return address), a failure declines, an approval clears a challenge', () => {
    const d = { threeDSReturnUrl: 'https://app.example/back' };
    expect(afterCheck(t, d, { via: 'card', status: 'CHALLENGE', reasons: [], redirectUrl: 'https://acs.example/c?x=1' })).toMatchObject({
      to: 'ACTION_REQUIRED',
      patch: {
        nextAction: { type: 'THREE_DS_CHALLENGE', redirectUrl: 'https://acs.example/c?x=1&returnUrl=https%3A%2F%2Fapp.example%2Fback' },
      },
    });
    expect(afterCheck(t, d, { via: 'card', status: 'FAILED', reasons: ['CVV'] })).toMatchObject({
      to: 'DECLINED',
      patch: { failureCode: 'CARD_CHECK_FAILED', failureMessage: 'The card check failed: CVV' },
    });
    expect(afterCheck(t, d, { via: 'card', status: 'APPROVED', reasons: [] })).toBeNull();
    const challenged = row({ nextAction: { type: 'THREE_DS_CHALLENGE', redirectUrl: 'x' } });
    expect(afterCheck(challenged, d, { via: 'card', status: 'APPROVED', reasons: [] })).toMatchObject({
      patch: { nextAction: Prisma.JsonNull },
    });
  });

  it('an account check: approved moves nothing, a failure declines with the bank’s message', () => {
    expect(afterCheck(t, {}, { via: 'account', approved: true })).toBeNull();
    expect(afterCheck(t, {}, { via: 'account', approved: false, message: 'closed' })).toMatchObject({
      to: 'DECLINED',
      patch: { failureMessage: 'The bank account check failed: closed' },
    });
  });

  it('an authorization: approved, released meanwhile (then voided), or declined; refused for good', () => {
    expect(afterAuthorization({ paymentId: 'p', status: 'AUTHORIZED', approved: true, message: null }, NOW).move).toMatchObject({
      to: 'AUTHORIZED',
      patch: { authorizedAt: new Date(NOW), nextRunAt: new Date(NOW) },
    });
    expect(afterAuthorization({ paymentId: 'p', status: 'CANCELLED', approved: true, message: null }, NOW).thenVoid).toEqual({
      target: 'EXPIRED',
      failureCode: 'AUTHORIZATION_RELEASED',
    });
    expect(afterAuthorization({ paymentId: 'p', status: 'DECLINED', approved: false, message: 'limit' }, NOW).move).toMatchObject({
      to: 'DECLINED',
      patch: { failureMessage: 'The payment was declined: limit' },
    });
    expect(authorizationRefused('rejected 422 QUOTE_EXPIRED', 'QUOTE_EXPIRED')).toMatchObject({ to: 'EXPIRED' });
    expect(authorizationRefused('rejected 422', null)).toMatchObject({ to: 'FAILED', patch: { failureCode: 'AUTHORIZATION_REJECTED' } });
  });

  const req = (r: Partial<MoneyStepRequest>): MoneyStepRequest =>
    ({ amount: null, target: null, failureCode: null, requestedBy: null, idempotencyKey: null, ...r }) as MoneyStepRequest;
  it.each(CAUSES)('a payment found by a capture or void (%s)', (cause) => {
    expect(afterPayment(t, 'capture', req({ amount: '50.00' }), 'CAPTURED', cause)).toMatchObject({
      to: 'CAPTURED',
      patch: { capturedAmount: '50.00' },
    });
    expect(afterPayment(t, 'void', req({ target: 'EXPIRED', failureCode: 'CAPTURE_WINDOW_EXPIRED' }), 'VOIDED', cause)).toMatchObject({
      to: 'EXPIRED',
    });
    expect(afterPayment(t, 'capture', req({}), 'VOIDED', cause)).toMatchObject({ to: 'VOIDED', patch: {} });
    const cancelled = afterPayment(t, 'void', req({}), 'CANCELLED', cause)!;
    expect(cancelled).toMatchObject({ to: 'EXPIRED', patch: { failureCode: 'AUTHORIZATION_CANCELLED' } });
    expect(cancelled.cause).toBe(cause === 'mutation' ? 'worker' : undefined);
    expect(afterPayment(t, 'capture', req({}), 'AUTHORIZED', cause)).toBeNull();
  });

  it('a refund adds up what went back; refund steps are numbered on', () => {
    const m = afterRefund(row({ refundedAmount: D('10') }), 'refund:2', {
      amount: '5.50',
      kind: 'BACKOFFICE',
      reason: 'r',
      requestedBy: 'staff',
    } as never);
    expect(m.patch).toEqual({ refundedAmount: '15.50' });
    expect(nextRefundStep([{ step: 'check' }, { step: 'refund:1' }, { step: 'refund:3' }])).toBe('refund:4');
  });
});

describe('every move decided above is one the transition table allows', () => {
  it('checks each (from, to, cause)', () => {
    const moves = seen.filter((s) => s.d.kind === 'move' && s.d.move.to);
    expect(moves.length).toBeGreaterThan(20);
    for (const { from, cause, d } of moves) {
      const m = (d as { move: Move }).move;
      expect({ from, to: m.to, cause: m.cause ?? cause, refused: refusal(from, m.to!, m.cause ?? cause) }).toMatchObject({ refused: null });
    }
  });
});

describe('SagaRun: a run’s batching and lease', () => {
  const written: string[] = [];
  const log = {
    load: async () => ({ t: row({ status: 'AUTHORIZED' }), steps: new Map() }),
    write: async (s: Settlement) => {
      written.push(String(s.sql.strings[0]));
      s.written();
    },
  } as unknown as SagaStepLog;
  const releasing: boolean[] = [];
  const leases = { releasing: (_id: string, on: boolean) => releasing.push(on) } as unknown as TransferLeases;
  const settlement = (name: string) => {
    const s = { sql: Prisma.sql([name]), applied: 0, written: () => s.applied++ };
    return s;
  };
  beforeEach(() => {
    written.length = 0;
    releasing.length = 0;
  });

  it('reads the transfer when it has none or is stale, and writes a held result first', async () => {
    const run = new SagaRun('t-1', null, undefined, log, leases);
    const held = settlement('held');
    run.hold(held);
    expect(held.applied).toBe(1); // carried as written at once
    expect(await run.refresh()).toBe(true);
    expect(written).toEqual(['held']);
    expect(run.t?.status).toBe('AUTHORIZED');
  });

  it('a held result goes out with the next write, once; holding two is a bug', async () => {
    const run = new SagaRun('t-1', { t: row(), steps: new Map() }, undefined, log, leases);
    run.hold(settlement('a'));
    expect(() => run.hold(settlement('b'))).toThrow(/already waiting/);
    const taken = run.take()!;
    expect(String(taken.sql.strings[0])).toBe('a');
    expect(run.take()).toBeUndefined();
    await run.flush();
    expect(written).toEqual([]);
  });

  it('the last write releases the lease when it is written, and keeps it when not', async () => {
    const lease = { owner: 'w-1', released: false };
    const run = new SagaRun('t-1', { t: row(), steps: new Map() }, lease, log, leases);
    expect(await run.releaseWith(async () => false)).toBe(false);
    expect(run.holdsLease).toBe(true);
    expect(await run.releaseWith(async (owner) => owner === 'w-1')).toBe(true);
    expect(run.holdsLease).toBe(false);
    expect(releasing).toEqual([true, false, true]);
  });

  it('a refused move or intent makes it stale; a written one is carried', () => {
    const run = new SagaRun('t-1', { t: row(), steps: new Map() }, undefined, log, leases);
    run.moved({ ok: false, transfer: row(), reason: 'x', kind: 'refused' }, NOW);
    expect(run.stale).toBe(true);
    run.stale = false;
    run.intentWritten('authorize', step('authorize', 'PENDING'), new Date(NOW));
    expect(run.steps.get('authorize')?.state).toBe('PENDING');
    expect(run.t?.nextRunAt).toEqual(new Date(NOW));
    run.intentWritten('capture', null, new Date(NOW));
    expect(run.stale).toBe(true);
  });
});
