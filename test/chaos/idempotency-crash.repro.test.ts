/**
 * FIXED — bug found by the chaos kill storm (scenario 1; e.g. CHAOS_SEED=11): createTransfer's effect (the
 * transfer row, the quote marked used) and its idempotency record's result were then committed in two transactions
 * (IdempotencyService.execute: fn() then UPDATE … COMPLETED; since then one statement writes both, and a record is
 * still left unfinished by a claim taken over as abandoned, or gone after its TTL). A process killed between the
 * two left the record IN_PROGRESS; once that claim is stale, the client's retry with the SAME key and arguments runs
 * the mutation again and is told QUOTE_ALREADY_USED — although its transfer exists and goes on to move money. The
 * client believes the transfer failed and may send another one with a new quote.
 *
 *
 * Fix: the transfer's id (and externalPaymentId) is derived from the request — UUIDv5 of caller, idempotencyKey
 * and the request hash (TransferService createTransferId) — and a re-run finds the transfer it already made
 * before any other check (the quote it used, its expiry).
 *
 * Reproduced here without a kill: create, then put the record back where a crash leaves it (IN_PROGRESS, no
 * response, claimed long ago), then retry: the retry must return the same transfer. A recurrence also fails the
 * kill storm (test/chaos/scenarios/kill-storm.ts).
 */
import { startTestApp, type TestApp } from '../helpers/app';
import { CREATE, gqlRaw, kindInput, newPerson, newQuote } from './lib/client';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp({
    LOG_LEVEL: 'silent',
    SAGA_WORKER_ENABLED: 'false',
    RATE_LIMIT_MUTATIONS_PER_MINUTE: '1000000',
    RATE_LIMIT_UPSTREAM_POINTS_PER_MINUTE: '1000000',
  });
}, 60_000);
afterAll(() => t?.close());

test('a createTransfer retried with the same key after a crash between the insert and the stored result returns the same transfer', async () => {
  const alice = await t.token('repro-alice', 'customer');
  const input = kindInput('review', await newQuote(t.url, alice), await newPerson(t.url, alice), 'repro-crash-key-1');
  const first = await gqlRaw(t.url, CREATE, { i: input }, alice);
  const id = first.body?.data?.createTransfer?.id;
  expect(id).toBeTruthy();
  // what a SIGKILL after the transfer's transaction and before the record's completion leaves behind
  await t.app.db.prisma.$executeRaw`
    UPDATE idempotency_records SET state = 'IN_PROGRESS', response = NULL, created_at = now() - interval '2 hours'
    WHERE operation = 'createTransfer' AND key = 'repro-crash-key-1'`;
  const retry = await gqlRaw(t.url, CREATE, { i: input }, alice);
  expect(retry.body?.errors?.[0]?.extensions?.code).toBeUndefined(); // was QUOTE_ALREADY_USED
  expect(retry.body?.data?.createTransfer?.id).toBe(id);
}, 60_000);
