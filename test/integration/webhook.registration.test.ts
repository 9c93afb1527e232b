/**
 * The service's own subscription (PUBLIC_URL + /webhooks/remittances, every event it processes, signed with a
 * secret it holds) is never removed by registerWebhookSubscription: another event list keeps the events the
 * service needs, and deliveries keep arriving, signed, throughout.
 */
import { randomUUID } from 'node:crypto';
import { gql, startTestApp, type TestApp } from '../helpers/app';
import { SUBSCRIBED_EVENTS } from '../../src/modules/webhook/webhook.normalize';
import { sandboxSubscriptions } from './webhook.helpers';
import { waitFor } from '../helpers/wait';

let t: TestApp;
let admin: string;

beforeAll(async () => {
  t = await startTestApp({ WEBHOOK_POLL_INTERVAL_MS: '50' });
  admin = await t.token('root', 'admin');
}, 60_000);
afterAll(async () => t?.close());

const own = async () => (await sandboxSubscriptions(t)).filter((s) => s.url === `${t.url}/webhooks/remittances`);
const covers = (events: string[]) => SUBSCRIBED_EVENTS.every((e) => events.some((x) => x.toLowerCase() === e.toLowerCase()));

/** An agent event published by the sandbox platform itself (creating an agent), received signed and stored. */
async function platformEventDelivered(): Promise<void> {
  const before = await t.app.db.prisma.webhookInbox.count({ where: { kind: 'agent', signed: true } });
  const r = await gql<any>(
    t.url,
    `mutation { createAgentLegacy(input: { email: "agent-${randomUUID()}@example.com", businessName: "Agent Ltd" }) { agent { id } } }`,
    { token: admin },
  );
  expect(r.body.errors).toBeUndefined();
  await waitFor(async () => (await t.app.db.prisma.webhookInbox.count({ where: { kind: 'agent', signed: true } })) > before, {
    timeoutMs: 15_000,
    intervalMs: 25,
    what: 'a signed agent delivery',
  });
}

it('registering another event list never removes what the service needs; deliveries still arrive', async () => {
  const [first] = await own();
  expect(first).toBeDefined();

  const res = await gql<any>(
    t.url,
    'mutation($i: RegisterWebhookSubscriptionInput) { registerWebhookSubscription(input: $i) { created subscription { id events isOwn secretStored } } }',
    {
      token: admin,
      variables: { i: { events: ['TransactionStatusChanged'] } },
    },
  );
  expect(res.body.errors).toBeUndefined();
  const sub = res.body.data.registerWebhookSubscription.subscription;
  expect(sub.isOwn).toBe(true);
  expect(sub.secretStored).toBe(true);
  expect(covers(sub.events)).toBe(true);

  // an own subscription covering every needed event, with a secret we hold, still exists
  const mine = await own();
  expect(mine.some((s) => covers(s.events) && s.signingSecret)).toBe(true);
  expect((await t.app.webhooks.readiness.check()) as boolean).toBe(true);

  // adding a legacy spelling: a superset is created first (signed), nothing needed is ever missing
  const legacy = await gql<any>(
    t.url,
    'mutation($i: RegisterWebhookSubscriptionInput) { registerWebhookSubscription(input: $i) { created subscription { id events secretStored } } }',
    {
      token: admin,
      variables: { i: { events: ['documentUpdatedEvents'] } },
    },
  );
  expect(legacy.body.errors).toBeUndefined();
  expect(legacy.body.data.registerWebhookSubscription.subscription.secretStored).toBe(true);
  expect(covers(legacy.body.data.registerWebhookSubscription.subscription.events)).toBe(true);
  expect((await own()).every((s) => s.signingSecret)).toBe(true);

  await platformEventDelivered();
  // the sandbox says its deliveries to us succeeded
  const delivered = (await own()).flatMap((s) => s.deliveries).filter((d) => d.event.toLowerCase() === 'agentupdatedevents');
  expect(delivered.length).toBeGreaterThan(0);
  expect(delivered.every((d) => d.signed)).toBe(true);
}, 60_000);
