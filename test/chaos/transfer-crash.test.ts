/**
 * Crash recovery: the built service (node dist/main.js) runs as a child process with SAGA_CRASH_AT=<step>:<phase>,
 * which SIGKILLs it at that boundary of the saga. It is restarted (same PGlite data directory) without the hook,
 * and every transfer must reach a terminal or waiting state, with the sandbox's call log showing one payment key,
 * at most one successful capture and at most one successful void per transfer. The sandbox runs in this test
 * process so it keeps its state across the service's restarts. Capture points: a back-office capture of a transfer
 * held in compliance review; void points: the compliance-reject path (the platform's signed Rejected webhook reaches
 * the service on a fixed port registered once, and the saga voids the authorization) → VOIDED, COMPLIANCE_REJECTED.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../../src/config';
import { AuthService } from '../../src/auth/auth.service';
import { systemClock } from '../../src/shared/clock';
import { gql } from '../helpers/app';
import { spawnService, type ServiceProcess } from '../helpers/process';
import { startTestSandbox, type TestSandbox } from '../helpers/sandbox';
import { waitFor, within } from '../helpers/wait';
import { createServer } from 'node:net';
import { newPerson, newQuote, transferInput, createTransfer, getTransfer } from '../e2e/transfer-helpers';

const ALL_POINTS = [
  'check:before',
  'check:after',
  'authorize:before',
  'authorize:after',
  'capture:before',
  'capture:after',
  'void:before',
  'void:after',
  'cancel:before',
  'cancel:after',
  'refund:before',
  'refund:after',
] as const;
/**
 * By default a subset (each step's riskiest boundary — after the upstream call, when the outcome is unknown
 * to us — plus both void points, and the money-back steps: the platform's cancel and the refund);
 * CRASH_ALL_POINTS=1 runs all twelve (~3.5 min on a loaded 2-core machine).
 */
const DEFAULT_POINTS = [
  'check:after',
  'authorize:after',
  'capture:after',
  'void:before',
  'void:after',
  'cancel:after',
  'refund:after',
] as const;
const POINTS: readonly (typeof ALL_POINTS)[number][] = process.env.CRASH_ALL_POINTS === '1' ? ALL_POINTS : DEFAULT_POINTS;

let sb: TestSandbox;
let dir: string;
let auth: AuthService;
let env: Record<string, string>;
const running: ServiceProcess[] = [];

beforeAll(async () => {
  sb = await startTestSandbox();
  dir = mkdtempSync(join(tmpdir(), 'rbff-crash-'));
  auth = await AuthService.create(loadConfig({ DATA_DIR: dir }).auth, dir, systemClock);
  // A fixed port across restarts, so the platform's webhooks (compliance Rejected → void) reach every incarnation.
  const port = await new Promise<number>((resolve) => {
    const srv = createServer().listen(0, '127.0.0.1', () => {
      const p = (srv.address() as { port: number }).port;
      srv.close(() => resolve(p));
    });
  });
  env = {
    PORT: String(port),
    PUBLIC_URL: `http://127.0.0.1:${port}`,
    DATA_DIR: dir,
    DATABASE_URL: `file:${join(dir, 'pglite')}`,
    GATEWAY_BASE_URL: sb.gatewayUrl,
    REMITTANCES_BASE_URL: sb.remittancesUrl,
    VERIFICATION_BASE_URL: sb.verificationUrl,
    SAGA_LEASE_MS: '1000',
    SAGA_POLL_INTERVAL_MS: '100',
    SAGA_RETRY_BASE_MS: '100',
    RATE_LIMIT_MUTATIONS_PER_MINUTE: '100000',
    RATE_LIMIT_UPSTREAM_POINTS_PER_MINUTE: '100000',
    LOG_LEVEL: 'error',
  };
}, 60_000);

afterAll(async () => {
  for (const p of running) if (p.proc.exitCode === null) p.proc.kill('SIGKILL');
  await sb.close();
  rmSync(dir, { recursive: true, force: true });
});

/** Refunds the gateway committed (its own bus: a replay by the same id is not one), by payment. */
const refunds = new Map<string, number[]>();

