/**
 * A capture or void whose effect is still in progress when the call returns: the answer is the transfer as it stands
 * (AUTHORIZED, no error), and the worker finishes the action later, exactly once at the gateway (docs/transfers.md,
 * "An action still in progress").
 */
import { gql, startTestApp, type TestApp } from '../helpers/app';
import { setFaults } from '../helpers/sandbox';
import { createTransfer, newPerson, newQuote, transferInput, waitForStatus } from '../e2e/transfer-helpers';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
}, 60_000);
afterAll(() => t?.close());

const faults = (f: Record<string, unknown>) => setFaults(t.app.sandbox!.url, f);

it.each([
  ['captureTransfer', 'CaptureTransferInput', 'CAPTURED', 'capture'],
  ['voidTransfer', 'VoidTransferInput', 'VOIDED', 'void'],
])('%s whose gateway answers are lost answers AUTHORIZED, then ends as asked, once', async (mutation, input, done, path) => {
  const alice = await t.token(`progress-alice-${path}`, 'customer');
  const staff = await t.token('progress-bo', 'backoffice');
  const personId = await newPerson(t.url, alice);
  const quoteId = await newQuote(t.url, alice);
  // held for review: waits AUTHORIZED for back-office to capture or void it
  const r = await createTransfer(
    t.url,
    alice,
    transferInput({
      quoteId,
      personId,
      key: `progress-${path}`,
      card: path === 'capture' ? '1234' : '4321',
      lastName: 'Compliance-Review',
    }),
  );
  if (!r.body.data) throw new Error(JSON.stringify(r.body.errors));
  const id: string = (r.body.data as any).createTransfer.id;
  await waitForStatus(t, alice, id, ['AUTHORIZED'], 15_000);
  const ext = (await t.app.db.prisma.transfer.findUniqueOrThrow({ where: { id } })).externalPaymentId!;

  await faults({ dropResponseAfterCommitRate: 1 });
  let answer;
  try {
    answer = await gql<any>(t.url, `mutation($i: ${input}!) { ${mutation}(input: $i) { status } }`, {
      token: staff,
      variables: { i: { transferId: id, idempotencyKey: `progress-${path}-1` } },
    });
  } finally {
    await faults({ dropResponseAfterCommitRate: 0 });
  }
  expect(answer.body.errors).toBeUndefined();
  expect(answer.body.data[mutation].status).toBe('AUTHORIZED');

  await waitForStatus(t, alice, id, [done, ...(done === 'CAPTURED' ? ['PAYOUT_PENDING', 'COMPLETED'] : [])], 20_000);
  const payment = (await (await fetch(`${t.app.sandbox!.url}/__sandbox/calls?path=/gateway/payments/${ext}/${path}`)).json()) as {
    status: number;
    idempotencyKey?: string;
  }[];
  // the lost answers, then the same action found again: one key for every call, one effect at the gateway
  expect(payment.length).toBeGreaterThanOrEqual(2);
  expect(payment.filter((c) => c.status === 0).length).toBeGreaterThanOrEqual(1);
  expect(new Set(payment.map((c) => c.idempotencyKey)).size).toBe(1);
  const steps = await t.app.db.prisma.sagaStep.findMany({ where: { transferId: id, step: path } });
  expect(steps).toEqual([expect.objectContaining({ state: 'SUCCEEDED' })]);
});
