/**
 * No lost wake-up: a "run now" — a compliance decision (platform event → kick), a resume, an intent — is never
 * undone by a decision to wait taken before it, nor held up until a lease expires (TransferRepository,
 * Scheduling). Each case injects the interleaving deterministically by wrapping the method that runs in the
 * window; the worker is off, so the test decides who runs the saga and when (its clock does not move: a transfer
 * that is not due now, or whose lease is still held, is not run by `tick()`).
 */
import { startTestApp, type TestApp } from '../helpers/app';
import { createTransfer, newPerson, newQuote, platformEvent, transferInput } from '../e2e/transfer-helpers';

let t: TestApp;
let alice: string;
let personId: string;

beforeAll(async () => {
  t = await startTestApp({ SAGA_WORKER_ENABLED: 'false', LOG_LEVEL: 'silent' });
  alice = await t.token('alice-wakeup', 'customer');
  personId = await newPerson(t.url, alice);
}, 90_000);
afterAll(async () => t?.close());

const row = (id: string) => t.app.db.prisma.transfer.findUniqueOrThrow({ where: { id } });

/**
 * Worker ticks until the transfer reaches `status` (at most 20, well under a second apart). More than one: on
 * PostgreSQL a tick skips a row locked by a concurrent webhook's transition (FOR UPDATE SKIP LOCKED; the next poll
 * takes it). What is checked is that it runs without waiting for a lease (60 s) or a far next_run_at.
 */
async function ticksUntil(id: string, status: string): Promise<string> {
  let now = '';
  for (let i = 0; i < 20; i++) {
    await t.app.transfers.worker.tick();
    now = (await row(id)).status;
    if (now === status) break;
    await new Promise((r) => setTimeout(r, 50));
  }
  return now;
}

/** A transfer run by the saga until it waits (Compliance-Review: the sandbox never decides by itself). */
async function waiting(key: string, card = '1234'): Promise<{ id: string; ext: string }> {
  const quoteId = await newQuote(t.url, alice);
  const r = await createTransfer(t.url, alice, transferInput({ quoteId, personId, key, card, lastName: 'Compliance-Review' }));
  if (!r.body.data) throw new Error(JSON.stringify(r.body.errors));
  const id: string = r.body.data.createTransfer.id;
  await t.app.transfers.saga.advance(id, { cause: 'worker', actor: 'worker' });
  const tr = await row(id);
  return { id, ext: tr.externalPaymentId };
}

/** Runs `inject` inside the worker's next advance of `id` (after it claimed the lease), then lets `after` decide. */
function duringWorkerAdvance(id: string, inject: () => Promise<void>, after: 'continue' | 'throw') {
  const saga = t.app.transfers.saga;
  const advance = saga.advance.bind(saga);
  saga.advance = async (transferId, ctx) => {
    if (transferId !== id) return advance(transferId, ctx);
    saga.advance = advance;
    const out = await advance(transferId, ctx); // the worker reads the transfer and decides to wait…
    await inject(); // …then, before it lets go, a decision arrives
    if (after === 'throw') throw new Error('connection terminated'); // and its run fails (e.g. the database)
    return out;
  };
}

it('a compliance decision whose kick found the worker busy runs on the next tick, even if the worker run then fails (not after the lease expires)', async () => {
  const { id, ext } = await waiting('wakeup-1');
  expect((await row(id)).status).toBe('AUTHORIZED');
  await t.app.db.prisma.transfer.update({ where: { id }, data: { nextRunAt: new Date() } }); // due: the worker takes it
  duringWorkerAdvance(
    id,
    async () => {
      // the kick cannot take the lease (the worker holds it): it leaves the run to the worker
      expect(await platformEvent(t, ext, { type: 'compliance', oldStatus: 'Pending', newStatus: 'Approved' })).toMatchObject({
        applied: true,
      });
      expect((await row(id)).status).toBe('AUTHORIZED');
    },
    'throw',
  );
  await t.app.transfers.worker.tick();
  // The worker's run failed; the decision must not wait for its lease (60 s) to expire.
  expect(await ticksUntil(id, 'CAPTURED')).toBe('CAPTURED');
}, 90_000);

// A guard rather than a repro (it passed before the fix too: the decision bumps `eventSeq`, which the wait's write
// also checks — a compliance decision changes nothing an app shows, so `version` would not do); it pins the window every deferral must respect.
it('a compliance decision arriving while the worker decides to wait is not overwritten by that decision', async () => {
  const { id, ext } = await waiting('wakeup-2');
  await t.app.db.prisma.transfer.update({ where: { id }, data: { nextRunAt: new Date() } });
  const repo = t.app.transfers.repository;
  // Inject in the window between the worker's read and its "sleep until …" write: the repository's two deferrals
  // (checked by the compiler: a renamed method fails here instead of leaving the window unpatched).
  const methods = ['scheduleIfUnchanged', 'deferIfNoWake'] as const satisfies readonly (keyof typeof repo)[];
  const originals = new Map<string, (...a: unknown[]) => Promise<unknown>>();
  let injected = false;
  for (const m of methods) {
    const orig = repo[m] as (...a: unknown[]) => Promise<unknown>;
    if (typeof orig !== 'function') throw new Error(`TransferRepository.${m} is gone: patch what replaced it`);
    originals.set(m, orig);
    (repo as unknown as Record<string, unknown>)[m] = async (...a: unknown[]) => {
      if (!injected && a[0] === id) {
        injected = true;
        await platformEvent(t, ext, { type: 'compliance', oldStatus: 'Pending', newStatus: 'Approved' });
      }
      return orig.apply(repo, a);
    };
  }
  let status: string;
  try {
    status = await ticksUntil(id, 'CAPTURED');
  } finally {
    for (const [m, f] of originals) (repo as unknown as Record<string, unknown>)[m] = f;
  }
  expect(injected).toBe(true);
  expect(status).toBe('CAPTURED');
}, 90_000);

