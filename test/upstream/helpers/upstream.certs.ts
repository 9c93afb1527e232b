import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface TestPki {
  dir: string;
  caCert: string;
  serverCert: string;
  serverKey: string;
  clientCert: string;
  clientKey: string;
  /** A client certificate signed by a different CA (must be refused). */
  rogueCert: string;
  rogueKey: string;
  paths: { caCert: string; clientCert: string; clientKey: string };
  cleanup(): void;
}

/** A throwaway CA, a server certificate for 127.0.0.1/localhost and client certificates, made with openssl. */
export function makePki(): TestPki {
  const dir = mkdtempSync(join(tmpdir(), 'upstream-pki-'));
  const ssl = (...args: string[]) => execFileSync('openssl', args, { cwd: dir, stdio: 'pipe' });
  const key = (name: string) => ssl('genpkey', '-algorithm', 'EC', '-pkeyopt', 'ec_paramgen_curve:P-256', '-out', `${name}.key`);
  const ca = (name: string) => {
    key(name);
    ssl('req', '-x509', '-new', '-key', `${name}.key`, '-sha256', '-days', '2', '-subj', `/CN=${name}`, '-out', `${name}.crt`);
  };
  const leaf = (name: string, caName: string, ext: string) => {
    key(name);
    ssl('req', '-new', '-key', `${name}.key`, '-subj', `/CN=${name}`, '-out', `${name}.csr`);
    writeFileSync(join(dir, `${name}.ext`), ext);
    ssl(
      'x509',
      '-req',
      '-in',
      `${name}.csr`,
      '-CA',
      `${caName}.crt`,
      '-CAkey',
      `${caName}.key`,
      '-CAcreateserial',
      '-days',
      '2',
      '-sha256',
      '-extfile',
      `${name}.ext`,
      '-out',
      `${name}.crt`,
    );
  };
  ca('test-ca');
  ca('rogue-ca');
  leaf('server', 'test-ca', 'subjectAltName=IP:127.0.0.1,DNS:localhost\nextendedKeyUsage=serverAuth\n');
  leaf('client', 'test-ca', 'extendedKeyUsage=clientAuth\n');
  leaf('rogue', 'rogue-ca', 'extendedKeyUsage=clientAuth\n');
  const read = (f: string) => readFileSync(join(dir, f), 'utf8');
  return {
    dir,
    caCert: read('test-ca.crt'),
    serverCert: read('server.crt'),
    serverKey: read('server.key'),
    clientCert: read('client.crt'),
    clientKey: read('client.key'),
    rogueCert: read('rogue.crt'),
    rogueKey: read('rogue.key'),
    paths: { caCert: join(dir, 'test-ca.crt'), clientCert: join(dir, 'client.crt'), clientKey: join(dir, 'client.key') },
    cleanup: () => rmSync(dir, { recursive: true, force: true }),
  };
}
