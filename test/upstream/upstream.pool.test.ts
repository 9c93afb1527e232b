/** One keep-alive pool per origin, bounded connections. */
import { harness, json, LocalServer, type Harness } from './helpers/upstream.local-server';
import { TransportFailure, UpstreamTransport } from '../../src/upstream/http/upstream.transport';

let server: LocalServer;
let h: Harness;
beforeEach(async () => {
  server = await new LocalServer().start();
});
afterEach(async () => {
  await h?.clients.close();
  await server.stop();
});

it('200 concurrent calls to two services on one origin use one pool of at most UPSTREAM_MAX_CONNECTIONS sockets, kept alive', async () => {
  h = harness(server.url, { UPSTREAM_MAX_CONNECTIONS: '4' });
  const ports = new Set<number>();
  let inFlight = 0;
  let maxInFlight = 0;
  server.handler = (req, res) => {
    if (req.url.endsWith('/oauth/token') && req.url.startsWith('/gateway'))
      return json(res, 200, { access_token: 'g', token_type: 'Bearer', expires_in: 3600 });
    if (req.url.endsWith('/oauth/token')) return json(res, 200, { access_token: 'v', token_type: 'Bearer', expires_in: 3600 });
    inFlight++;
    maxInFlight = Math.max(maxInFlight, inFlight);
    setTimeout(() => {
      inFlight--;
      if (req.url.startsWith('/gateway')) json(res, 200, [{ providerId: 'p', balances: [] }]);
      else json(res, 200, { id: 's1' });
    }, 5);
  };
  const spy = (server as unknown as { server: import('node:http').Server }).server;
  spy.on('connection', (s) => ports.add(s.remotePort ?? 0));
  await Promise.all(
    Array.from({ length: 200 }, (_v, i) => (i % 2 ? h.clients.gateway.getPayerBalance() : h.clients.verification.getSession('s1'))),
  );
  expect(h.clients.transport.poolCount).toBe(1);
  expect(maxInFlight).toBeLessThanOrEqual(4);
  expect(ports.size).toBeLessThanOrEqual(4);
});

it('one pool per origin and TLS identity, however the origin is written; none once the transport is closed', async () => {
  const transport = new UpstreamTransport({
    maxConnections: 2,
    connectTimeoutMs: 1_000,
    timeouts: {
      read: { headersMs: 1_000, bodyMs: 1_000 },
      write: { headersMs: 1_000, bodyMs: 1_000 },
      payment: { headersMs: 1_000, bodyMs: 1_000 },
    },
  });
  const a = transport.pool('http://127.0.0.1:80');
  expect(transport.pool('http://127.0.0.1:80')).toBe(a);
  expect(transport.pool('http://127.0.0.1')).toBe(a); // the default port: the same origin
  const tls = { ca: 'ca-1' };
  const b = transport.pool('http://127.0.0.1:80', tls);
  expect(b).not.toBe(a);
  expect(transport.pool('http://127.0.0.1:80', { ca: 'ca-1' })).toBe(b); // the same identity in another object
  expect(transport.pool('http://127.0.0.1:80', { ca: 'ca-2' })).not.toBe(b);
  expect(transport.poolCount).toBe(3);
  await transport.close();
  expect(() => transport.pool('http://127.0.0.1:80')).toThrow(TransportFailure);
  expect(() => transport.pool('http://127.0.0.1:80', tls)).toThrow(TransportFailure);
});
