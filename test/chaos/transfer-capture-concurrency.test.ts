import { gql, startTestApp, type TestApp } from '../helpers/app';
import { http } from '../helpers/sandbox';
import { createTransfer, newPerson, newQuote, transferInput, waitForStatus } from '../e2e/transfer-helpers';

// Sender Compliance-Review: the platform holds the transaction for manual review, so no compliance decision
// captures it before the 200 requests race.
let t: TestApp;
beforeAll(async () => {
  t = await startTestApp({
    SAGA_POLL_INTERVAL_MS: '50',
    RATE_LIMIT_MUTATIONS_PER_MINUTE: '1000000',
    RATE_LIMIT_UPSTREAM_POINTS_PER_MINUTE: '1000000',
    IDEMPOTENCY_WAIT_MS: '60000',
    MUTATION_LEASE_WAIT_MS: '60000',
    LOG_LEVEL: 'error',
  });
}, 60_000);
afterAll(() => t.close());

const CAP = `mutation($i: CaptureTransferInput!) { captureTransfer(input: $i) { id status version } }`;

test('200 concurrent captureTransfer calls on one transfer (100 with one key, 100 with distinct keys) → exactly one upstream capture', async () => {
  const alice = await t.token('alice', 'customer');
  const staff = await t.token('bo', 'backoffice');
  const personId = await newPerson(t.url, alice);
  const tr = (
    await createTransfer(
      t.url,
      alice,
      transferInput({ quoteId: await newQuote(t.url, alice), personId, key: 'concurrent-capture-1', lastName: 'Compliance-Review' }),
    )
  ).body.data.createTransfer;
  await waitForStatus(t, alice, tr.id, ['AUTHORIZED']);

  const started = Date.now();
  const results = await Promise.all(
    Array.from({ length: 200 }, (_, i) =>
      gql<any>(t.url, CAP, {
        token: staff,
        variables: { i: { transferId: tr.id, idempotencyKey: i % 2 === 0 ? 'same-capture-key' : `capture-key-${i}` } },
      }),
    ),
  );
  const ms = Date.now() - started;
  const ok = results.filter((r) => r.body.data?.captureTransfer?.status === 'CAPTURED');
  const codes = results.flatMap((r) => (r.body.errors ?? []).map((e) => e.extensions?.code));
  // Whichever request captured first wins; every other distinct key is refused (a payment is captured once).
  // The 100 same-key calls all get the same answer: the stored CAPTURED result if their key won, else INVALID_STATE.
  expect(new Set(codes)).toEqual(new Set(['INVALID_STATE']));
  expect(ok.length + codes.length).toBe(200);
  const sameKey = results
    .filter((_, i) => i % 2 === 0)
    .map((r) => r.body.data?.captureTransfer?.status ?? r.body.errors?.[0]?.extensions?.code);
  expect(new Set(sameKey).size).toBe(1);
  expect(ok.length).toBe(sameKey[0] === 'CAPTURED' ? 100 : 1);
  const calls = (
    await http<any[]>('GET', `${t.app.sandbox!.url}/__sandbox/calls?path=${encodeURIComponent(`/gateway/payments/${tr.id}/capture`)}`)
  ).body;
  expect(calls).toHaveLength(1);
  expect(calls[0].status).toBe(200);
  const events = await t.app.db.prisma.transferEvent.findMany({
    where: { transferId: tr.id, toStatus: 'CAPTURED', fromStatus: 'AUTHORIZED' },
  });
  expect(events).toHaveLength(1);

  console.log(
    `200 concurrent captures: ${ms} ms, ${ok.length} CAPTURED answers, ${codes.length} INVALID_STATE, upstream captures: ${calls.length}`,
  );
}, 120_000);
