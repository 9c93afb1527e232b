/**
 * A card is checked once per card transfer when the app just checked it: createTransfer reuses the customer's
 * checkCard of the same card for the same sender if the gateway APPROVED it (no 3-D Secure) within
 * CARD_CHECK_REUSE_S; otherwise the saga checks the card again before authorizing. Counted on the sandbox's own
 * request log (real HTTP), on a clock moved past the reuse window.
 */
import { gql, startTestApp, type TestApp } from '../helpers/app';
import { checkCardAs } from '../helpers/funding';
import { cardToken, http } from '../helpers/sandbox';
import { getTransfer, newPerson, newQuote, transferInput, waitForStatus } from '../e2e/transfer-helpers';
import type { Clock } from '../../src/shared/clock';

let offsetMs = 0;
const clock: Clock = { nowMs: () => Date.now() + offsetMs, now: () => new Date(Date.now() + offsetMs) };

let t: TestApp;
let alice: string;
let doe: string;
let roe: string;

const CREATE = `mutation($i: CreateTransferInput!) { createTransfer(input: $i) { id status } }`;
const cardChecks = async (card: string) =>
  (
    await http<{ status: number }[]>(
      'GET',
      `${t.app.sandbox!.url}/__sandbox/calls?path=${encodeURIComponent('/gateway/v2/check-card-account')}`,
    )
  ).body.length;

/** The number of gateway card checks made for a new card from the app's checkCard (as `checkedFor`) to AUTHORIZED. */
async function transferAfterCheck(card: string, checkedFor: string, sender: string, waitMs = 0) {
  const token = cardToken(card);
  const before = await cardChecks(card);
  await checkCardAs(t.url, alice, token, checkedFor);
  offsetMs += waitMs;
  const quoteId = await newQuote(t.url, alice);
  const r = await gql<any>(t.url, CREATE, {
    token: alice,
    variables: { i: transferInput({ quoteId, personId: sender, key: `reuse-${card}-${Date.now()}`, card }) },
  });
  expect(r.body.errors).toBeUndefined();
  const id = r.body.data.createTransfer.id as string;
  const tr = await waitForStatus(t, alice, id, ['AUTHORIZED', 'ACTION_REQUIRED', 'DECLINED', 'FAILED'], 20_000);
  return { tr, id, checks: (await cardChecks(card)) - before };
}

beforeAll(async () => {
  t = await startTestApp(
    {
      CARD_CHECK_REUSE_S: '60',
      SAGA_POLL_INTERVAL_MS: '50',
      SAGA_RETRY_BASE_MS: '50',
      RATE_LIMIT_MUTATIONS_PER_MINUTE: '100000',
      RATE_LIMIT_UPSTREAM_POINTS_PER_MINUTE: '100000',
    },
    { clock },
  );
  alice = await t.token('alice', 'customer');
  doe = await newPerson(t.url, alice, 'Doe');
  roe = await newPerson(t.url, alice, 'Roe');
}, 60_000);
afterAll(() => t.close());

test('an APPROVED checkCard for the same sender moments before: the saga does not check the card again', async () => {
  const { tr, id, checks } = await transferAfterCheck('4101', doe, doe);
  expect(tr.status).toBe('AUTHORIZED');
  expect(checks).toBe(1); // the app's checkCard only
  // the audit trail says which check it relied on
  const full = await getTransfer(t.url, alice, id);
  expect(full.events.edges.map((e: any) => e.node.toStatus)).toContain('AUTHORIZED');
  const steps = await t.app.db.prisma.sagaStep.findMany({ where: { transferId: id, step: 'check' } });
  expect(steps).toHaveLength(1);
  expect(steps[0]).toMatchObject({ state: 'SUCCEEDED', response: { outcome: 'APPROVED', reusedCheckAt: expect.any(String) } });
});

test('checked for another sender of the same customer: checked again for the transfer’s sender', async () => {
  const { tr, checks } = await transferAfterCheck('4102', doe, roe);
  expect(tr.status).toBe('AUTHORIZED');
  expect(checks).toBe(2);
});

test('a check older than CARD_CHECK_REUSE_S (yet young enough to fund): checked again', async () => {
  // our clock moves past the window between the check and the transfer (the sandbox's does not: the quote stays valid)
  const { tr, checks } = await transferAfterCheck('4103', doe, doe, 61_000);
  offsetMs = 0;
  expect(tr.status).toBe('AUTHORIZED');
  expect(checks).toBe(2);
});

test('a check that asked for 3-D Secure is never reused: the saga checks again and asks the customer', async () => {
  const { tr, checks } = await transferAfterCheck('0002', doe, doe);
  expect(tr.status).toBe('ACTION_REQUIRED');
  expect(tr.nextAction).toMatchObject({ type: 'THREE_DS_CHALLENGE' });
  expect(checks).toBe(2);
});
