/** One keep-alive pool per origin, bounded connections. */
import { harness, json, LocalServer, type Harness } from './helpers/upstream.local-server';

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
