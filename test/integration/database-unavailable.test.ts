/**
 * The database out of reach (here: a PostgreSQL URL nobody listens on — deterministic, no server needed) is a
 * transient condition, not a bug: /readyz says 503 and GraphQL answers SERVICE_UNAVAILABLE (retry), never
 * INTERNAL_SERVER_ERROR, with no stack trace and nothing about the connection (host, port, user) in the message.
 */
import { randomUUID } from 'node:crypto';
import { isDatabaseUnavailable } from '../../src/db/db.errors';
import { transferInput } from '../e2e/transfer-helpers';
import { gql, startTestApp, type TestApp } from '../helpers/app';

let t: TestApp;
let token: string;
beforeAll(async () => {
  t = await startTestApp(
    { DATABASE_URL: 'postgresql://nobody@127.0.0.1:1/nowhere', WEBHOOK_POLL_INTERVAL_MS: '600000' },
    {},
    { ready: false },
  );
  token = await t.token('alice', 'customer');
}, 60_000);
afterAll(() => t.close());

test('/readyz is 503 while the database cannot be reached', async () => {
  const r = await fetch(`${t.url}/readyz`);
  expect(r.status).toBe(503);
});

test.each([
  ['a read', 'query { transfers(first: 5) { edges { node { id } } } }', {}],
  [
    'a mutation',
    'mutation($i: CreateTransferInput!) { createTransfer(input: $i) { id } }',
    { i: transferInput({ quoteId: randomUUID(), personId: randomUUID(), key: 'db-down-key-1' }) },
  ],
])('%s answers SERVICE_UNAVAILABLE, not INTERNAL_SERVER_ERROR, and leaks nothing', async (_what, query, variables) => {
  const r = await gql<any>(t.url, query, { token, variables });
  const err = r.body.errors?.[0];
  expect(err?.extensions?.code).toBe('SERVICE_UNAVAILABLE');
  expect(err?.message).toMatch(/temporarily unavailable/);
  expect(err?.extensions?.detail).toMatch(/temporarily unavailable; retry/);
  const text = JSON.stringify(r.body);
  for (const leak of ['127.0.0.1', 'nobody', 'nowhere', 'stack', 'prisma', 'P1001']) expect(text).not.toContain(leak);
  // logged as a warning, not as an unexpected error
  expect(t.logs.some((l) => l.includes('database unavailable while executing a GraphQL operation'))).toBe(true);
});

test('the classifier: unreachable / cut / exhausted are unavailable; constraint violations and bugs are not', () => {
  expect(isDatabaseUnavailable(Object.assign(new Error("Can't reach database server at x"), { code: 'P1001' }))).toBe(true);
  expect(
    isDatabaseUnavailable(Object.assign(new Error('Timed out fetching a new connection from the connection pool'), { code: 'P2024' })),
  ).toBe(true);
  expect(
    isDatabaseUnavailable(
      new Error('wrapped', { cause: { kind: 'postgres', code: '57P01', message: 'terminating connection due to administrator command' } }),
    ),
  ).toBe(true);
  expect(isDatabaseUnavailable(new Error('wrapped', { cause: { kind: 'ConnectionClosed' } }))).toBe(true);
  expect(isDatabaseUnavailable(Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' }))).toBe(true);
  // pg-pool: every connection busy for longer than the connection timeout
  expect(isDatabaseUnavailable(new Error('timeout exceeded when trying to connect'))).toBe(true);
  expect(isDatabaseUnavailable(Object.assign(new Error('Unique constraint failed'), { code: 'P2002' }))).toBe(false);
  expect(isDatabaseUnavailable(new Error('wrapped', { cause: { kind: 'postgres', code: '23505' } }))).toBe(false);
  expect(isDatabaseUnavailable(new TypeError("Cannot read properties of undefined (reading 'x')"))).toBe(false);
  const loop: { cause?: unknown } = {};
  loop.cause = loop;
  expect(isDatabaseUnavailable(loop)).toBe(false);
});
