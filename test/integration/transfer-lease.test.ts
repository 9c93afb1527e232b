import { approvedPersonRow } from '../helpers/funding';
/**
 * Lease renewal (heartbeat): a saga advance that outlasts its lease — a slow upstream call while the clock
 * moves far past lease_until — keeps the transfer: no other instance can claim it meanwhile. When the lease is
 * nevertheless lost (another owner took it), the advance stops at the next step boundary and leaves the rest
 * to the new holder. The saga under test has a 300 ms lease on a manual clock; the card check is held open
 * by the test (a gate), so nothing depends on timing other than "the heartbeat ran at least once".
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { loadConfig } from '../../src/config';
import { createApp, type App } from '../../src/app';
import type { Caller } from '../../src/auth/auth.types';
import { ManualClock } from '../../src/shared/clock';
import { noCrash } from '../../src/modules/transfer/transfer.faults';
import { TransferSaga } from '../../src/modules/transfer/transfer.saga';
import { FundingCredentials } from '../../src/modules/checks/checks.credentials.repository';
import { FxService } from '../../src/modules/fx/fx.service';
import type { GatewayClient } from '../../src/upstream/gateway/gateway.client';
import { transferInput } from '../e2e/transfer-helpers';
import { createThrowawayPostgresDatabase, pgliteTemplate, usingPostgres } from '../helpers/db';
import { waitFor } from '../helpers/wait';

const LEASE_MS = 300;
let app: App;
let dir: string;
let throwaway: Awaited<ReturnType<typeof createThrowawayPostgresDatabase>> | null = null;
const clock = new ManualClock(Date.now());
const alice: Caller = { userId: 'lease-alice', role: 'customer' } as Caller;
let personId: string;
let saga: TransferSaga;

function newGate() {
  let entered!: () => void;
  let open!: () => void;
  const e = new Promise<void>((r) => (entered = r));
  const o = new Promise<void>((r) => (open = r));
  return { entered: e, open, hit: entered, wait: o };
}
let hold: ReturnType<typeof newGate> | null = null;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'rbff-lease-'));
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
    RATE_LIMIT_MUTATIONS_PER_MINUTE: '1000000',
    RATE_LIMIT_UPSTREAM_POINTS_PER_MINUTE: '1000000',
  });
  app = await createApp(config, {
    clock,
    logDestination: new Writable({ write: (_c, _e, cb) => cb() }),
    pgliteLoadDataDir: throwaway ? undefined : await pgliteTemplate(),
  });
  await app.start();
  personId = (await app.db.prisma.person.create({ data: { ...approvedPersonRow(alice.userId) } })).id;
  // The real gateway client, except that checkCard waits for the test to open the gate.
  const real = app.upstream.gateway;
  const slow = new Proxy(real, {
    get(target, prop, receiver) {
      if (prop === 'checkCard') {
        return async (...args: unknown[]) => {
          if (hold) {
            hold.hit();
            await hold.wait;
          }
          return (target.checkCard as (...a: unknown[]) => unknown).apply(target, args);
        };
      }
      const v = Reflect.get(target, prop, receiver);
      return typeof v === 'function' ? v.bind(target) : v;
    },
  }) as GatewayClient;
  saga = new TransferSaga(
    app.db.prisma,
    app.transfers.repository,
    slow,
    clock,
    app.logger,
    { leaseMs: LEASE_MS, captureWindowMs: 6 * 86_400_000, retryBaseMs: 1000, retryMaxMs: 10_000 },
    noCrash,
  );
}, 120_000);

afterAll(async () => {
  await app?.close();
  await throwaway?.drop();
  rmSync(dir, { recursive: true, force: true });
});

async function newTransfer(key: string): Promise<string> {
  const fx = new FxService(app.db.sql, app.upstream.gateway, clock, app.config.corridors, app.config.pricing);
  const quoteId = (
    await fx.createQuote(alice.userId, { sourceCurrency: 'USD', destinationCurrency: 'BRL', paymentMethod: 'CARD', sourceAmount: '25.00' })
  ).id;
  const input = transferInput({ quoteId, personId, key: `${key}-${Date.now()}` });
  await new FundingCredentials(app.db.sql, clock, { cardCheckMaxAgeMs: 0, cardCheckReuseMs: 0 }).bind(
    'card',
    input.funding.cardToken as string,
    alice.userId,
  ); // as checkCard would
  const t = await app.transfers.service.create(alice, input as never, '203.0.113.7');
  return t.id;
}

test('a long advance keeps its lease: the clock moves 100 leases ahead during the upstream call, yet no other worker can claim the transfer', async () => {
  const id = await newTransfer('lease-kept');
  const claimed = await saga.leases.claimDue('worker:A', 10);
  expect(claimed).toContain(id);
  hold = newGate();
  const lease = saga.leases.keep(id, 'worker:A');
  const advancing = saga.advance(id, { cause: 'worker', actor: 'worker' });
  await hold.entered; // the check call is in flight (intent row written)
  clock.advance(100 * LEASE_MS); // far past the lease taken at claim time
  const before = lease.renewals;
  // Two heartbeats: one already in flight when the clock moved may have computed its deadline on the old clock.
  await waitFor(() => lease.renewals > before + 1, { timeoutMs: 30_000, intervalMs: 20, what: 'a heartbeat after the clock moved' });
  // another instance polls now: the lease is still valid at the moved clock
  expect(await saga.leases.claimDue('worker:B', 10)).not.toContain(id);
  expect(await saga.leases.acquire(id, 'worker:B')).toBe(false);
  const row = await app.db.prisma.transfer.findUniqueOrThrow({ where: { id } });
  expect(row.leaseOwner).toBe('worker:A');
  expect(row.leaseUntil!.getTime()).toBeGreaterThan(clock.nowMs());
  hold.open();
  hold = null;
  const done = await advancing;
  await lease.stop();
  await saga.leases.release(id, 'worker:A');
  expect(lease.lost).toBe(false);
  expect(done?.status).toBe('AUTHORIZED'); // the same advance went on: check → authorize
}, 120_000);

test('without renewal the lease would have been claimable (control): after stop(), a moved clock lets another worker take it', async () => {
  const id = await newTransfer('lease-control');
  expect(await saga.leases.claimDue('worker:A', 10)).toContain(id);
  const lease = saga.leases.keep(id, 'worker:A');
  await lease.stop();
  clock.advance(2 * LEASE_MS);
  expect(await saga.leases.claimDue('worker:B', 10)).toContain(id);
  await saga.leases.release(id, 'worker:B');
}, 120_000);

test('a lost lease (another owner took it during the call) stops the advance at the next step boundary; the new holder finishes it', async () => {
  const id = await newTransfer('lease-lost');
  expect(await saga.leases.claimDue('worker:A', 10)).toContain(id);
  hold = newGate();
  const lease = saga.leases.keep(id, 'worker:A');
  const advancing = saga.advance(id, { cause: 'worker', actor: 'worker' });
  await hold.entered;
  // e.g. this process stalled past its lease and worker B claimed the transfer
  await app.db.prisma.transfer.update({ where: { id }, data: { leaseOwner: 'worker:B', leaseUntil: new Date(clock.nowMs() + 60_000) } });
  await waitFor(() => lease.lost, { timeoutMs: 30_000, intervalMs: 20, what: 'the heartbeat notices the lease is gone' });
  hold.open();
  hold = null;
  const stopped = await advancing;
  await lease.stop();
  // the in-flight check was recorded, but A did not go on to authorize
  expect(stopped?.status).toBe('PENDING');
  const steps = await app.db.prisma.sagaStep.findMany({ where: { transferId: id } });
  expect(steps.map((s) => `${s.step}:${s.state}`)).toEqual(['check:SUCCEEDED']);
  // B carries on
  const lb = saga.leases.keep(id, 'worker:B');
  const done = await saga.advance(id, { cause: 'worker', actor: 'worker' });
  await lb.stop();
  expect(done?.status).toBe('AUTHORIZED');
  expect(lb.lost).toBe(false);
}, 120_000);
