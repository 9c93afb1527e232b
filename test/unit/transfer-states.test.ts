import { allTransitions, isTerminal, refusal, TERMINAL, TRANSFER_STATUSES, CAUSES } from '../../src/modules/transfer/transfer.states';

describe('transfer transition table', () => {
  test('terminal states have no way out', () => {
    for (const from of TERMINAL)
      for (const to of TRANSFER_STATUSES) for (const c of CAUSES) if (from !== to) expect(refusal(from, to, c)).toMatch(/terminal/);
  });
  test('every status except PENDING is reachable; every non-terminal status has a way forward', () => {
    const targets = new Set(allTransitions().map((t) => t.to));
    for (const s of TRANSFER_STATUSES) if (s !== 'PENDING') expect(targets.has(s)).toBe(true);
    const sources = new Set(allTransitions().map((t) => t.from));
    for (const s of TRANSFER_STATUSES) expect(sources.has(s)).toBe(!isTerminal(s));
  });
  test('no money state goes back to an earlier one', () => {
    expect(refusal('CAPTURED', 'AUTHORIZED', 'worker')).not.toBeNull();
    expect(refusal('CAPTURED', 'VOIDED', 'mutation')).not.toBeNull();
    expect(refusal('AUTHORIZED', 'PENDING', 'worker')).not.toBeNull();
    expect(refusal('PAYOUT_PENDING', 'CAPTURED', 'webhook')).not.toBeNull();
  });
  test('causes are checked: payout moves only by webhook, resume only by mutation', () => {
    expect(refusal('CAPTURED', 'COMPLETED', 'webhook')).toBeNull();
    expect(refusal('CAPTURED', 'COMPLETED', 'mutation')).toMatch(/not allowed for cause/);
    expect(refusal('ACTION_REQUIRED', 'PENDING', 'mutation')).toBeNull();
    expect(refusal('ACTION_REQUIRED', 'PENDING', 'worker')).toMatch(/not allowed/);
  });
});
