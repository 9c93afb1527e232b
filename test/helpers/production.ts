/**
 * The built service in production mode, as a child process (`NODE_ENV=production node dist/main.js`), the
 * way an operator runs it:
 * - upstreams: a sandbox started in this process on a random port, passed as explicit base URLs and
 *   credentials (production never starts the built-in sandbox and has no credential defaults);
 * - database: a throwaway database when DATABASE_URL is a PostgreSQL URL, else an in-memory PGlite served over
 *   the PostgreSQL wire protocol (test/helpers/pglite-server.cjs) — production only accepts postgres:// URLs. That
 *   server runs every connection in PGlite's one session, as a transaction-mode pooler does, so prepared statements
 *   are off there (DATABASE_PREPARED_STATEMENTS=0, what such a pooler needs): two connections preparing the same
 *   statement would collide;
 * - auth: a fresh ES256 key pair (AUTH_PUBLIC_KEY) with issuer and audience; `token()` signs with it;
 * - PUBLIC_URL: the child's own address (a free port picked before it starts), so the sandbox delivers
 *   webhooks to it; http is accepted there because it is a loopback address;
 * - METRICS_PORT: another free port (production serves /metrics only there, never on the API port).
 */
import { spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { SignJWT, exportSPKI, generateKeyPair, type KeyLike } from 'jose';
import { spawnService, type ServiceProcess } from './process';
import { startTestSandbox, type TestSandbox } from './sandbox';
import { createThrowawayPostgresDatabase, usingPostgres } from './db';
import type { Role } from '../../src/auth/auth.types';

export const PROD_ISSUER = 'https://issuer.test';
export const PROD_AUDIENCE = 'remittance-bff-test';

export interface ProductionService {
  svc: ServiceProcess;
  /** http origin of the service */
  url: string;
  wsUrl: string;
  /** http origin of the metrics listener (METRICS_PORT) */
  metricsUrl: string;
  sandbox: TestSandbox;
  /** The environment the service was started with (to start another instance, or to reuse its database). */
  env: Record<string, string>;
  /** The key pair behind AUTH_PUBLIC_KEY (to forge variants of a valid token). */
  keys: ProductionKeys;
  /** A token signed with the service's configured key (issuer and audience set unless overridden). */
  token(sub: string, role: Role, opts?: { ttlS?: number; issuer?: string | null; audience?: string | null }): Promise<string>;
  /** Stops the service (SIGTERM), then the sandbox and the database. */
  close(): Promise<void>;
}

export interface ProductionDatabase {
  url: string;
  /** What the service needs set to use it. */
  env: Record<string, string>;
  close(): Promise<void>;
}

/** A PostgreSQL URL for a production child: a throwaway database, or PGlite behind the wire protocol. */
export async function productionDatabase(): Promise<ProductionDatabase> {
  if (usingPostgres()) {
    const db = await createThrowawayPostgresDatabase(process.env.DATABASE_URL!);
    return { url: db.url, env: {}, close: () => db.drop() };
  }
  return pgliteWireDatabase();
}

/** An in-memory PGlite behind the PostgreSQL wire protocol (pglite-server.cjs): one session for every connection. */
export async function pgliteWireDatabase(): Promise<ProductionDatabase> {
  const proc = spawn(process.execPath, [join(__dirname, 'pglite-server.cjs')], { stdio: ['pipe', 'pipe', 'pipe'] });
  const exited = new Promise<void>((r) => proc.once('exit', () => r()));
  let err = '';
  proc.stderr!.on('data', (d) => (err += String(d)));
  const port = await new Promise<number>((resolve, reject) => {
    let out = '';
    proc.stdout!.on('data', (d) => {
      out += String(d);
      const m = /listening (\d+)/.exec(out);
      if (m) resolve(Number(m[1]));
    });
    void exited.then(() => reject(new Error(`pglite server exited: ${err}`)));
  });
  return {
    url: `postgresql://postgres@127.0.0.1:${port}/postgres?sslmode=disable`,
    // one session behind every connection: named statements prepared on one would collide on the next
    env: { DATABASE_PREPARED_STATEMENTS: '0' },
    async close() {
      proc.stdin!.end();
      await exited;
    },
  };
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}

export interface ProductionKeys {
  privateKey: KeyLike;
  publicPem: string;
}

export async function productionKeys(): Promise<ProductionKeys> {
  const { privateKey, publicKey } = await generateKeyPair('ES256', { extractable: true });
  return { privateKey, publicPem: await exportSPKI(publicKey) };
}

export function signToken(
  keys: ProductionKeys,
  sub: string,
  role: Role,
  opts: { ttlS?: number; issuer?: string | null; audience?: string | null } = {},
): Promise<string> {
  const now = Math.floor(Date.now() / 1000);
  let jwt = new SignJWT({ role })
    .setProtectedHeader({ alg: 'ES256', typ: 'JWT' })
    .setSubject(sub)
    .setIssuedAt(now)
    .setExpirationTime(now + (opts.ttlS ?? 3600));
  if (opts.issuer !== null) jwt = jwt.setIssuer(opts.issuer ?? PROD_ISSUER);
  if (opts.audience !== null) jwt = jwt.setAudience(opts.audience ?? PROD_AUDIENCE);
  return jwt.sign(keys.privateKey);
}

/** Every variable production requires, pointing at `sandbox` and `databaseUrl`. */
export function productionEnv(o: {
  sandbox: TestSandbox;
  databaseUrl: string;
  keys: ProductionKeys;
  port: number;
  metricsPort: number;
  dataDir: string;
}): Record<string, string> {
  const s = o.sandbox.ctx.options;
  return {
    NODE_ENV: 'production',
    HOST: '127.0.0.1',
    PORT: String(o.port),
    PUBLIC_URL: `http://127.0.0.1:${o.port}`,
    METRICS_PORT: String(o.metricsPort),
    DATA_DIR: o.dataDir,
    LOG_LEVEL: 'warn',
    DATABASE_URL: o.databaseUrl,
    DATABASE_POOL_MAX: '4',
    AUTH_PUBLIC_KEY: o.keys.publicPem.replace(/\n/g, '\\n'),
    AUTH_ISSUER: PROD_ISSUER,
    AUTH_AUDIENCE: PROD_AUDIENCE,
    SUPPORT_EMAIL: 'support@bff.example',
    WEBHOOK_SECRET_ENCRYPTION_KEY: randomBytes(32).toString('base64'),
    GATEWAY_BASE_URL: o.sandbox.gatewayUrl,
    GATEWAY_CLIENT_ID: s.gatewayClientId,
    GATEWAY_CLIENT_SECRET: s.gatewayClientSecret,
    REMITTANCES_BASE_URL: o.sandbox.remittancesUrl,
    REMITTANCES_TENANT_ID: s.remittancesTenantId,
    REMITTANCES_API_KEY: s.remittancesApiKey,
    REMITTANCES_AGENT_ID: s.remittancesAgentId,
    REMITTANCES_AGENT_API_KEY: s.remittancesAgentApiKey,
    VERIFICATION_BASE_URL: o.sandbox.verificationUrl,
    VERIFICATION_CLIENT_ID: s.verificationClients[0]!.clientId,
    VERIFICATION_CLIENT_SECRET: s.verificationClients[0]!.clientSecret,
  };
}

/**
 * Starts sandbox + database + the production service; `env` overrides (or, with '' values, removes) variables.
 * Resolves once the service printed its URL (it is listening and migrated).
 */
export async function startProductionService(
  env: Record<string, string> = {},
  /** `reach`: the database URL the service is given for the database's own (e.g. through a partition proxy). */
  opts: { reach?: (databaseUrl: string) => string | Promise<string> } = {},
): Promise<ProductionService> {
  const sandbox = await startTestSandbox();
  const db = await productionDatabase().catch(async (e) => {
    await sandbox.close();
    throw e;
  });
  const keys = await productionKeys();
  const dataDir = mkdtempSync(join(tmpdir(), 'rbff-prod-'));
  const port = await freePort();
  const metricsPort = await freePort();
  const databaseUrl = opts.reach ? await opts.reach(db.url) : db.url;
  const full = { ...productionEnv({ sandbox, databaseUrl, keys, port, metricsPort, dataDir }), ...db.env, ...env };
  for (const [k, v] of Object.entries(full)) if (v === '') delete full[k];
  let svc: ServiceProcess;
  try {
    svc = await spawnService(full, 90_000);
  } catch (e) {
    await sandbox.close();
    await db.close().catch(() => undefined);
    rmSync(dataDir, { recursive: true, force: true });
    throw e;
  }
  return {
    svc,
    url: svc.url,
    wsUrl: `${svc.url.replace(/^http/, 'ws')}/graphql`,
    metricsUrl: `http://127.0.0.1:${full.METRICS_PORT}`,
    sandbox,
    env: full,
    keys,
    token: (sub, role, opts) => signToken(keys, sub, role, opts),
    async close() {
      if (svc.proc.exitCode === null && svc.proc.signalCode === null) svc.proc.kill('SIGTERM');
      await svc.exited;
      await sandbox.close();
      await db.close().catch(() => undefined);
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
