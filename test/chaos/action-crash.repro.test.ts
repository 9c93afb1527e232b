/**
 * FIXED — resumeTransfer / captureTransfer / voidTransfer retried with the same idempotencyKey and arguments after
 * the first attempt's action took effect but its idempotency record was not completed (the process died or the
 * call timed out between the two: IdempotencyService.execute runs fn() and then completes the record, two
 * writes), or after the first attempt answered an error although its action was already durable (its intent
 * recorded, then the saga run failed): the retry ran the action again and answered INVALID_STATE ("Only an
 * AUTHORIZED transfer can be captured (it is CAPTURED)", "A void … is already in progress") — the client took a
 * capture that happened for a failure.
 *
 * Fix (the analogue of createTransfer's deterministic id, idempotency-crash.repro.test.ts): each action records
 * the key that caused it — the capture/void saga step's request, the resume's audit event — and a retry that
 * finds its own key there answers as the first attempt would have (runs the saga on, returns the transfer).
 *
 * Reproduced without a kill: act, then put the record back where a crash leaves it (IN_PROGRESS, no response,
 * claimed long ago — the claim is stale, so the retry takes it over), then retry.
 */
import { startTestApp, type TestApp } from '../helpers/app';
import { CREATE, gqlRaw, kindInput, newPerson, newQuote } from './lib/client';
import { transferInput } from '../e2e/transfer-helpers';
import { http } from '../helpers/sandbox';

let t: TestApp;
let alice: string;
let staff: string;
let personId: string;
beforeAll(async () => {
  t = await startTestApp({
    LOG_LEVEL: 'silent',
    SAGA_WORKER_ENABLED: 'false',
    RATE_LIMIT_MUTATIONS_PER_MINUTE: '1000000',
    RATE_LIMIT_UPSTREAM_POINTS_PER_MINUTE: '1000000',
  });
  alice = await t.token('repro-action-alice', 'customer');
  staff = await t.token('repro-action-ops', 'backoffice');
  personId = await newPerson(t.url, alice);
}, 60_000);
afterAll(() => t?.close());

const FIELDS = 'id status version capturedAmount { amount currency } nextAction { type redirectUrl }';
const CAPTURE = `mutation($i: CaptureTransferInput!) { captureTransfer(input: $i) { ${FIELDS} } }`;
const VOID = `mutation($i: VoidTransferInput!) { voidTransfer(input: $i) { ${FIELDS} } }`;
const RESUME = `mutation($i: ResumeTransferInput!) { resumeTransfer(input: $i) { ${FIELDS} } }`;

/**
 * Creates a transfer and runs the saga (the worker is off) until it waits. Compliance-Review: the sandbox's
 * platform never decides by itself (no webhook-driven capture racing the test), 3DS card or not.
 */
async function transfer(kind: 'review' | 'review-3ds', key: string): Promise<{ id: string; status: string; redirectUrl?: string }> {
  const quoteId = await newQuote(t.url, alice);
  const input =
    kind === 'review'
      ? kindInput('review', quoteId, personId, key)
      : transferInput({ quoteId, personId, key, card: '0002', lastName: 'Compliance-Review' });
  const r = await gqlRaw(t.url, CREATE, { i: input }, alice);
  const id: string = r.body!.data!.createTransfer.id;
  const after = (await t.app.transfers.saga.advance(id, { cause: 'worker', actor: 'worker' }))!;
  return { id, status: after.status, redirectUrl: (after.nextAction as { redirectUrl?: string } | null)?.redirectUrl };
}

/** What a crash after the action and before the idempotency record's completion leaves behind. */
const crashBeforeRecord = (operation: string, key: string) => t.app.db.prisma.$executeRaw`
  UPDATE idempotency_records SET state = 'IN_PROGRESS', response = NULL, created_at = now() - interval '2 hours'
  WHERE operation = ${operation} AND key = ${key}`;

const gatewayCalls = async (id: string, what: 'capture' | 'void') =>
  ((await http('GET', `${t.app.sandbox!.url}/__sandbox/calls?path=/gateway/payments/${id}/${what}`)).body as { status: number }[]).filter(
    (c) => c.status === 200,
  ).length;

