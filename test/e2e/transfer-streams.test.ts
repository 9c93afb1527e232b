/**
 * What an app receives over graphql-ws while a transfer runs end to end against the sandbox (signed platform
 * webhooks, no test helper feeding events): one message per change it shows, none for the platform's facts in
 * between — which the back-office still finds, every one, in the audit trail.
 */
import { print } from 'graphql';
import { startTestApp, type TestApp } from '../helpers/app';
import { collect, wsClient } from '../helpers/ws';
import { execute } from '../operations/request';
import { ResumeTransferDocument, TransferDocument, TransferUpdatedDocument, type TransferUpdatedSubscription } from '../generated/graphql';
import { END_TO_END_ENV } from '../integration/webhook.helpers';
import { waitFor } from '../helpers/wait';
import { createTransfer, newPerson, newQuote, transferInput } from './transfer-helpers';

let t: TestApp;
let alice: string;
let staff: string;
let personId: string;

beforeAll(async () => {
  t = await startTestApp(END_TO_END_ENV);
  alice = await t.token('alice', 'customer');
  staff = await t.token('bo', 'backoffice');
  personId = await newPerson(t.url, alice);
}, 60_000);
afterAll(() => t.close());

type Update = TransferUpdatedSubscription['transferUpdated'];
/** What an app renders of a message: two messages with the same key would be a repeat. */
const shown = (u: Update) => JSON.stringify([u.status, u.nextAction, u.capturedAmount, u.failure]);

/** Follows a transfer until the stream completes; checks it is what an app wants; returns the messages. */
async function follow(
  id: string,
  afterVersion: number | null,
  drive: (until: (status: string) => Promise<Update>) => Promise<void> = async () => undefined,
): Promise<Update[]> {
  const { client } = wsClient(t.wsUrl, alice);
  const sub = collect<TransferUpdatedSubscription>(client, print(TransferUpdatedDocument), { transferId: id, afterVersion });
  try {
    const seen = () => sub.results.map((r) => r.data!.transferUpdated);
    // the app reacts to what it receives: `until` waits for the first message in that status
    await drive((status) =>
      waitFor(async () => seen().find((u) => u.status === status), { timeoutMs: 20_000, intervalMs: 25, what: `a ${status} message` }),
    );
    await waitFor(async () => sub.completed, {
      timeoutMs: 30_000,
      intervalMs: 25,
      what: 'the stream completes once the transfer is terminal',
    });
    expect(sub.error).toBeUndefined();
    const all = seen();
    const versions = all.map((u) => u.version);
    expect(versions).toEqual(versions.map((_, i) => versions[0]! + i)); // in order, none skipped, none repeated
    for (let i = 1; i < all.length; i++) expect(shown(all[i]!)).not.toBe(shown(all[i - 1]!)); // every message shows a change
    return all;
  } finally {
    await client.dispose();
  }
}

/** The back-office's trail: every platform fact the inbox applied is in it, most of them without a version. */
async function expectEveryFactInTrail(id: string, messages: Update[]) {
  const r = await execute(t.url, TransferDocument, { token: staff, variables: { id, eventsFirst: 100 } });
  expect(r.errors).toBeUndefined();
  const tr = r.data!.transfer!;
  const trail = tr.events.edges.map((e) => e.node);
  expect(trail.map((e) => e.seq)).toEqual(trail.map((_, i) => i + 1));
  expect(tr.lastEventSeq).toBe(trail.length);
  const applied = await t.app.db.prisma.webhookInbox.findMany({
    where: { outcome: 'applied', payload: { path: ['externalTransactionId'], equals: id } },
    select: { id: true },
  });
  expect(applied.length).toBeGreaterThan(0);
  const refs = new Set(trail.map((e) => e.upstreamRef));
  for (const a of applied) expect(refs.has(a.id)).toBe(true);
  // the versions in the trail are exactly the ones an app got (from its first message on)
  const versioned = trail.filter((e) => e.version !== null);
  expect(versioned.map((e) => e.version)).toEqual(versioned.map((_, i) => i + 1));
  expect(versioned.slice(messages[0]!.version - 1).map((e) => `${e.version}:${e.toStatus}`)).toEqual(
    messages.map((m) => `${m.version}:${m.status}`),
  );
  expect(trail.length).toBeGreaterThan(versioned.length); // facts recorded without a version
  expect(tr.version).toBe(messages.at(-1)!.version);
}

test('happy path: at most 6 messages (PENDING, AUTHORIZED, CAPTURED, PAYOUT_PENDING, COMPLETED), no repeat; the back-office trail has every platform fact', async () => {
  const tr = (await createTransfer(t.url, alice, transferInput({ quoteId: await newQuote(t.url, alice), personId, key: 'streams-happy' })))
    .body.data.createTransfer;
  const messages = await follow(tr.id, null);
  expect(messages.length).toBeLessThanOrEqual(6);
  expect(messages.at(-1)!.status).toBe('COMPLETED');
  expect(messages.map((m) => m.status)).toEqual(expect.arrayContaining(['AUTHORIZED', 'CAPTURED', 'PAYOUT_PENDING', 'COMPLETED']));
  expect(new Set(messages.map((m) => m.status)).size).toBe(messages.length);
  expect(messages.find((m) => m.status === 'CAPTURED')!.capturedAmount).toEqual({ amount: '103.99', currency: 'USD' }); // the total (100.00 + 3.99 fee)
  await expectEveryFactInTrail(tr.id, messages);
}, 60_000);

test('3DS path (card 0002): from the created version on at most 6 messages — ACTION_REQUIRED, PENDING (challenge done), AUTHORIZED, … COMPLETED — never the same status twice in a row', async () => {
  const tr = (
    await createTransfer(t.url, alice, transferInput({ quoteId: await newQuote(t.url, alice), personId, key: 'streams-3ds', card: '0002' }))
  ).body.data.createTransfer;
  const messages = await follow(tr.id, tr.version, async (until) => {
    const challenged = await until('ACTION_REQUIRED');
    const page = await fetch(challenged.nextAction!.redirectUrl!, {
      method: 'POST',
      body: new URLSearchParams({}),
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(page.status).toBeLessThan(400);
    const resumed = await execute(t.url, ResumeTransferDocument, {
      token: alice,
      variables: { input: { transferId: tr.id, idempotencyKey: 'streams-3ds-resume' } },
    });
    expect(resumed.errors).toBeUndefined();
  });
  expect(messages.length).toBeLessThanOrEqual(6);
  expect(messages.map((m) => m.status)).toEqual(['ACTION_REQUIRED', 'PENDING', 'AUTHORIZED', 'CAPTURED', 'PAYOUT_PENDING', 'COMPLETED']);
  expect(messages[0]!.nextAction?.type).toBe('THREE_DS_CHALLENGE');
  expect(messages.slice(1).every((m) => m.nextAction === null)).toBe(true);
  await expectEveryFactInTrail(tr.id, messages);
}, 60_000);
