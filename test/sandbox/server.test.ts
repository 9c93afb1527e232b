/** The sandbox server itself: TLS (HTTPS only, optional client certificates), origin, `npm run sandbox` entry point. */
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Agent } from 'undici';
import { http, startTestSandbox, type TestSandbox } from '../helpers/sandbox';

function makePki(dir: string): { ca: string; cert: string; key: string; clientCert: string; clientKey: string } {
  const run = (...args: string[]) => execFileSync('openssl', args, { cwd: dir, stdio: 'pipe' });
  run('req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', 'ca.key', '-out', 'ca.pem', '-days', '2', '-subj', '/CN=sandbox-test-ca');
  const leaf = (name: string, ext: string) => {
    run('req', '-newkey', 'rsa:2048', '-nodes', '-keyout', `${name}.key`, '-out', `${name}.csr`, '-subj', `/CN=${name}`);
    require('node:fs').writeFileSync(join(dir, `${name}.ext`), ext);
    run(
      'x509',
      '-req',
      '-in',
      `${name}.csr`,
      '-CA',
      'ca.pem',
      '-CAkey',
      'ca.key',
      '-CAcreateserial',
      '-out',
      `${name}.pem`,
      '-days',
      '2',
      '-extfile',
      `${name}.ext`,
    );
  };
  leaf('server', 'subjectAltName=IP:127.0.0.1,DNS:localhost\nextendedKeyUsage=serverAuth\n');
  leaf('client', 'extendedKeyUsage=clientAuth\n');
  const read = (f: string) => readFileSync(join(dir, f), 'utf8');
  return {
    ca: read('ca.pem'),
    cert: read('server.pem'),
    key: read('server.key'),
    clientCert: read('client.pem'),
    clientKey: read('client.key'),
  };
}

describe('TLS', () => {
  let dir: string;
  let pki: ReturnType<typeof makePki>;
  let sb: TestSandbox;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'sandbox-tls-'));
    pki = makePki(dir);
    sb = await startTestSandbox({ tls: { cert: pki.cert, key: pki.key, ca: pki.ca, requireClientCert: true } });
  });
  afterAll(async () => {
    await sb?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  test('the whole port speaks HTTPS; plain HTTP is refused at the protocol level', async () => {
    expect(sb.url).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
    expect(sb.ctx.publicOrigin).toBe(sb.url);
    expect(sb.ctx.tlsClientAuthRequired).toBe(true);
    const plain = sb.url.replace('https:', 'http:');
    await expect(http('GET', `${plain}/gateway/payer/balance`)).rejects.toThrow();
  });

  test('gateway over HTTPS with and without a client certificate; remittances refuses a socket without one', async () => {
    const anonymous = new Agent({ connect: { ca: pki.ca } });
    const withCert = new Agent({ connect: { ca: pki.ca, cert: pki.clientCert, key: pki.clientKey } });
    try {
      const token = await http('POST', `${sb.url}/gateway/oauth/token`, {
        body: { clientId: 'sandbox-client', secretID: 'sandbox-secret' },
        dispatcher: anonymous,
      });
      expect(token.status).toBe(200);
      const fx = await http('POST', `${sb.url}/gateway/v2/foreign-exchange`, {
        body: { sourceCurrencyCode: 'USD', destinationCurrencyCode: 'BRL', paymentMethod: 'CARD' },
        token: token.body.access_token,
        dispatcher: withCert,
      });
      expect(fx.status).toBe(200);
      const remittances = await http('GET', `${sb.url}/remittances/organizations/sandbox-tenant/webhooks`, {
        headers: { 'x-api-key': 'sandbox-api-key' },
        dispatcher: anonymous,
      });
      expect([401, 403]).toContain(remittances.status);
      const remittancesCert = await http('GET', `${sb.url}/remittances/organizations/sandbox-tenant/webhooks`, {
        headers: { 'x-api-key': 'sandbox-api-key' },
        dispatcher: withCert,
      });
      expect(remittancesCert.status).toBe(200);
    } finally {
      await anonymous.close();
      await withCert.close();
    }
  });

  test('3DS redirect URLs use the HTTPS origin', async () => {
    const agent = new Agent({ connect: { ca: pki.ca } });
    try {
      const token = (
        await http('POST', `${sb.url}/gateway/oauth/token`, {
          body: { clientId: 'sandbox-client', secretID: 'sandbox-secret' },
          dispatcher: agent,
        })
      ).body.access_token;
      const res = await http('POST', `${sb.url}/gateway/v2/check-card-account`, {
        token,
        dispatcher: agent,
        body: {
          sender: {
            firstName: 'Jane',
            lastName: 'Doe',
            email: 'jane@example.com',
            phoneNumber: '+14155550100',
            documents: [{ document: 'X1', type: 'PASSPORT', countryCode: 'USA' }],
            paymentMethod: { type: 'CARD', cardTokenId: '00000000-0000-4000-8000-000000000002' },
          },
        },
      });
      expect(res.body.redirectAcsUrl.startsWith(`${sb.url}/gateway/3ds/`)).toBe(true);
    } finally {
      await agent.close();
    }
  });
});

