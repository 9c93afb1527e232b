/**
 * A platform decision can arrive before the saga has run a transfer's funding check (the worker has not got to
 * it yet): the webhook path then runs the saga itself (TransferService.kick, cause `webhook`). Before
 * authorization every move is the saga's own (check challenge → ACTION_REQUIRED, check failed → DECLINED,
 * authorization), so it must be applied, not refused by the transition table — and a settled check whose move
 * was lost must be applied by the next run, never leave the transfer PENDING with nothing to do.
 * (Found by test/chaos/transfer-property.test.ts, seed -821290699: PENDING + check SUCCEEDED/CHALLENGE after draining.)
 * The worker is off: the test decides who runs the saga and when.
 */
import { startTestApp, type TestApp } from '../helpers/app';
import { bindCheckedCard, createTransfer, newPerson, newQuote, platformEvent, transferInput } from '../e2e/transfer-helpers';

let t: TestApp;
let alice: string;
let personId: string;

beforeAll(async () => {
  t = await startTestApp({ SAGA_WORKER_ENABLED: 'false' });
  alice = await t.token('alice-kick', 'customer');
  personId = await newPerson(t.url, alice);
}, 90_000);
afterAll(async () => t?.close());

async function pending(key: string, card: string): Promise<{ id: string; ext: string }> {
  const quoteId = await newQuote(t.url, alice);
  await bindCheckedCard(t, 'alice-kick', card); // a card that fails checkCard (0003) is bound only by an earlier passing check
  const r = await createTransfer(t.url, alice, transferInput({ quoteId, personId, key, card, lastName: 'Compliance-Review' }));
  if (!r.body.data) throw new Error(JSON.stringify(r.body.errors));
  const row = await t.app.db.prisma.transfer.findUniqueOrThrow({ where: { id: r.body.data.createTransfer.id } });
  expect(row.status).toBe('PENDING'); // nobody has run the saga yet
  return { id: row.id, ext: row.externalPaymentId };
}

const row = (id: string) => t.app.db.prisma.transfer.findUniqueOrThrow({ where: { id } });
const refusals = (id: string) => t.app.db.prisma.transferRefusal.findMany({ where: { transferId: id } });

it.each([
  ['0002', 'ACTION_REQUIRED'], // the card check asks for a 3DS challenge
  ['0003', 'DECLINED'], // the card check fails
])(
  'compliance decision before the card check (card %s): the saga it runs applies the check → %s, nothing refused',
  async (card, expected) => {
    const { id, ext } = await pending(`kick-${card}`, card);
    expect(await platformEvent(t, ext, { type: 'compliance', oldStatus: 'Pending', newStatus: 'Approved' })).toMatchObject({
      applied: true,
    });
    const after = await row(id);
    expect(after.status).toBe(expected);
    if (expected === 'ACTION_REQUIRED') expect(after.nextAction).toMatchObject({ type: 'THREE_DS_CHALLENGE' });
    expect(await refusals(id)).toEqual([]);
    // and the worker finds nothing left to do but wait (no step unsettled)
    await t.app.transfers.worker.tick();
    expect((await row(id)).status).toBe(expected);
    expect(await t.app.db.prisma.sagaStep.count({ where: { transferId: id, state: { in: ['PENDING', 'UNKNOWN'] } } })).toBe(0);
  },
  60_000,
);

it('a check settled as CHALLENGE whose move was lost (crash between the two writes): the next run applies it', async () => {
  const { id, ext } = await pending('kick-lost-move', '0002');
  // What a process killed right after `settle(check, SUCCEEDED)` leaves behind: the step says CHALLENGE, the transfer still PENDING.
  await t.app.db.prisma.sagaStep.create({
    data: {
      transferId: id,
      step: 'check',
      idempotencyKey: `${ext}:check`,
      state: 'SUCCEEDED',
      attempts: 1,
      request: { funding: 'CARD' },
      response: { outcome: 'CHALLENGE', reasons: [], lastFour: '0002' },
    },
  });
  await t.app.transfers.worker.tick();
  const after = await row(id);
  expect(after.status).toBe('ACTION_REQUIRED');
  expect(after.nextAction).toMatchObject({ type: 'THREE_DS_CHALLENGE' });
}, 60_000);
