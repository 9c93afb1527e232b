/**
 * A background promise whose work fails (the database out of reach) is handled: nothing is left to reject unhandled —
 * which would end the process. Here the run a platform decision starts at receipt (the kick) and the wake-up it falls
 * back to both fail, as they do when every pool connection times out; the delivery is still answered, no rejection
 * goes unhandled, and the worker finishes the transfer once the database answers again.
 */
import { TransferLeases } from '../../src/modules/transfer/transfer.leases';
import { TransferRepository } from '../../src/modules/transfer/transfer.repository';
import { startTestApp, type TestApp } from '../helpers/app';
import { waitFor } from '../helpers/wait';
import { decideReview } from '../helpers/sandbox';
import { createTransfer, newPerson, newQuote, transferInput } from '../e2e/transfer-helpers';

let t: TestApp;
let alice: string;
const unhandled: unknown[] = [];
const onUnhandled = (reason: unknown) => unhandled.push(reason);

beforeAll(async () => {
  process.on('unhandledRejection', onUnhandled);
  t = await startTestApp({ SAGA_POLL_INTERVAL_MS: '100' });
  alice = await t.token('alice-background', 'customer');
}, 90_000);
afterAll(async () => {
  process.off('unhandledRejection', onUnhandled);
  await t?.close();
});

const row = (id: string) => t.app.db.prisma.transfer.findUniqueOrThrow({ where: { id } });

it('a decision whose kick and wake-up both fail leaves nothing unhandled; the worker completes the transfer afterwards', async () => {
  const personId = await newPerson(t.url, alice);
  const quoteId = await newQuote(t.url, alice);
  const r = await createTransfer(t.url, alice, transferInput({ quoteId, personId, key: 'background-1', lastName: 'Compliance-Review' }));
  const id: string = r.body.data.createTransfer.id;
  await waitFor(async () => (await row(id)).status === 'AUTHORIZED', { timeoutMs: 15_000, what: 'AUTHORIZED (held for review)' });
  const { externalPaymentId } = await row(id);

  const unreachable = () => Promise.reject(new Error('timeout exceeded when trying to connect'));
  const lease = jest.spyOn(TransferLeases.prototype, 'withLease').mockImplementation(unreachable);
  const wake = jest.spyOn(TransferRepository.prototype, 'wake').mockImplementation(unreachable);
  try {
    const sandbox = t.app.sandbox!;
    await decideReview(sandbox.url, externalPaymentId, 'Approved');
    // the decision's delivery reached the receipt path, whose kick ran (and failed) with its wake-up
    await waitFor(() => wake.mock.calls.some(([transferId]) => transferId === id), {
      timeoutMs: 10_000,
      what: 'the kick to fall back to a wake-up',
    });
    await new Promise((res) => setTimeout(res, 200));
    expect(unhandled).toEqual([]);
  } finally {
    lease.mockRestore();
    wake.mockRestore();
  }
  await waitFor(async () => (await row(id)).status === 'COMPLETED', { timeoutMs: 20_000, what: 'COMPLETED by the worker' });
  expect(unhandled).toEqual([]);
}, 60_000);