describe('startSandbox', () => {
  test('random port, origin, GET / lists the base URLs, close() is idempotent', async () => {
    const sb = await startTestSandbox();
    expect(sb.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(sb.url.endsWith(':4010')).toBe(false);
    const root = await http('GET', `${sb.url}/`);
    expect(root.body).toEqual({
      gateway: `${sb.url}/gateway`,
      remittances: `${sb.url}/remittances`,
      verification: `${sb.url}/verification`,
      control: `${sb.url}/__sandbox`,
    });
    await sb.close();
    await sb.close();
    await expect(http('GET', `${sb.url}/`)).rejects.toThrow();
  });

  test('two sandboxes do not share state', async () => {
    const a = await startTestSandbox();
    const b = await startTestSandbox();
    try {
      const w = await a.gateway('POST', '/wallets', { accountAsset: 'BRL', ownerId: 'o', beneficiaryId: 'b', type: 'PERSONAL' });
      expect((await a.gateway('GET', `/wallets/${w.body.walletId}`)).status).toBe(200);
      expect((await b.gateway('GET', `/wallets/${w.body.walletId}`)).status).toBe(404);
    } finally {
      await a.close();
      await b.close();
    }
  });
});

const MAIN = join(__dirname, '../../packages/sandbox/dist/sandbox.main.js');

(existsSync(MAIN) ? describe : describe.skip)('npm run sandbox (packages/sandbox/dist/sandbox.main.js)', () => {
  test('starts on SANDBOX_PORT, prints the base URLs, honours GATEWAY_CLIENT_*, stops cleanly on SIGTERM', async () => {
    const child = spawn(process.execPath, [MAIN], {
      env: { ...process.env, SANDBOX_PORT: '0', GATEWAY_CLIENT_ID: 'main-client', GATEWAY_CLIENT_SECRET: 'main-secret' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (out += d));
    try {
      const url = await new Promise<string>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no start line: ${out}`)), 15_000);
        child.stdout.on('data', () => {
          const m = /sandbox listening on (\S+)/.exec(out);
          if (m && out.includes('control API')) {
            clearTimeout(timer);
            resolve(m[1]);
          }
        });
        child.on('exit', (code) => reject(new Error(`exited ${code}: ${out}`)));
      });
      expect(out).toContain(`${url}/gateway`);
      expect(out).toContain(`${url}/remittances`);
      expect(out).toContain(`${url}/verification`);
      expect(out).toContain(`${url}/__sandbox`);
      const token = await http('POST', `${url}/gateway/oauth/token`, { body: { clientId: 'main-client', secretID: 'main-secret' } });
      expect(token.status).toBe(200);
      const exit = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
      child.kill('SIGTERM');
      expect(await exit).toBe(0);
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL');
    }
  });
});
