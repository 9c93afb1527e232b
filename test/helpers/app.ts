import 'reflect-metadata';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { loadConfig } from '../../src/config';
import { createApp, type App, type AppOptions } from '../../src/app';
import type { Role } from '../../src/auth/auth.types';
import { createThrowawayPostgresDatabase, pgliteTemplate, usingPostgres } from './db';

export interface TestApp {
  app: App;
  /** HTTP origin, e.g. http://127.0.0.1:43121 */
  url: string;
  /** ws://…/graphql */
  wsUrl: string;
  token(sub: string, role: Role): Promise<string>;
  /** Every log line written so far (JSON strings), for redaction checks. */
  logs: string[];
  close(): Promise<void>;
}

/**
 * Starts the whole service in this process on random ports: in-memory PGlite (or a throwaway PostgreSQL
 * database when DATABASE_URL is postgres), the built-in sandbox, a temporary DATA_DIR. The in-memory database
 * starts from the migrated template of ./db.ts (no initdb, no migrations: ≈ 0.3 s instead of several seconds);
 * start() still checks the migrations, as in production.
 */
export async function startTestApp(
  env: Record<string, string> = {},
  options: Omit<AppOptions, 'logDestination'> = {},
  /** ready: false — return once the server listens, without waiting for the database (e.g. one that is down). */
  how: { ready?: boolean } = {},
): Promise<TestApp> {
  const dataDir = mkdtempSync(join(tmpdir(), 'rbff-test-'));
  const logs: string[] = [];
  const destination = new Writable({
    write(chunk, _enc, cb) {
      logs.push(...String(chunk).split('\n').filter(Boolean));
      cb();
    },
  });
  // DATABASE_URL=postgres://… in the environment: a throwaway database of that server (dropped on close)
  const throwaway = usingPostgres() && !env.DATABASE_URL ? await createThrowawayPostgresDatabase(process.env.DATABASE_URL!) : null;
  const config = loadConfig({
    NODE_ENV: 'test',
    PORT: '0',
    HOST: '127.0.0.1',
    SANDBOX_PORT: '0',
    LOG_LEVEL: 'info',
    DATA_DIR: dataDir,
    DATABASE_URL: throwaway?.url ?? 'memory://',
    ...env,
  });
  const inMemory = config.database.kind === 'pglite' && config.database.dataDir === null;
  const app = await createApp(config, {
    ...(inMemory ? { pgliteLoadDataDir: await pgliteTemplate() } : {}),
    ...options,
    logDestination: destination,
  });
  let url: string;
  if (how.ready === false) {
    // start() listens first, then migrates (retrying while the database is unreachable) until close()
    app.start().catch(() => undefined);
    for (let i = 0; !app.fastify.server.listening; i++) {
      if (i > 600) throw new Error('the server did not listen within 30 s');
      await new Promise((r) => setTimeout(r, 50));
    }
    url = `http://127.0.0.1:${(app.fastify.server.address() as { port: number }).port}`;
  } else ({ url } = await app.start());
  return {
    app,
    url,
    wsUrl: `${url.replace(/^http/, 'ws')}/graphql`,
    token: (sub, role) => app.auth.issueDevToken(sub, role),
    logs,
    async close() {
      await app.close();
      await throwaway?.drop().catch(() => undefined);
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** POST a GraphQL operation; returns the HTTP status and parsed body. */
export async function gql<T = Record<string, unknown>>(
  url: string,
  query: string,
  opts: { variables?: Record<string, unknown>; token?: string; headers?: Record<string, string> } = {},
): Promise<{
  status: number;
  body: { data?: T | null; errors?: { message: string; extensions?: Record<string, unknown>; path?: unknown[] }[] };
}> {
  const res = await fetch(`${url}/graphql`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/graphql-response+json, application/json',
      ...(opts.token ? { authorization: `Bearer ${opts.token}` } : {}),
      ...opts.headers,
    },
    body: JSON.stringify({ query, variables: opts.variables }),
  });
  return { status: res.status, body: (await res.json()) as never };
}
