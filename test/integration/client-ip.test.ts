import { loadConfig } from '../../src/config';
import type { CardCheckRequest } from '../../src/upstream/gateway/gateway.types';
import { startTestApp, type TestApp } from '../helpers/app';
import { cardToken } from '../helpers/sandbox';
import { newPerson } from '../e2e/transfer-helpers';

/**
 * The customer's IP is never asked of the app: it is the request's (Fastify request.ip). X-Forwarded-For counts
 * only when the peer is a proxy TRUST_PROXY names; otherwise anyone could claim any address.
 */
const CHECK = 'mutation($i: CheckCardInput!) { checkCard(input: $i) { status } }';

async function ipSentUpstream(t: TestApp, forwardedFor: string, suffix: string): Promise<string | undefined> {
  const token = await t.token(`ip-${suffix}`, 'customer');
  const personId = await newPerson(t.url, token);
  const seen: CardCheckRequest[] = [];
  const gateway = t.app.upstream.gateway;
  const original = gateway.checkCard.bind(gateway);
  const spy = jest.spyOn(gateway, 'checkCard').mockImplementation(async (req) => {
    seen.push(req);
    return original(req);
  });
  try {
    const res = await fetch(`${t.url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token}`, 'x-forwarded-for': forwardedFor },
      body: JSON.stringify({
        query: CHECK,
        variables: { i: { cardToken: cardToken('1234', `aaaaaaaa-0000-4000-8${suffix.padStart(3, '0')}`), personId } },
      }),
    });
    const body = (await res.json()) as { errors?: unknown };
    expect(body.errors).toBeUndefined();
  } finally {
    spy.mockRestore();
  }
  expect(seen).toHaveLength(1);
  return seen[0]!.ipAddress;
}

describe('client IP', () => {
  it('is the TCP peer by default: X-Forwarded-For from an untrusted client is ignored', async () => {
    const t = await startTestApp();
    try {
      expect(await ipSentUpstream(t, '198.51.100.9', '1')).toBe('127.0.0.1');
    } finally {
      await t.close();
    }
  }, 90_000);

  it('is the forwarded client when the peer is a proxy TRUST_PROXY trusts (and only then)', async () => {
    const t = await startTestApp({ TRUST_PROXY: '127.0.0.0/8,::1' });
    try {
      expect(await ipSentUpstream(t, '198.51.100.9', '2')).toBe('198.51.100.9');
      // a spoofed hop before a real client: only the nearest untrusted address counts
      expect(await ipSentUpstream(t, '10.9.9.9, 198.51.100.10', '3')).toBe('198.51.100.10');
    } finally {
      await t.close();
    }
  }, 90_000);

  it('TRUST_PROXY must be addresses or CIDR ranges', () => {
    expect(() => loadConfig({ NODE_ENV: 'test', TRUST_PROXY: 'everyone' })).toThrow(/TRUST_PROXY/);
    expect(loadConfig({ NODE_ENV: 'test', TRUST_PROXY: '10.0.0.0/8, 192.168.1.1' }).trustProxy).toEqual(['10.0.0.0/8', '192.168.1.1']);
  });
});

describe('failed websocket connection_init behind a trusted proxy', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ TRUST_PROXY: '127.0.0.1', RATE_LIMIT_ANONYMOUS_PER_MINUTE: '2' });
  }, 90_000);
  afterAll(() => t?.close());

  const failedInit = (forwardedFor: string) =>
    new Promise<number>((resolve, reject) => {
      const { WebSocket } = require('ws') as typeof import('ws');
      const ws = new WebSocket(t.wsUrl, 'graphql-transport-ws', { headers: { 'x-forwarded-for': forwardedFor } });
      ws.on('open', () => ws.send(JSON.stringify({ type: 'connection_init', payload: { authorization: 'Bearer not.a.token' } })));
      ws.on('close', (code) => resolve(code));
      ws.on('error', reject);
    });

  it("are counted against the forwarded client, not the proxy: one client's flood does not lock others out", async () => {
    const flood = [];
    for (let i = 0; i < 4; i++) flood.push(await failedInit('198.51.100.7'));
    expect(flood.at(-1)).toBe(4429);
    expect(await failedInit('198.51.100.8')).toBe(4403);
  });
});
