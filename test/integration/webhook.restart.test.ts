/**
 * A crash between storing and processing loses nothing: events acknowledged while the processor is
 * stopped are processed by the next start on the same database. (PGlite on disk, or a throwaway
 * PostgreSQL database when DATABASE_URL is postgres.)
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { startTestApp, type TestApp } from '../helpers/app';
import { usingPostgres } from '../helpers/db';
import { documentEvent, ownSubscription, postSigned } from './webhook.helpers';
import { waitFor } from '../helpers/wait';

const dir = mkdtempSync(join(tmpdir(), 'rbff-webhook-restart-'));
let databaseUrl = `file:${join(dir, 'pglite')}`;
let dropDb: (() => Promise<void>) | null = null;
const key = randomBytes(32).toString('base64');
const apps: TestApp[] = [];

beforeAll(async () => {
  if (usingPostgres()) {
    const name = `test_webhook_restart_${randomBytes(4).toString('hex')}`;
    const admin = new pg.Client({ connectionString: process.env.DATABASE_URL });
    await admin.connect();
    await admin.query(`CREATE DATABASE ${name}`);
    const u = new URL(process.env.DATABASE_URL!);
    u.pathname = `/${name}`;
    databaseUrl = u.toString();
    dropDb = async () => {
      await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`).catch(() => undefined);
      await admin.end();
    };
  }
});
afterAll(async () => {
  for (const a of apps) await a.close().catch(() => undefined);
  await dropDb?.();
  rmSync(dir, { recursive: true, force: true });
});

it('events stored with the processor stopped are processed after a restart', async () => {
  const env = { DATABASE_URL: databaseUrl, WEBHOOK_SECRET_ENCRYPTION_KEY: key, WEBHOOK_POLL_INTERVAL_MS: '50' };
  const first = await startTestApp(env);
  apps.push(first);
  await first.app.webhooks.processor.stop(); // the "crash" window: stored and acknowledged, never processed
  const secret = (await ownSubscription(first)).signingSecret!;
  const ids = [`restart-a-${Math.random()}`, `restart-b-${Math.random()}`];
  for (const id of ids)
    expect((await postSigned(first.url, secret, documentEvent(id, 'VERIFIED', '2026-03-01T00:00:00Z'))).status).toBe(200);
  await new Promise((r) => setTimeout(r, 200));
  expect(await first.app.db.prisma.webhookInbox.count({ where: { processedAt: null } })).toBe(2);
  expect(await first.app.db.prisma.platformDocument.count()).toBe(0);
  await first.close();
  apps.pop();

  const second = await startTestApp(env);
  apps.push(second);
  await waitFor(async () => (await second.app.db.prisma.webhookInbox.count({ where: { processedAt: null } })) === 0, {
    timeoutMs: 15_000,
    intervalMs: 25,
    what: 'processing after restart',
  });
  expect((await second.app.db.prisma.platformDocument.findMany({ where: { id: { in: ids } } })).map((d) => d.verificationStatus)).toEqual([
    'VERIFIED',
    'VERIFIED',
  ]);
  // the restarted embedded sandbox forgot the old subscription: a new one, with a new secret we hold
  const current = await ownSubscription(second);
  const secrets = await second.app.db.prisma.webhookSecret.findMany();
  expect(secrets.map((s) => s.subscriptionId)).toContain(current.id);
  expect(
    (await postSigned(second.url, current.signingSecret!, documentEvent(`after-${Math.random()}`, 'PENDING', '2026-03-02T00:00:00Z')))
      .status,
  ).toBe(200);
  // a restart on the same URL (fixed PORT, as in development) reuses it: nothing created, nothing rotated
  expect(await second.app.webhooks.subscriptions.ensureRegistration()).toEqual({
    subscriptionId: current.id,
    created: false,
    rotated: false,
  });
}, 90_000);
