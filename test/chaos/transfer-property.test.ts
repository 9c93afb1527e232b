import { approvedPersonRow } from '../helpers/funding';
/**
 * Property-based test of the saga: random command sequences — creates (magic cards, compliance outcomes),
 * duplicate creates, resumes, captures (same/different keys, partial), voids, platform events in random
 * order (and the sandbox's own webhooks, live), upstream faults (503s and responses dropped after commit),
 * worker crashes (a step throws mid-flight, leaving its intent and its lease; the lease then expires),
 * clock moves (retries, quote expiry, the capture window) — run against the real service and sandbox.
 * Checked against the model (the transition table): no illegal transition was ever applied, versions are
 * gap-free, no double effect upstream, and after draining no transfer is lost (every one terminal or
 * waiting, no saga step left unsettled).
 *
 * CI: PROPERTY_RUNS (default 4) runs of up to 20 commands. Longer: PROPERTY_RUNS=100 npx jest <this file>.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import fc from 'fast-check';
import { loadConfig } from '../../src/config';
import { createApp, type App } from '../../src/app';
import { ManualClock } from '../../src/shared/clock';
import { refusal, isTerminal, type TransferStatus, type Cause } from '../../src/modules/transfer/transfer.states';
import { TransferSaga } from '../../src/modules/transfer/transfer.saga';
import { FxService } from '../../src/modules/fx/fx.service';
import { FundingCredentials } from '../../src/modules/checks/checks.credentials.repository';
import { isUpstreamError } from '../../src/upstream/http/upstream.errors';
import type { Caller } from '../../src/auth/auth.types';
import { http, cardToken } from '../helpers/sandbox';
import { transferInput } from '../e2e/transfer-helpers';
import { createThrowawayPostgresDatabase, pgliteTemplate, usingPostgres } from '../helpers/db';

const RUNS = Number(process.env.PROPERTY_RUNS ?? 4);
/**
 * CI (CI=true) runs a fixed seed so a red build always means a regression on known ground; anywhere else the seed
 * is random (fast-check prints it on failure). PROPERTY_SEED=<n> pins one; PROPERTY_SEED=random forces exploration.
 * A transfer left due later than it should be (a lost wake-up) is prevented by the scheduling rules of
 * TransferRepository (every "run now" is counted in wake_seq and no decision to wait taken before it can overwrite
 * it; a worker run that fails releases its lease; a compliance decision is never overwritten by a racing stale
 * event), pinned one by one in test/integration/transfer-wakeup.test.ts.
 */
const CI_SEED = -821290699; // a seed whose run has a webhook kick arrive while the transfer is still PENDING
const SEED =
  process.env.PROPERTY_SEED === 'random'
    ? undefined
    : process.env.PROPERTY_SEED
      ? Number(process.env.PROPERTY_SEED)
      : process.env.CI === 'true'
        ? CI_SEED
        : undefined;
const DAY = 24 * 3600_000;

