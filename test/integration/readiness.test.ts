/**
 * /readyz tells anyone whether the instance is ready, and nothing more; each check's details (signing-secret
 * fingerprints, pending counts) go to an admin's token and to the metrics listener. Anonymous probes share one
 * evaluation per second: a flood of them costs the database next to nothing.
 */
import { startTestApp, type TestApp } from '../helpers/app';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp({ METRICS_PORT: '0' });
}, 60_000);
afterAll(() => t?.close());

const readyz = async (url: string, token?: string) => {
  const res = await fetch(`${url}/readyz`, { headers: token ? { authorization: `Bearer ${token}` } : {} });
  return { status: res.status, body: (await res.json()) as { status: string; checks?: Record<string, unknown> } };
};

it('anonymous callers and customers get the status only; admins every check with its details', async () => {
  expect(await readyz(t.url)).toEqual({ status: 200, body: { status: 'ready' } });
  expect(await readyz(t.url, 'not-a-token')).toEqual({ status: 200, body: { status: 'ready' } });
  expect(await readyz(t.url, await t.token('ready-customer', 'customer'))).toEqual({ status: 200, body: { status: 'ready' } });
  expect(await readyz(t.url, await t.token('ready-staff', 'backoffice'))).toEqual({ status: 200, body: { status: 'ready' } });
  const admin = await readyz(t.url, await t.token('ready-admin', 'admin'));
  expect(admin.status).toBe(200);
  expect(admin.body.checks).toMatchObject({ database: { status: 'ok' }, pubsub: { status: 'ok', details: { kind: 'memory' } } });
});

it('the metrics listener shows every check with its details', async () => {
  const address = t.app.metricsServer?.server.address();
  if (!address || typeof address === 'string') throw new Error('no metrics listener');
  const r = await readyz(`http://127.0.0.1:${address.port}`);
  expect(r.status).toBe(200);
  expect(r.body.checks).toMatchObject({ database: { status: 'ok' } });
});

it('a flood of anonymous probes shares one evaluation per second', async () => {
  const isReady = jest.spyOn(t.app.db, 'isReady');
  try {
    await new Promise((r) => setTimeout(r, 1_100)); // past the last cached evaluation
    const answers = await Promise.all(Array.from({ length: 200 }, () => readyz(t.url)));
    expect(answers.every((a) => a.status === 200)).toBe(true);
    expect(isReady.mock.calls.length).toBeLessThanOrEqual(2);
  } finally {
    isReady.mockRestore();
  }
});