test('SIGKILL at saga step boundaries (CRASH_ALL_POINTS=1: every one), restart: every transfer finishes or waits; ≤ 1 payment key, ≤ 1 capture, ≤ 1 void each', async () => {
  sb.ctx.bus.on('payment.refunded', (f) => refunds.set(f.externalPaymentId, [...(refunds.get(f.externalPaymentId) ?? []), f.refundAmount]));
  const customer = await auth.issueDevToken('crash-customer', 'customer');
  const staff = await auth.issueDevToken('crash-staff', 'backoffice');
  const admin = await auth.issueDevToken('crash-admin', 'admin');
  const outcomes: Record<string, string> = {};
  let registered = false;
  for (const point of POINTS) {
    const svc = await spawnService({ ...env, SAGA_CRASH_AT: point }, 60_000);
    running.push(svc);
    if (!registered) {
      // subscribe the service's webhook URL at the (test-process) platform once; the secret is kept in its database
      const reg = await gql<any>(svc.url, `mutation { registerWebhookSubscription { created } }`, { token: admin });
      expect(reg.body.errors).toBeUndefined();
      registered = true;
    }
    // void points: sender Compliance-Reject — the platform decides Rejected (signed webhook) → the saga voids;
    // refund points: the platform rejects the payout (recipient Payout-Reject) → the saga refunds;
    // cancel points: held in review, captured by back-office, then cancelled by its owner → platform cancel, refund
    const lastName = point.startsWith('void') ? 'Compliance-Reject' : point.startsWith('refund') ? 'Doe' : 'Compliance-Review';
    const personId = await newPerson(svc.url, customer, lastName);
    const quoteId = await newQuote(svc.url, customer);
    const input = transferInput({ quoteId, personId, key: `crash-${point.replace(':', '-')}`, lastName });
    if (point.startsWith('refund'))
      input.recipient = { ...input.recipient, customer: { ...input.recipient.customer, lastName: 'Payout-Reject' } };
    const created = await createTransfer(svc.url, customer, input);
    const id: string = created.body.data.createTransfer.id;
    if (point.startsWith('capture') || point.startsWith('cancel')) {
      // held in review until back-office captures it (a capture point dies while capturing)
      await waitFor(async () => ((await getTransfer(svc.url, customer, id))?.status === 'AUTHORIZED' ? true : null), {
        timeoutMs: 20_000,
        intervalMs: 100,
        what: 'AUTHORIZED',
        retryErrors: true,
      });
      await gql(svc.url, `mutation($i: CaptureTransferInput!) { captureTransfer(input: $i) { status } }`, {
        token: staff,
        variables: { i: { transferId: id, idempotencyKey: `cap-${point.replace(':', '-')}` } },
      }).catch(() => null); // the process dies while answering
    }
    if (point.startsWith('cancel'))
      await gql(svc.url, `mutation($i: CancelTransferInput!) { cancelTransfer(input: $i) { status } }`, {
        token: customer,
        variables: { i: { transferId: id, idempotencyKey: `cancel-${point.replace(':', '-')}` } },
      }).catch(() => null); // the process dies while answering
    const exit = await within(svc.exited, 20_000);
    expect(exit).toMatchObject({ signal: 'SIGKILL' });

    const again = await spawnService(env, 60_000);
    running.push(again);
    const expected = point.startsWith('capture')
      ? ['CAPTURED']
      : point.startsWith('void')
        ? ['VOIDED']
        : point.startsWith('refund') || point.startsWith('cancel')
          ? ['REFUNDED']
          : ['AUTHORIZED'];
    const final = await waitFor(
      async () => {
        const tr = await getTransfer(again.url, staff, id);
        return tr && expected.includes(tr.status) ? tr : null;
      },
      { timeoutMs: 30_000, intervalMs: 100, what: `${point}: ${expected.join('|')}`, retryErrors: true },
    );
    outcomes[point] = final.status;
    if (point.startsWith('void')) expect(final.failure?.code).toBe('COMPLIANCE_REJECTED');
    again.proc.kill('SIGTERM');
    await again.exited;
  }

  const calls = await sb.control.calls('/gateway');
  const ids = new Set(calls.filter((c) => c.path === '/gateway/v2/payment').map((c) => c.idempotencyKey));
  for (const id of ids) {
    const captures = calls.filter((c) => c.path === `/gateway/payments/${id}/capture` && c.status >= 200 && c.status < 300);
    const voids = calls.filter((c) => c.path === `/gateway/payments/${id}/void` && c.status >= 200 && c.status < 300);
    expect(captures.length).toBeLessThanOrEqual(1);
    expect(voids.length).toBeLessThanOrEqual(1);
    expect(captures.length + voids.length).toBeLessThanOrEqual(1);
  }
  // money back: each crashed refund was made once at the gateway (a retry found it by its id), never above the capture
  for (const [ext, r] of refunds)
    expect({ ext, count: r.length, total: r.reduce((a, b) => a + b, 0) }).toEqual({ ext, count: 1, total: 103.99 }); // the total: 100.00 + the 3.99 fee
  expect(refunds.size).toBe(POINTS.filter((p) => p.startsWith('refund') || p.startsWith('cancel')).length);
  expect(ids.size).toBe(POINTS.length);

  console.log(
    'crash outcomes',
    outcomes,
    'payment calls',
    calls.filter((c) => c.path === '/gateway/v2/payment').length,
    'for',
    ids.size,
    'transfers',
  );
}, 600_000);
