/**
 * 9. Money back under faults: payouts the platform rejects after the capture, owners cancelling before and after the
 * capture, back-office partial refunds of completed transfers — while the sandbox commits 30 % of payment, capture,
 * void and refund requests and drops the answer, refuses 10 % of every upstream call (503) before doing anything, and duplicates and shuffles its webhooks (a cancellation's events
 * arrive twice and out of order). Every transfer must end where its story leads (REFUNDED, VOIDED, COMPLETED with
 * its refunds, as many refunds as its story makes), and the money checker must find no double effect: ≤ 1
 * authorization, capture and void per transfer, no refund without a capture, refunds never above the capture, each
 * refund id once, a REFUNDED transfer's refunds equal to what was taken, the service's refundedAmount equal to the
 * gateway's.
 */
import Decimal from 'decimal.js';
import { startTestApp } from '../../helpers/app';
import { code, CREATE, gqlRaw, kindInput, newPerson, readTransfers, VIEW_FIELDS } from '../lib/client';
import { pool, rng, fastSagaEnv, sleep, type Scenario, withServiceErrors } from '../lib/common';
import { PaymentLedger, type TransferView } from '../lib/ledger';
import { statusCounts } from '../lib/workload';

type Story = 'payoutReject' | 'cancelBefore' | 'cancelAfter' | 'refundAfter';
const STORIES: Story[] = ['payoutReject', 'cancelBefore', 'cancelAfter', 'refundAfter'];
const ENDS: Record<Story, string> = { payoutReject: 'REFUNDED', cancelBefore: 'VOIDED', cancelAfter: 'REFUNDED', refundAfter: 'COMPLETED' };
/**
 * Refunds each story makes at the gateway (distinct refund ids): one of everything taken, none, or back-office's two
 * (40.00, then the rest). Sums alone would not see a refund made twice under two ids followed by a smaller "rest".
 */
const REFUNDS: Record<Story, number> = { payoutReject: 1, cancelBefore: 0, cancelAfter: 1, refundAfter: 2 };
const TRANSIENT = new Set(['SERVICE_UNAVAILABLE', 'UPSTREAM_UNAVAILABLE', 'IDEMPOTENCY_IN_PROGRESS', 'RATE_LIMITED']);