let app: App;
let dir: string;
let throwaway: Awaited<ReturnType<typeof createThrowawayPostgresDatabase>> | null = null;
const clock = new ManualClock(Date.now());
const alice: Caller = { userId: 'prop-alice', role: 'customer' } as Caller;
const staff: Caller = { userId: 'prop-staff', role: 'backoffice' } as Caller;
/** One sender per last name the commands use (the sender is the person: sandbox magic goes by its last name). */
const personIds = new Map<string, string>();
let crashySaga: TransferSaga;
let crashArmed = false;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'rbff-prop-'));
  if (usingPostgres()) throwaway = await createThrowawayPostgresDatabase(process.env.DATABASE_URL!);
  const config = loadConfig({
    NODE_ENV: 'test',
    PORT: '0',
    HOST: '127.0.0.1',
    SANDBOX_PORT: '0',
    LOG_LEVEL: 'silent',
    DATA_DIR: dir,
    DATABASE_URL: throwaway?.url ?? 'memory://',
    SAGA_WORKER_ENABLED: 'false',
    SAGA_LEASE_MS: '5000',
    SAGA_RETRY_BASE_MS: '1000',
    SAGA_RETRY_MAX_MS: '10000',
    UPSTREAM_RETRY_MAX_ATTEMPTS: '2',
    UPSTREAM_RETRY_BASE_DELAY_MS: '1',
    UPSTREAM_PAYMENT_TIMEOUT_MS: '2000',
    IDEMPOTENCY_WAIT_MS: '20000',
    MUTATION_LEASE_WAIT_MS: '0',
    RATE_LIMIT_MUTATIONS_PER_MINUTE: '1000000',
    RATE_LIMIT_UPSTREAM_POINTS_PER_MINUTE: '1000000',
  });
  app = await createApp(config, {
    clock,
    logDestination: new Writable({ write: (_c, _e, cb) => cb() }),
    pgliteLoadDataDir: throwaway ? undefined : await pgliteTemplate(),
  });
  await app.start();
  for (const lastName of ['Doe', 'Compliance-Review', 'Compliance-Reject'])
    personIds.set(lastName, (await app.db.prisma.person.create({ data: approvedPersonRow(alice.userId, lastName) })).id);
  // A saga whose crash hook throws (a worker dying mid-step: intent written, lease kept, nothing settled).
  const m = app.transfers;
  crashySaga = new TransferSaga(
    app.db.prisma,
    m.repository,
    app.upstream.gateway,
    clock,
    app.logger,
    { leaseMs: 5000, captureWindowMs: 6 * DAY, retryBaseMs: 1000, retryMaxMs: 10000 },
    {
      at: () => {
        if (crashArmed && Math.random() < 0.5) throw new Error('simulated crash');
      },
    },
  );
}, 60_000);

afterAll(async () => {
  await app?.close();
  await throwaway?.drop();
  rmSync(dir, { recursive: true, force: true });
});

async function newQuote(): Promise<string> {
  const fx = new FxService(app.db.sql, app.upstream.gateway, clock, app.config.corridors, app.config.pricing);
  return (
    await fx.createQuote(alice.userId, { sourceCurrency: 'USD', destinationCurrency: 'BRL', paymentMethod: 'CARD', sourceAmount: '40.00' })
  ).id;
}

type Cmd =
  | { k: 'create'; card: string; lastName: string }
  | { k: 'dupCreate' }
  | { k: 'tick' }
  | { k: 'crashTick' }
  | { k: 'capture'; i: number; key: 'same' | 'new'; partial: boolean }
  | { k: 'void'; i: number }
  | { k: 'resume'; i: number }
  | { k: 'event'; i: number; e: number }
  | { k: 'faults'; errorRate: number; drop: number }
  | { k: 'clock'; ms: number }
  | { k: 'pair'; a: Cmd; b: Cmd };

const EVENTS = [
  { type: 'compliance', oldStatus: 'Pending', newStatus: 'Approved' },
  { type: 'compliance', oldStatus: 'Pending', newStatus: 'Rejected' },
  { type: 'status', oldStatus: null, newStatus: 'WaitingPayout' },
  { type: 'status', oldStatus: null, newStatus: 'Completed' },
  { type: 'status', oldStatus: null, newStatus: 'Voided' },
  { type: 'status', oldStatus: null, newStatus: 'Cancelled' },
  { type: 'payout', oldStatus: null, newStatus: 'ERROR', gatewayPaymentId: null, amount: null },
  { type: 'status', oldStatus: null, newStatus: 'SomethingNew' },
] as const;

