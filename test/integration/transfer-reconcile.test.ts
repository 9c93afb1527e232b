/**
 * Lost webhooks never strand a transfer: with the platform's deliveries cut off entirely, a transfer waiting on
 * the platform reads the transaction's state from it (SAGA_RECONCILE_AFTER_MS) and still completes — one
 * authorization, one capture.
 */
import { startTestApp, type TestApp } from '../helpers/app';
import { http } from '../helpers/sandbox';
import { createTransfer, newPerson, newQuote, transferInput, waitForStatus } from '../e2e/transfer-helpers';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp({ SAGA_RECONCILE_AFTER_MS: '400' });
}, 90_000);
afterAll(async () => t?.close());

it('completes with every webhook lost, by asking the platform', async () => {
  // Cut the platform's webhooks off: delete every subscription the service registered at start.
  const { webhooks } = (await t.app.upstream.remittances.listWebhooks()) as { webhooks: { id: string }[] };
  expect(webhooks.length).toBeGreaterThan(0);
  for (const w of webhooks) await t.app.upstream.remittances.deleteWebhook(w.id);

  const alice = await t.token('alice-reconcile', 'customer');
  const staff = await t.token('ops-reconcile', 'backoffice');
  const personId = await newPerson(t.url, alice);
  const quoteId = await newQuote(t.url, alice);
  const r = await createTransfer(t.url, alice, transferInput({ quoteId, personId, key: 'reconcile-key-1' }));
  if (!r.body.data) throw new Error(JSON.stringify(r.body.errors));
  const id = r.body.data.createTransfer.id as string;

  const done = await waitForStatus(t, staff, id, ['COMPLETED'], 60_000);
  expect(done.status).toBe('COMPLETED');
  const ext = (await t.app.db.prisma.transfer.findUniqueOrThrow({ where: { id } })).externalPaymentId;
  const calls = (await http('GET', `${t.app.sandbox!.url}/__sandbox/calls`)).body as { path: string; status: number }[];
  expect(calls.filter((c) => c.path === '/gateway/v2/payment' && c.status === 200)).toHaveLength(1);
  expect(calls.filter((c) => c.path === `/gateway/payments/${ext}/capture` && c.status === 200)).toHaveLength(1);
  expect(calls.some((c) => c.path.includes(`/fx/transactions/${ext}`))).toBe(true); // it asked the platform
  // no webhook reached the service: every platform fact came from reconciliation
  expect(await t.app.db.prisma.webhookInbox.count()).toBe(0);
  const events = await t.app.db.prisma.transferEvent.findMany({ where: { transferId: id }, orderBy: { seq: 'asc' } });
  expect(events.some((e) => e.actor === 'reconcile')).toBe(true);
}, 90_000);
