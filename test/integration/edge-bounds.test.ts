/**
 * The HTTP edge's time and connection bounds, on real sockets with short configured timeouts: a body trickled a byte
 * at a time is cut off (408, connection closed) on every route, connections per client address are capped (HTTP and
 * websocket alike), and an open websocket is not cut by the request timeouts. The per-address budgets count an IPv6
 * client by its /64 and an IPv4-mapped address as IPv4.
 */
import { connect, type Socket } from 'node:net';
import WebSocket from 'ws';
import { startTestApp, type TestApp } from '../helpers/app';
import { within } from '../helpers/wait';
import { wsClient } from '../helpers/ws';

jest.setTimeout(60_000);

const port = (t: TestApp) => Number(new URL(t.url).port);

/** A raw connection; `closed` resolves with what the server wrote before closing it. */
function rawConnection(t: TestApp): Promise<{ socket: Socket; closed: Promise<string> }> {
  return new Promise((resolve, reject) => {
    const socket = connect(port(t), '127.0.0.1');
    let received = '';
    socket.on('data', (d) => (received += String(d)));
    const closed = new Promise<string>((r) => socket.once('close', () => r(received)));
    socket.once('error', () => undefined);
    socket.once('connect', () => resolve({ socket, closed }));
    socket.once('error', reject);
  });
}

describe('time bounds at the HTTP edge', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({
      HTTP_HEADERS_TIMEOUT_MS: '400',
      HTTP_REQUEST_TIMEOUT_MS: '800',
      HTTP_KEEP_ALIVE_TIMEOUT_MS: '500',
      WS_CONNECTION_INIT_TIMEOUT_MS: '5000',
    });
  });
  afterAll(() => t?.close());

  it.each(['/graphql', '/webhooks/remittances'])(
    'a body trickled one byte at a time to %s is cut off: 408, connection closed',
    async (path) => {
      const { socket, closed } = await rawConnection(t);
      socket.write(`POST ${path} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n`);
      const trickle = setInterval(() => socket.writable && socket.write('{'), 100);
      try {
        // bounded by the test's own wait: without a request timeout the socket stays open for as long as bytes come
        const answer = await within(closed, 10_000);
        expect(answer).toMatch(/^HTTP\/1\.1 408/);
      } finally {
        clearInterval(trickle);
        socket.destroy();
      }
    },
  );

  it('headers that never finish are cut off too', async () => {
    const { socket, closed } = await rawConnection(t);
    socket.write('GET /healthz HTTP/1.1\r\nHost: x\r\n');
    const trickle = setInterval(() => socket.writable && socket.write('X-Slow: 1\r\n'), 100);
    try {
      expect(await within(closed, 10_000)).toMatch(/^HTTP\/1\.1 408/);
    } finally {
      clearInterval(trickle);
      socket.destroy();
    }
  });

  it('a websocket upgrade whose headers never finish is cut off too', async () => {
    const { socket, closed } = await rawConnection(t);
    socket.write('GET /graphql HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n');
    const trickle = setInterval(() => socket.writable && socket.write('X-Slow: 1\r\n'), 100);
    try {
      expect(await within(closed, 10_000)).toMatch(/^HTTP\/1\.1 408/);
    } finally {
      clearInterval(trickle);
      socket.destroy();
    }
  });

  it('an idle keep-alive connection is closed after HTTP_KEEP_ALIVE_TIMEOUT_MS', async () => {
    const { socket, closed } = await rawConnection(t);
    socket.write('GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: keep-alive\r\n\r\n');
    // answered, then left idle: the server ends it (bounded by the test's own wait)
    expect(await within(closed, 10_000)).toMatch(/^HTTP\/1\.1 200/);
  });

  it('a websocket open longer than the request timeouts stays open and answers', async () => {
    const token = await t.token('edge-ws', 'customer');
    const ws = new WebSocket(t.wsUrl, 'graphql-transport-ws');
    const messages: { type: string; payload?: unknown }[] = [];
    ws.on('message', (m) => messages.push(JSON.parse(String(m)) as { type: string }));
    let closedCode: number | null = null;
    ws.on('close', (code) => (closedCode = code));
    await new Promise((r) => ws.once('open', r));
    ws.send(JSON.stringify({ type: 'connection_init', payload: { authorization: `Bearer ${token}` } }));
    await new Promise((r) => setTimeout(r, 2_000)); // > 2 × HTTP_REQUEST_TIMEOUT_MS
    ws.send(JSON.stringify({ id: '1', type: 'subscribe', payload: { query: '{ viewer { id } }' } }));
    for (let i = 0; i < 50 && !messages.some((m) => m.type === 'next'); i++) await new Promise((r) => setTimeout(r, 50));
    expect(closedCode).toBeNull();
    expect(messages.find((m) => m.type === 'next')?.payload).toEqual({ data: { viewer: { id: 'edge-ws' } } });
    ws.close();
  });
});

