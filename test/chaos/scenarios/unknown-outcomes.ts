/**
 * 2. Unknown outcomes: the sandbox commits 30 % of payment, capture and void requests and then drops the
 * answer (socket destroyed). Every transfer must still resolve (its in-order final state, no saga step left
 * PENDING/UNKNOWN) with zero double effects (money checker over the gateway's history and call log).
 */
import { startTestApp } from '../../helpers/app';
import { newPerson } from '../lib/client';
import { pool, rng, fastSagaEnv, type Scenario, withServiceErrors } from '../lib/common';
import { PaymentLedger } from '../lib/ledger';
import { awaitFinal, createOne, decideReviews, oracle, plan, statusCounts, type Target } from '../lib/workload';

export const unknownOutcomes: Scenario = async ({ seed, long, log }) => {
  const n = long ? 500 : 24;
  const r = rng(seed);
  const app = await startTestApp({ ...fastSagaEnv(), UPSTREAM_PAYMENT_TIMEOUT_MS: '5000' });
  const ctx = app.app.sandbox!.ctx;
  const ledger = new PaymentLedger(ctx);
  try {
    const customer = await app.token('chaos-uo-customer', 'customer');
    const staff = await app.token('chaos-uo-staff', 'backoffice');
    const target: Target = { url: () => app.url, customer, staff, personId: await newPerson(app.url, customer) };
    ctx.setFaults({ dropResponseAfterCommitRate: 0.3, seed });
    const items = plan(r, n, `uo-${seed}`);
    log(`unknown outcomes: creating ${n} transfers with 30 % of payment/capture/void answers dropped`);
    await pool(items, 8, (it) => createOne(target, it));
    const decisions = await decideReviews(`${app.app.sandbox!.url}/__sandbox`, items, Date.now() + 60_000 + n * 200);
    const views = await awaitFinal(target, items, 60_000 + n * 1500);
    const violations = oracle(items, views);
    const unsettled = await app.app.db.prisma.sagaStep.count({ where: { state: { in: ['PENDING', 'UNKNOWN'] } } });
    if (unsettled) violations.push(`${unsettled} saga steps left PENDING/UNKNOWN after every transfer settled`);
    const calls = ctx.calls.filter((c) => c.service === 'gateway');
    const money = ledger.check(calls, views);
    violations.push(...money.violations);
    const moneyCalls = calls.filter((c) => c.path === '/gateway/v2/payment' || /\/(capture|void)$/.test(c.path));
    const dropped = moneyCalls.filter((c) => c.status === 0).length;
    const c = ledger.counts();
    return {
      id: 2,
      name: 'unknown outcomes',
      operations: n + decisions,
      faults: dropped,
      figures: {
        transfers: n,
        'money calls': moneyCalls.length,
        'answers dropped after commit': `${dropped} (${((100 * dropped) / Math.max(1, moneyCalls.length)).toFixed(0)} %)`,
        'gateway effects': `${c.authorized} auth / ${c.captured} capture / ${c.released} void`,
        final: statusCounts(views),
        'authorized = captured + released + held': `${money.figures.authorized} = ${money.figures.captured} + ${money.figures.released} + ${money.figures.stillAuthorized}`,
      },
      violations,
    };
  } catch (e) {
    throw withServiceErrors(e, app.logs);
  } finally {
    ctx.setFaults({ dropResponseAfterCommitRate: 0 });
    ledger.detach();
    await app.close();
  }
};