const create: fc.Arbitrary<Cmd> = fc.record({
  k: fc.constant('create' as const),
  card: fc.constantFrom('1234', '1234', '0003', '0004', '0002'),
  lastName: fc.constantFrom('Doe', 'Compliance-Review', 'Compliance-Reject'),
});
const simple: fc.Arbitrary<Cmd> = fc.oneof(
  create,
  fc.constant({ k: 'dupCreate' as const }),
  fc.constant({ k: 'tick' as const }),
  fc.constant({ k: 'crashTick' as const }),
  fc.record({
    k: fc.constant('capture' as const),
    i: fc.nat(),
    key: fc.constantFrom('same' as const, 'new' as const),
    partial: fc.boolean(),
  }),
  fc.record({ k: fc.constant('void' as const), i: fc.nat() }),
  fc.record({ k: fc.constant('resume' as const), i: fc.nat() }),
  fc.record({ k: fc.constant('event' as const), i: fc.nat(), e: fc.nat({ max: EVENTS.length - 1 }) }),
  fc.record({ k: fc.constant('faults' as const), errorRate: fc.constantFrom(0, 0, 0.2), drop: fc.constantFrom(0, 0, 0.3) }),
  fc.record({ k: fc.constant('clock' as const), ms: fc.constantFrom(2_000, 6_000, 301_000, 6 * DAY + 1000) }),
);
const command: fc.Arbitrary<Cmd> = fc.oneof(
  { weight: 5, arbitrary: simple },
  { weight: 1, arbitrary: fc.record({ k: fc.constant('pair' as const), a: simple, b: simple }) },
);

const ids: string[] = [];
let lastCreate: ReturnType<typeof transferInput> | null = null;
let seq = 0;
const pick = (i: number) => (ids.length ? ids[i % ids.length]! : null);
/**
 * What a client would have been answered: the commands call the services directly, below the GraphQL edge that maps
 * an upstream failure to its AppError — mapped here the same way.
 */
const answerOf = (e: unknown): { code?: string } => (isUpstreamError(e) ? e.toAppError() : (e as { code?: string }));
const swallow = (p: Promise<unknown>) =>
  p.catch((e: unknown) => {
    if (!answerOf(e)?.code) throw e; // an AppError is an answer; anything else is a bug
  });

async function run(c: Cmd): Promise<void> {
  const svc = app.transfers.service;
  switch (c.k) {
    case 'create': {
      // Getting the quote goes upstream too: under injected 503s it may be refused — an answer (no transfer created).
      const quoteId = await newQuote().catch((e: unknown) => {
        if (answerOf(e)?.code === 'UPSTREAM_UNAVAILABLE') return null;
        throw e;
      });
      if (!quoteId) return;
      const input = transferInput({ quoteId, personId: personIds.get(c.lastName)!, key: `prop-${++seq}-${Date.now()}` });
      (input.funding as { cardToken: string }).cardToken = cardToken(c.card, `aaaaaaaa-bbbb-4ccc-8${String(seq).padStart(3, '0')}`);
      lastCreate = input;
      await new FundingCredentials(app.db.sql, clock, { cardCheckMaxAgeMs: 0, cardCheckReuseMs: 0 }).bind(
        'card',
        (input.funding as { cardToken: string }).cardToken,
        alice.userId,
      ); // as checkCard would
      const t = await svc.create(alice, input as never, '203.0.113.7').catch((e: { code?: string }) => {
        if (e?.code === 'QUOTE_EXPIRED') return null; // an answer: the clock moved past the quote
        throw e;
      });
      if (t) ids.push(t.id);
      return;
    }
    case 'dupCreate':
      if (lastCreate) {
        const t = await svc.create(alice, lastCreate as never, '203.0.113.7').catch((e: { code?: string }) => {
          if (['QUOTE_EXPIRED', 'QUOTE_ALREADY_USED'].includes(e?.code ?? '')) return null; // record expired after the clock moved
          throw e;
        });
        if (t) expect(ids).toContain(t.id);
      }
      return;
    case 'tick':
      await app.transfers.worker.tick();
      return;
    case 'crashTick': {
      crashArmed = true;
      try {
        for (const id of await crashySaga.leases.claimDue('crashy-worker', 5)) {
          await crashySaga.advance(id, { cause: 'worker', actor: 'worker' }).catch(() => undefined); // lease kept: "died"
        }
      } finally {
        crashArmed = false;
      }
      return;
    }
    case 'capture': {
      const id = pick(c.i);
      if (id)
        await swallow(
          svc.capture(staff, {
            transferId: id,
            idempotencyKey: c.key === 'same' ? `cap-same-${id}` : `cap-${++seq}`,
            amount: c.partial ? '10.00' : null,
          }),
        );
      return;
    }
    case 'void': {
      const id = pick(c.i);
      if (id) await swallow(svc.void(alice, { transferId: id, idempotencyKey: `void-${++seq}` }));
      return;
    }
    case 'resume': {
      const id = pick(c.i);
      if (id) await swallow(svc.resume(alice, { transferId: id, idempotencyKey: `resume-${++seq}` }));
      return;
    }
    case 'event': {
      const id = pick(c.i);
      if (id)
        await svc.applyPlatformEvent({
          source: { kind: 'test' },
          transactionId: `tx-${id}`,
          externalTransactionId: id,
          tenantId: null,
          occurredAt: clock.now(),
          change: EVENTS[c.e] as never,
          messages: [],
        });
      return;
    }
    case 'faults':
      await http('POST', `${app.sandbox!.url}/__sandbox/faults`, {
        body: { errorRate: c.errorRate, dropResponseAfterCommitRate: c.drop, seed: seq },
      });
      return;
    case 'clock':
      await advance(c.ms);
      return;
    case 'pair':
      await Promise.all([run(c.a), run(c.b)]);
  }
}

