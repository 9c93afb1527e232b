import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Agent } from 'undici';
import { call, type Harness, type Res, startHarness, TENANT, tenantHeaders } from './remittances.harness';

let dir: string;
let h: Harness;
const pem: Record<string, string> = {};

function openssl(...args: string[]): void {
  execFileSync('openssl', args, { cwd: dir, stdio: 'pipe' });
}

function issue(name: string, ca: string, subject: string, ext: string): void {
  openssl('req', '-newkey', 'rsa:2048', '-nodes', '-keyout', `${name}.key`, '-out', `${name}.csr`, '-subj', subject);
  writeFileSync(join(dir, `${name}.ext`), ext);
  openssl(
    'x509',
    '-req',
    '-in',
    `${name}.csr`,
    '-CA',
    `${ca}.crt`,
    '-CAkey',
    `${ca}.key`,
    '-CAcreateserial',
    '-out',
    `${name}.crt`,
    '-days',
    '2',
    '-extfile',
    `${name}.ext`,
  );
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'sandbox-tls-'));
  for (const ca of ['ca', 'rogue-ca'])
    openssl(
      'req',
      '-x509',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-keyout',
      `${ca}.key`,
      '-out',
      `${ca}.crt`,
      '-days',
      '2',
      '-subj',
      `/CN=${ca}`,
    );
  issue('server', 'ca', '/CN=127.0.0.1', 'subjectAltName=IP:127.0.0.1,DNS:localhost\nextendedKeyUsage=serverAuth\n');
  issue('client', 'ca', '/CN=remittance-bff', 'extendedKeyUsage=clientAuth\n');
  issue('rogue', 'rogue-ca', '/CN=intruder', 'extendedKeyUsage=clientAuth\n');
  for (const f of ['ca.crt', 'server.crt', 'server.key', 'client.crt', 'client.key', 'rogue.crt', 'rogue.key'])
    pem[f] = readFileSync(join(dir, f), 'utf8');
  h = await startHarness({ tls: { cert: pem['server.crt'], key: pem['server.key'], ca: pem['ca.crt'], requireClientCert: true } });
}, 60000);

afterAll(async () => {
  await h?.close();
  rmSync(dir, { recursive: true, force: true });
});

const agents: Agent[] = [];
afterAll(async () => Promise.all(agents.map((a) => a.close())));
function agent(client?: 'client' | 'rogue'): Agent {
  const a = new Agent({
    connect: client ? { ca: pem['ca.crt'], cert: pem[`${client}.crt`], key: pem[`${client}.key`] } : { ca: pem['ca.crt'] },
  });
  agents.push(a);
  return a;
}

const path = `/remittances/organizations/${TENANT}/webhooks`;

/** "Refused": either the handshake fails or the platform answers 403 CLIENT_CERTIFICATE_REQUIRED. */
async function expectRefused(dispatcher: Agent): Promise<void> {
  let res: Res;
  try {
    res = await call(h.url, 'GET', path, { headers: tenantHeaders(), dispatcher });
  } catch (e) {
    expect(String(e)).toMatch(/socket|certificate|handshake|ECONNRESET|alert|closed/i);
    return;
  }
  expect(res.status).toBe(403);
  expect(res.body.code).toBe('CLIENT_CERTIFICATE_REQUIRED');
}

describe('remittances platform behind mutual TLS', () => {
  it('serves HTTPS', () => {
    expect(h.url).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
  });

  it('accepts a client certificate signed by the configured CA', async () => {
    const res = await call(h.url, 'GET', path, { headers: tenantHeaders(), dispatcher: agent('client') });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ webhooks: [] });
  });

  it('refuses a connection without a client certificate', async () => {
    await expectRefused(agent());
  });

  it('refuses a client certificate from another CA', async () => {
    await expectRefused(agent('rogue'));
  });
});