describe('connections per client address', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ HTTP_MAX_CONNECTIONS_PER_CLIENT: '3' });
  });
  afterAll(() => t?.close());

  it('one more than the cap is closed on arrival; a slot freed is usable again; websockets count too', async () => {
    const held = await Promise.all([rawConnection(t), rawConnection(t)]);
    const ws = new WebSocket(t.wsUrl, 'graphql-transport-ws');
    await new Promise((r, j) => (ws.once('open', r), ws.once('error', j)));
    const extra = await rawConnection(t);
    extra.socket.write('GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n');
    expect(await within(extra.closed, 5_000)).toBe(''); // closed before any answer
    const metrics = await fetch(`${t.url}/metrics`).catch(() => null); // over the cap too: refused
    expect(metrics).toBeNull();
    held[0]!.socket.destroy();
    await held[0]!.closed;
    await new Promise((r) => setTimeout(r, 50));
    const res = await fetch(`${t.url}/healthz`);
    expect(res.status).toBe(200);
    ws.close();
    held[1]!.socket.destroy();
    await new Promise((r) => setTimeout(r, 50));
    const text = await (await fetch(`${t.url}/metrics`)).text();
    expect(text).toMatch(/^http_connections_refused_total [1-9]/m);
  });
});

describe('per-address budgets behind a proxy', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ TRUST_PROXY: '127.0.0.0/8,::1', RATE_LIMIT_ANONYMOUS_PER_MINUTE: '5' });
  });
  afterAll(() => t?.close());

  const anonymous = (forwardedFor: string) =>
    fetch(`${t.url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-forwarded-for': forwardedFor },
      body: JSON.stringify({ query: '{ __typename }' }),
    }).then((r) => r.status);

  it('an IPv6 client is counted by its /64: 20 addresses of one /64 share one budget', async () => {
    const statuses: number[] = [];
    for (let i = 1; i <= 20; i++) statuses.push(await anonymous(`2001:db8:aa:bb:${i.toString(16)}::${i}`));
    expect(statuses.slice(0, 5)).toEqual([200, 200, 200, 200, 200]);
    expect(statuses.slice(5).every((s) => s === 429)).toBe(true);
    // another /64 has its own
    expect(await anonymous('2001:db8:aa:cc::1')).toBe(200);
  });

  it('websocket connection_init failures from one /64 draw on the same budget as its HTTP requests', async () => {
    const failedInit = (forwardedFor: string) => {
      const { closed, client } = wsClient(t.wsUrl, 'not-a-token', { headers: { 'x-forwarded-for': forwardedFor } });
      client.subscribe({ query: '{ __typename }' }, { next: () => undefined, error: () => undefined, complete: () => undefined });
      return closed.finally(() => client.dispose());
    };
    const codes: number[] = [];
    for (let i = 1; i <= 6; i++) codes.push((await failedInit(`2001:db8:ee:ff:${i.toString(16)}::1`)).code);
    expect(codes.slice(0, 5)).toEqual([4403, 4403, 4403, 4403, 4403]);
    expect(codes[5]).toBe(4429);
    // the /64 is refused over HTTP too; an IPv4-mapped client is not that network
    expect(await anonymous('2001:db8:ee:ff::99')).toBe(429);
    expect((await failedInit('::ffff:198.51.100.200')).code).toBe(4403);
  });

  it('an IPv4-mapped address counts as its IPv4 address', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 3; i++) statuses.push(await anonymous('198.51.100.77'));
    for (let i = 0; i < 3; i++) statuses.push(await anonymous('::ffff:198.51.100.77'));
    expect(statuses).toEqual([200, 200, 200, 200, 200, 429]);
  });
});