export const moneyBack: Scenario = async ({ seed, long, log }) => {
  const n = long ? 120 : 16;
  const r = rng(seed);
  const app = await startTestApp({ ...fastSagaEnv(), SAGA_RECONCILE_AFTER_MS: '1000', UPSTREAM_PAYMENT_TIMEOUT_MS: '5000' });
  const ctx = app.app.sandbox!.ctx;
  const ledger = new PaymentLedger(ctx);
  const violations: string[] = [];
  let mutations = 0;
  try {
    const customer = await app.token('chaos-mb-customer', 'customer');
    const staff = await app.token('chaos-mb-staff', 'backoffice');
    const personId = await newPerson(app.url, customer);
    const reviewer = await newPerson(app.url, customer, 'Compliance-Review');
    ctx.setFaults({ dropResponseAfterCommitRate: 0.3, errorRate: 0.1, webhookDuplicateRate: 0.3, webhookShuffle: true, seed });
    const items = Array.from({ length: n }, (_, i) => ({ i, story: STORIES[(i + Math.floor(r.next() * 4)) % 4]!, id: '' }));
    log(
      `money back: ${n} transfers (payout rejected, cancelled before / after the capture, refunded by back-office) under dropped answers and duplicated, shuffled webhooks`,
    );

    /** A mutation retried with the same idempotency key through transient refusals; `done` codes end it too. */
    const mutate = async (query: string, variables: Record<string, unknown>, token: string, done: string[] = []) => {
      for (let attempt = 0; attempt < 60; attempt++) {
        mutations++;
        const res = await gqlRaw(app.url, query, variables, token);
        const c = code(res);
        if (res.body?.data && !res.body.errors) return { ok: true as const, res };
        if (c && done.includes(c)) return { ok: false as const, code: c, res };
        if (res.status !== 0 && c && !TRANSIENT.has(c)) throw new Error(`${query.slice(0, 40)}…: ${res.text.slice(0, 300)}`);
        await sleep(150);
      }
      throw new Error(`${query.slice(0, 40)}…: no answer after 60 attempts`);
    };
    const read = async (id: string) => (await readTransfers(app.url, staff, [id]))[0]!;
    const until = async (id: string, statuses: string[], ms = 60_000, also: (t: TransferView) => boolean = () => true) => {
      const end = Date.now() + ms;
      for (;;) {
        const t = await read(id);
        if (statuses.includes(t.status) && also(t)) return t;
        if (Date.now() > end) throw new Error(`transfer ${id}: ${t.status}, waited for ${statuses.join('|')}`);
        await sleep(100);
      }
    };
    const QUOTE = 'mutation($i: CreateQuoteInput!) { createQuote(input: $i) { id } }';
    const CANCEL = `mutation($i: CancelTransferInput!) { cancelTransfer(input: $i) { ${VIEW_FIELDS} } }`;
    const CAPTURE = `mutation($i: CaptureTransferInput!) { captureTransfer(input: $i) { ${VIEW_FIELDS} } }`;
    const REFUND = `mutation($i: RefundTransferInput!) { refundTransfer(input: $i) { ${VIEW_FIELDS} } }`;

    await pool(items, 6, async (it) => {
      const key = `mb-${seed}-${it.i}`;
      // through the same retries as the money: 10 % of every upstream call is refused (503) meanwhile
      const quote = await mutate(
        QUOTE,
        { i: { sourceCurrency: 'USD', destinationCurrency: 'BRL', paymentMethod: 'CARD', sourceAmount: '100.00' } },
        customer,
      );
      const quoteId: string = quote.res.body!.data.createQuote.id;
      const held = it.story === 'cancelBefore' || it.story === 'cancelAfter';
      const input = kindInput(
        it.story === 'payoutReject' ? 'payoutReject' : held ? 'review' : 'happy',
        quoteId,
        held ? reviewer : personId,
        key,
      );
      const created = await mutate(CREATE, { i: input }, customer);
      it.id = created.res.body!.data.createTransfer.id;
      if (held) {
        await until(it.id, ['AUTHORIZED']);
        if (it.story === 'cancelAfter') {
          await mutate(CAPTURE, { i: { transferId: it.id, idempotencyKey: `${key}-capture` } }, staff);
          await until(it.id, ['CAPTURED']);
        }
        await mutate(CANCEL, { i: { transferId: it.id, idempotencyKey: `${key}-cancel` } }, customer);
        // the same cancellation again (a client retry): the same answer, nothing more
        await mutate(CANCEL, { i: { transferId: it.id, idempotencyKey: `${key}-cancel` } }, customer);
      }
      if (it.story === 'refundAfter') {
        await until(it.id, ['COMPLETED']);
        await mutate(REFUND, { i: { transferId: it.id, idempotencyKey: `${key}-r1`, amount: '40.00', reason: 'goodwill (chaos)' } }, staff);
        await mutate(REFUND, { i: { transferId: it.id, idempotencyKey: `${key}-r1`, amount: '40.00', reason: 'goodwill (chaos)' } }, staff);
        // one refund at a time: the next waits until this one settled (a refused upstream call leaves it to the worker)
        const done = await until(it.id, ['COMPLETED'], 60_000, (t) => t.refundedAmount?.amount === '40.00');
        // one cent beyond what is left (the total captured — amount and fee — less the 40.00) is refused; then the rest
        const beyondLeft = new Decimal(done.total.amount).minus('40.00').plus('0.01').toFixed(2);
        const beyond = await mutate(
          REFUND,
          { i: { transferId: it.id, idempotencyKey: `${key}-r2`, amount: beyondLeft, reason: 'too much' } },
          staff,
          ['BAD_USER_INPUT', 'INVALID_STATE'],
        );
        if (beyond.ok) violations.push(`transfer ${it.id}: a refund above what was left was accepted`);
        await mutate(REFUND, { i: { transferId: it.id, idempotencyKey: `${key}-r3`, reason: 'the rest (chaos)' } }, staff, []);
      }
    });

    // every story to its end (refunds whose answers were dropped are retried by the worker with the same id)
    const end = Date.now() + 90_000 + n * 1_000;
    let views: TransferView[] = [];
    for (;;) {
      views = await readTransfers(
        app.url,
        staff,
        items.map((it) => it.id),
      );
      const settled = await app.app.db.prisma.sagaStep.count({ where: { state: { in: ['PENDING', 'UNKNOWN'] } } });
      const full = (v: TransferView) => v.status !== 'COMPLETED' || v.refundedAmount?.amount === v.capturedAmount?.amount;
      if (settled === 0 && views.every((v, k) => v.status === ENDS[items[k]!.story] && full(v))) break;
      if (Date.now() > end) {
        violations.push(`not settled in time: ${statusCounts(views)}, ${settled} saga steps unsettled`);
        break;
      }
      await sleep(250);
    }
    for (const [k, it] of items.entries()) {
      const v = views[k]!;
      if (v.status !== ENDS[it.story]) violations.push(`transfer ${it.id} (${it.story}): ${v.status}, its story ends ${ENDS[it.story]}`);
      if (it.story !== 'cancelBefore' && v.refundedAmount?.amount !== v.capturedAmount?.amount)
        violations.push(`transfer ${it.id} (${it.story}): refunded ${v.refundedAmount?.amount} of ${v.capturedAmount?.amount} captured`);
      const refunds = ledger.byKey.get(it.id)?.refunds.size ?? 0;
      if (refunds !== REFUNDS[it.story])
        violations.push(`transfer ${it.id} (${it.story}): ${refunds} refunds at the gateway, its story makes ${REFUNDS[it.story]}`);
    }
    const calls = ctx.calls.filter((c) => c.service === 'gateway');
    const money = ledger.check(calls, views);
    violations.push(...money.violations);
    const refundCalls = calls.filter((c) => c.path.endsWith('/refund'));
    const dropped = calls.filter((c) => c.status === 0).length;
    const refused = ctx.calls.filter((c) => c.status === 503).length; // every upstream, not only the gateway
    const c = ledger.counts();
    return {
      id: 9,
      name: 'money back',
      operations: n + mutations,
      faults: dropped + refused,
      figures: {
        transfers: n,
        'refund calls': `${refundCalls.length} (${refundCalls.filter((x) => x.status === 0).length} answers dropped after commit, ${refundCalls.filter((x) => x.status === 503).length} refused 503)`,
        'upstream calls refused 503': refused,
        'gateway effects': `${c.authorized} auth / ${c.captured} capture / ${c.released} void / ${c.refunds} refunds`,
        final: statusCounts(views),
        'captured = refunded (+ kept by COMPLETED without refunds)': `${money.figures.captured} / refunded ${money.figures.refunded}`,
      },
      violations,
    };
  } catch (e) {
    throw withServiceErrors(e, app.logs);
  } finally {
    ctx.setFaults({ dropResponseAfterCommitRate: 0, webhookDuplicateRate: 0, webhookShuffle: false });
    ledger.detach();
    await app.close();
  }
};