async function checkInvariants(final: boolean): Promise<void> {
  const prisma = app.db.prisma;
  // One snapshot: live platform webhooks keep changing transfers meanwhile (on PostgreSQL, with a connection pool,
  // a change can commit between two separate reads and look like a version/event mismatch).
  const { transfers, events } = await prisma.$transaction(
    async (tx) => {
      const transfers = await tx.transfer.findMany({ where: { ownerId: alice.userId } });
      const events = await tx.transferEvent.findMany({
        where: { transferId: { in: transfers.map((t) => t.id) } },
        orderBy: [{ transferId: 'asc' }, { seq: 'asc' }],
      });
      return { transfers, events };
    },
    { isolationLevel: 'RepeatableRead' },
  );
  const byT = new Map<string, typeof events>();
  for (const e of events) byT.set(e.transferId, [...(byT.get(e.transferId) ?? []), e]);
  const calls = (await http<any[]>('GET', `${app.sandbox!.url}/__sandbox/calls?path=/gateway/payments`)).body;
  for (const t of transfers) {
    const evs = byT.get(t.id) ?? [];
    // the audit trail and the versions an app sees are gap-free, and every applied change is allowed by the table
    expect(evs.map((e) => e.seq)).toEqual(evs.map((_, i) => i + 1));
    expect(t.eventSeq).toBe(evs.length);
    const versions = evs.flatMap((e) => (e.version === null ? [] : [e.version]));
    expect(versions).toEqual(versions.map((_, i) => i + 1));
    expect(t.version).toBe(versions.length);
    for (const e of evs.slice(1)) {
      const why = refusal(e.fromStatus as TransferStatus, e.toStatus as TransferStatus, e.cause as Cause);
      if (why) throw new Error(`illegal transition applied on ${t.id}: ${e.fromStatus} → ${e.toStatus} (${e.cause}): ${why}`);
    }
    // no double effect upstream
    const ok = (p: string) => calls.filter((c) => c.path === `/gateway/payments/${t.id}/${p}` && c.status >= 200 && c.status < 300).length;
    expect(ok('capture')).toBeLessThanOrEqual(1);
    expect(ok('void')).toBeLessThanOrEqual(1);
    expect(ok('capture') + ok('void')).toBeLessThanOrEqual(1);
    if (final) {
      // once settled, our record agrees with the gateway (mid-flight an answer may not be recorded yet)
      // money captured ends with the recipient or back with the sender (a failed payout: REFUND_PENDING → REFUNDED), never FAILED
      if (ok('capture')) expect(['CAPTURED', 'PAYOUT_PENDING', 'COMPLETED', 'REFUND_PENDING', 'REFUNDED']).toContain(t.status);
      if (ok('void')) expect(['VOIDED', 'EXPIRED']).toContain(t.status);
      // no lost transfer: terminal, or waiting on the customer / the platform, with nothing left unsettled
      if (!(
        isTerminal(t.status as TransferStatus) ||
        ['ACTION_REQUIRED', 'AUTHORIZED', 'CAPTURED', 'PAYOUT_PENDING', 'REFUND_PENDING'].includes(t.status)
      )) {
        const steps = await prisma.sagaStep.findMany({ where: { transferId: t.id } });
        throw new Error(
          `lost transfer ${t.id}: ${t.status} after draining; steps: ${steps.map((s) => `${s.step} ${s.state} attempts ${s.attempts} ${s.lastError ?? ''} ${JSON.stringify(s.response)}`).join(', ') || 'none'}; ` +
            `nextRunAt ${t.nextRunAt?.toISOString()} lease ${t.leaseOwner} ${t.leaseUntil?.toISOString()} now ${clock.now().toISOString()}; ` +
            `events: ${evs.map((e) => `${e.fromStatus}→${e.toStatus} (${e.cause} ${JSON.stringify(e.detail)})`).join(' | ')}`,
        );
      }
      const open = await prisma.sagaStep.findMany({ where: { transferId: t.id, state: { in: ['PENDING', 'UNKNOWN'] } } });
      if (open.length)
        throw new Error(
          `transfer ${t.id} (${t.status}) has unsettled saga steps after draining: ${open.map((s) => `${s.step} ${s.state} attempts ${s.attempts} ${s.lastError}`).join(', ')}; ` +
            `nextRunAt ${t.nextRunAt?.toISOString()} lease ${t.leaseOwner} ${t.leaseUntil?.toISOString()} now ${clock.now().toISOString()}; ` +
            `events: ${evs.map((e) => `${e.fromStatus}→${e.toStatus} (${e.cause} ${JSON.stringify(e.detail)})`).join(' | ')}`,
        );
    }
  }
}

