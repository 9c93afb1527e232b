/**
 * The remittances client over HTTPS with a client certificate, against a local TLS server that requires
 * one (certificates made with openssl in the test). The sandbox-level test is in upstream.sandbox.test.ts.
 */
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import type { TLSSocket } from 'node:tls';
import { UpstreamError } from '../../src/upstream/http/upstream.errors';
import { makePki, type TestPki } from './helpers/upstream.certs';
import { harness, type Harness } from './helpers/upstream.local-server';

let pki: TestPki;
let server: Server;
let url: string;
const seen: Array<{ url: string; headers: Record<string, unknown>; peerCN: string | null }> = [];

beforeAll(async () => {
  pki = makePki();
  server = createServer(
    { cert: pki.serverCert, key: pki.serverKey, ca: pki.caCert, requestCert: true, rejectUnauthorized: true },
    (req, res) => {
      const peer = (req.socket as TLSSocket).getPeerCertificate();
      seen.push({ url: req.url ?? '', headers: req.headers, peerCN: (peer?.subject?.CN as string | undefined) ?? null });
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ webhooks: [] }));
    },
  );
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  url = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
  pki.cleanup();
});

let h: Harness;
afterEach(async () => h?.clients.close());

it('presents the configured client certificate (paths from config) and sends x-api-key', async () => {
  h = harness(url, {
    REMITTANCES_CLIENT_CERT: pki.paths.clientCert,
    REMITTANCES_CLIENT_KEY: pki.paths.clientKey,
    REMITTANCES_CLIENT_CA: pki.paths.caCert,
  });
  await expect(h.clients.remittances.listWebhooks()).resolves.toEqual({ webhooks: [] });
  const last = seen[seen.length - 1];
  expect(last.peerCN).toBe('client');
  expect(last.headers['x-api-key']).toBe('sandbox-api-key');
  expect(last.url).toBe('/remittances/organizations/sandbox-tenant/webhooks');
  expect(last.headers['x-agent-id']).toBeUndefined(); // tenant-level endpoint
});

it('without a client certificate the handshake is refused: a connect error (nothing was processed)', async () => {
  h = harness(url, { REMITTANCES_CLIENT_CA: pki.paths.caCert, UPSTREAM_RETRY_MAX_ATTEMPTS: '1' });
  const before = seen.length;
  const err = (await h.clients.remittances.listWebhooks().catch((e: unknown) => e)) as UpstreamError;
  expect(err).toBeInstanceOf(UpstreamError);
  // TLS 1.3: the client learns of the refusal only after its first write (UND_ERR_SOCKET) → network.
  expect(['connect', 'network']).toContain(err.kind);
  expect(err.toAppError().code).toBe('UPSTREAM_UNAVAILABLE');
  expect(seen.length).toBe(before);
});

it('a server certificate from an unknown CA is refused (no CA configured → system store only)', async () => {
  h = harness(url, {
    REMITTANCES_CLIENT_CERT: pki.paths.clientCert,
    REMITTANCES_CLIENT_KEY: pki.paths.clientKey,
    UPSTREAM_RETRY_MAX_ATTEMPTS: '1',
  });
  const err = (await h.clients.remittances.listWebhooks().catch((e: unknown) => e)) as UpstreamError;
  expect(err).toMatchObject({ kind: 'connect' });
  expect(err.upstreamCode).toMatch(/CERT|SIGNATURE|SELF_SIGNED|ISSUER/);
});
