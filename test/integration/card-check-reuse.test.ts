/**
 * A card is checked once per card transfer when the app just checked it: createTransfer reuses the customer's
 * checkCard of the same card for the same sender if the gateway APPROVED it (no 3-D Secure) within
 * CARD_CHECK_REUSE_S; otherwise the saga checks the card again before authorizing. Counted on the sandbox's own
 * request log (real HTTP), on a clock moved past the reuse window, and with a check answered (declined) between
 * createTransfer's read of the card and its write.
 */
import { gql, startTestApp, type TestApp } from '../helpers/app';
import { checkCardAs } from '../helpers/funding';
import { cardToken, http } from '../helpers/sandbox';
import { getTransfer, newPerson, newQuote, transferInput, waitForStatus } from '../e2e/transfer-helpers';
import type { Clock } from '../../src/shared/clock';
import pg from 'pg';
import { FundingCredentials } from '../../src/modules/checks/checks.credentials.repository';
import { usingPostgres } from '../helpers/db';

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

test('a check answered between createTransfer reading the card and writing the transfer (declined) is not overtaken: checked again', async () => {
  // The interleaving cannot be timed from outside: the read is wrapped so that, once it has returned, the same card's
  // check is answered DECLINED (as FundingCredentials.bind records it) before the transfer is written.
  const read = FundingCredentials.prototype.assertUsable;
  const spy = jest.spyOn(FundingCredentials.prototype, 'assertUsable').mockImplementationOnce(async function (
    this: FundingCredentials,
    ...args: Parameters<FundingCredentials['assertUsable']>
  ) {
    const usable = await read.apply(this, args);
    expect(usable.approvedAt).toBeInstanceOf(Date); // it would have been reused
    await this.bind('card', args[1], args[2], null);
    return usable;
  });
  try {
    const { tr, id, checks } = await transferAfterCheck('4104', doe, doe);
    expect(spy).toHaveBeenCalledTimes(1);
    expect(checks).toBe(2); // the saga checked the card again
    expect(tr.status).toBe('AUTHORIZED'); // the sandbox approves this card: the transfer goes on
    const row = await t.app.db.prisma.transfer.findUniqueOrThrow({ where: { id } });
    expect((row.details as { funding: object }).funding).not.toHaveProperty('approvedCheckAt');
    const steps = await t.app.db.prisma.sagaStep.findMany({ where: { transferId: id, step: 'check' } });
    expect(steps[0]?.response).not.toHaveProperty('reusedCheckAt');
  } finally {
    spy.mockRestore();
  }
});

(usingPostgres() ? test : test.skip)(
  'PostgreSQL: a check being recorded while the transfer is written is waited for, and its DECLINED decides',
  async () => {
    const card = '4105';
    await checkCardAs(t.url, alice, cardToken(card), doe);
    const before = await cardChecks(card);
    const quoteId = await newQuote(t.url, alice);
    // another session records a declined check of the card and holds it uncommitted (as bind() does, in its own statement)
    const db = t.app.config.database;
    const other = new pg.Client({ connectionString: db.kind === 'postgres' ? db.url : '' });
    await other.connect();
    try {
      await other.query('BEGIN');
      const { rowCount } = await other.query(
        `UPDATE funding_credentials SET approved_holder = NULL, checked_at = now()
         WHERE token_hash = (SELECT token_hash FROM funding_credentials ORDER BY checked_at DESC LIMIT 1)`,
      );
      expect(rowCount).toBe(1);
      const created = gql<any>(t.url, CREATE, {
        token: alice,
        variables: { i: transferInput({ quoteId, personId: doe, key: `reuse-${card}-locked`, card }) },
      });
      // the transfer's statement reaches the row and waits for that session
      const waiting = async () =>
        (
          await other.query(
            // only sessions this one blocks: other suites share the database and may wait on their own locks
            `SELECT count(*)::int AS n FROM pg_stat_activity WHERE pg_backend_pid() = ANY(pg_blocking_pids(pid))`,
          )
        ).rows[0].n as number;
      for (let i = 0; i < 100 && (await waiting()) === 0; i++) await new Promise((r) => setTimeout(r, 50));
      expect(await waiting()).toBe(1);
      await other.query('COMMIT');
      const r = await created;
      expect(r.body.errors).toBeUndefined();
      const id = r.body.data.createTransfer.id as string;
      const tr = await waitForStatus(t, alice, id, ['AUTHORIZED', 'ACTION_REQUIRED', 'DECLINED', 'FAILED'], 20_000);
      expect(tr.status).toBe('AUTHORIZED');
      expect((await cardChecks(card)) - before).toBe(1); // the saga's own check: the reuse was taken out
    } finally {
      await other.end();
    }
  },
);