/** Our clock and the sandbox's move together (quote expiry, the 7-day auto-cancel). */
async function advance(ms: number): Promise<void> {
  clock.advance(ms);
  await http('POST', `${app.sandbox!.url}/__sandbox/clock`, { body: { advanceSeconds: Math.round(ms / 1000) } });
}

async function drain(): Promise<void> {
  await http('POST', `${app.sandbox!.url}/__sandbox/faults`, { body: { errorRate: 0, dropResponseAfterCommitRate: 0 } });
  for (let i = 0; i < 8; i++) {
    await advance(20_000); // past every retry delay and lease
    await app.transfers.worker.tick();
  }
}

test('random command sequences keep the saga within its transition table, with no double effect and no lost transfer', async () => {
  await fc.assert(
    fc.asyncProperty(
      fc.array(create, { minLength: 2, maxLength: 4 }),
      fc.array(command, { minLength: 3, maxLength: 20 }),
      async (creates, cmds) => {
        for (const c of [...creates, ...cmds]) {
          await run(c);
          await checkInvariants(false);
        }
        await drain();
        // Background work (a webhook-triggered saga run, the inbox processor) may still be mid-flight after the
        // drain on a loaded machine: the final invariants must hold once it settles — retry briefly before failing.
        for (let attempt = 1; ; attempt++) {
          try {
            await checkInvariants(true);
            break;
          } catch (e) {
            if (attempt >= 20) throw e;
            await new Promise((r) => setTimeout(r, 250));
            await app.transfers.worker.tick();
          }
        }
      },
    ),
    { numRuns: RUNS, endOnFailure: true, ...(SEED !== undefined ? { seed: SEED, path: process.env.PROPERTY_PATH } : {}) },
  );

  console.log(`property: ${RUNS} runs, ${ids.length} transfers created`);
}, 600_000);