it('a resume whose saga run fails after the resume committed is run by the worker at once (not when the quote expires)', async () => {
  const { id } = await waiting('wakeup-3', '0002');
  const tr = await row(id);
  expect(tr.status).toBe('ACTION_REQUIRED');
  const page = await fetch((tr.nextAction as { redirectUrl: string }).redirectUrl, {
    method: 'POST',
    body: new URLSearchParams({}),
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
  });
  expect(page.status).toBeLessThan(400);
  const saga = t.app.transfers.saga;
  const advance = saga.advance.bind(saga);
  saga.advance = async () => {
    saga.advance = advance;
    throw new Error('connection terminated'); // the resume committed (ACTION_REQUIRED → PENDING); its saga run dies
  };
  await expect(
    t.app.transfers.service.resume({ userId: 'alice-wakeup', role: 'customer' } as never, {
      transferId: id,
      idempotencyKey: 'wakeup-resume-1',
    }),
  ).rejects.toThrow();
  expect((await row(id)).status).toBe('PENDING');
  expect(await ticksUntil(id, 'AUTHORIZED')).toBe('AUTHORIZED'); // the check re-run, then authorized (not left for the quote watchdog)
}, 90_000);

/**
 * From here on the platform sends no webhooks (our subscription is deleted): only the saga, the kicks and what a test
 * feeds can move a transfer — the interleavings below are the test's alone. (These used to be token PULL transfers,
 * which opened no platform transaction; that funding is no longer offered.)
 */
async function noPlatformWebhooks(): Promise<void> {
  const admin = await t.token('admin-wakeup', 'admin');
  const call = async (query: string, variables: Record<string, unknown> = {}) => {
    const res = await fetch(`${t.url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${admin}` },
      body: JSON.stringify({ query, variables }),
    });
    const body = (await res.json()) as { data?: any; errors?: unknown };
    if (!body.data) throw new Error(JSON.stringify(body.errors));
    return body.data;
  };
  const { webhookSubscriptions } = await call('{ webhookSubscriptions { id } }');
  for (const { id } of webhookSubscriptions as { id: string }[])
    await call('mutation($id: ID!) { deleteWebhookSubscription(id: $id) }', { id });
}

it('a platform fact recorded while our capture was in flight is applied even if the run stops right after the capture is recorded', async () => {
  // No webhooks: nothing but the saga can apply the fact (no webhook completes it meanwhile).
  await noPlatformWebhooks();
  const { id, ext } = await waiting('wakeup-4');
  expect((await row(id)).status).toBe('AUTHORIZED');
  const gateway = t.app.upstream.gateway;
  const capture = gateway.capturePayment.bind(gateway);
  gateway.capturePayment = async (...a: Parameters<typeof capture>) => {
    gateway.capturePayment = capture;
    // The platform reports the payout done while our capture is still settling: recorded, left for the saga.
    expect(await platformEvent(t, ext, { type: 'status', oldStatus: 'Paid', newStatus: 'Completed' })).toMatchObject({ applied: true });
    return capture(...a);
  };
  const repo = t.app.transfers.repository;
  const transition = repo.transition.bind(repo);
  repo.transition = async (req) => {
    const r = await transition(req);
    if (req.transferId === id && req.to === 'CAPTURED') {
      repo.transition = transition;
      throw new Error('connection terminated'); // the run stops right after CAPTURED is recorded
    }
    return r;
  };
  const staff = { userId: 'ops-wakeup', role: 'backoffice' } as never;
  await expect(t.app.transfers.service.capture(staff, { transferId: id, idempotencyKey: 'wakeup-capture-1' })).rejects.toThrow();
  expect((await row(id)).status).toBe('CAPTURED');
  expect(await ticksUntil(id, 'COMPLETED')).toBe('COMPLETED'); // was left CAPTURED with nothing scheduled (next_run_at null)
}, 90_000);

it('a compliance decision is not overwritten by a stale compliance event that raced it (the decision and its wake-up are kept)', async () => {
  await noPlatformWebhooks();
  const { id, ext } = await waiting('wakeup-5'); // no platform webhooks
  expect(await row(id)).toMatchObject({ status: 'AUTHORIZED', complianceStatus: null });
  const saga = t.app.transfers.saga;
  expect(await saga.leases.acquire(id, 'other-instance')).toBe(true); // busy elsewhere: the kick leaves the run to the worker
  const repo = t.app.transfers.repository;
  const transition = repo.transition.bind(repo);
  repo.transition = async (req) => {
    if (req.transferId === id && (req.detail as { value?: string } | undefined)?.value === 'Pending') {
      repo.transition = transition;
      // `Pending` was read before `Approved` committed; `Approved` commits now, then `Pending` is written.
      expect(await platformEvent(t, ext, { type: 'compliance', oldStatus: 'Pending', newStatus: 'Approved' })).toMatchObject({
        applied: true,
      });
    }
    return transition(req);
  };
  await platformEvent(t, ext, { type: 'compliance', oldStatus: null, newStatus: 'Pending' });
  await saga.leases.release(id, 'other-instance');
  expect((await row(id)).complianceStatus).toBe('Approved'); // was overwritten with Pending: the transfer waited for ever
  expect(await ticksUntil(id, 'CAPTURED')).toBe('CAPTURED');
}, 90_000);