test('captureTransfer retried after a crash between the capture and its record answers the captured transfer', async () => {
  const { id, status } = await transfer('review', 'repro-action-cap-t');
  expect(status).toBe('AUTHORIZED');
  const i = { transferId: id, idempotencyKey: 'repro-action-cap-1', amount: '60.00' };
  const first = await gqlRaw(t.url, CAPTURE, { i }, staff);
  expect(first.body?.data?.captureTransfer).toMatchObject({ id, status: 'CAPTURED', capturedAmount: { amount: '60.00' } });
  await crashBeforeRecord('captureTransfer', i.idempotencyKey);
  const retry = await gqlRaw(t.url, CAPTURE, { i }, staff);
  expect(retry.body?.errors?.[0]?.extensions?.code).toBeUndefined(); // was INVALID_STATE
  expect(retry.body?.data?.captureTransfer).toMatchObject({ id, status: 'CAPTURED', capturedAmount: { amount: '60.00' } });
  expect(await gatewayCalls(id, 'capture')).toBe(1);
  // another key is still refused: the transfer is captured once
  const other = await gqlRaw(t.url, CAPTURE, { i: { ...i, idempotencyKey: 'repro-action-cap-2' } }, staff);
  expect(other.body?.errors?.[0]?.extensions?.code).toBe('INVALID_STATE');
}, 60_000);

test('voidTransfer retried after a crash between the void and its record answers the voided transfer', async () => {
  const { id, status } = await transfer('review', 'repro-action-void-t');
  expect(status).toBe('AUTHORIZED');
  const i = { transferId: id, idempotencyKey: 'repro-action-void-1' };
  const first = await gqlRaw(t.url, VOID, { i }, alice);
  expect(first.body?.data?.voidTransfer).toMatchObject({ id, status: 'VOIDED' });
  await crashBeforeRecord('voidTransfer', i.idempotencyKey);
  const retry = await gqlRaw(t.url, VOID, { i }, alice);
  expect(retry.body?.errors?.[0]?.extensions?.code).toBeUndefined(); // was INVALID_STATE
  expect(retry.body?.data?.voidTransfer).toMatchObject({ id, status: 'VOIDED' });
  expect(await gatewayCalls(id, 'void')).toBe(1);
}, 60_000);

test('voidTransfer whose first attempt failed after recording its intent: the retry carries it out instead of INVALID_STATE', async () => {
  const { id } = await transfer('review', 'repro-action-void-t2');
  const saga = t.app.transfers.saga;
  const advance = saga.advance.bind(saga);
  // The first attempt dies right after its intent is written (e.g. the database connection drops): an error answer,
  // the key released — but the void is durable and will be done.
  saga.advance = async () => {
    saga.advance = advance;
    throw new Error('connection terminated');
  };
  const i = { transferId: id, idempotencyKey: 'repro-action-void-2' };
  const first = await gqlRaw(t.url, VOID, { i }, alice);
  expect(first.body?.errors?.length).toBeTruthy();
  const retry = await gqlRaw(t.url, VOID, { i }, alice);
  expect(retry.body?.errors?.[0]?.extensions?.code).toBeUndefined(); // was INVALID_STATE ("a void … already in progress")
  expect(retry.body?.data?.voidTransfer).toMatchObject({ id, status: 'VOIDED' });
  expect(await gatewayCalls(id, 'void')).toBe(1);
}, 60_000);

test('resumeTransfer retried after a crash between the resume and its record answers the resumed transfer', async () => {
  const { id, status, redirectUrl } = await transfer('review-3ds', 'repro-action-resume-t');
  expect(status).toBe('ACTION_REQUIRED');
  const page = await fetch(redirectUrl!, {
    method: 'POST',
    body: new URLSearchParams({}),
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
  });
  expect(page.status).toBeLessThan(400);
  const i = { transferId: id, idempotencyKey: 'repro-action-resume-1' };
  const first = await gqlRaw(t.url, RESUME, { i }, alice);
  expect(first.body?.data?.resumeTransfer).toMatchObject({ id, status: 'AUTHORIZED', nextAction: null });
  await crashBeforeRecord('resumeTransfer', i.idempotencyKey);
  const retry = await gqlRaw(t.url, RESUME, { i }, alice);
  expect(retry.body?.errors?.[0]?.extensions?.code).toBeUndefined(); // was INVALID_STATE
  expect(retry.body?.data?.resumeTransfer).toMatchObject({ id, status: 'AUTHORIZED', nextAction: null });
  // resumed once
  const resumes = await t.app.db.prisma.transferEvent.findMany({
    where: { transferId: id, fromStatus: 'ACTION_REQUIRED', toStatus: 'PENDING' },
  });
  expect(resumes).toHaveLength(1);
}, 60_000);
