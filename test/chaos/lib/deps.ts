/**
 * PRIVATE dependencies for the scenarios that stop or restart them: a PostgreSQL cluster (initdb in a temporary
 * directory, as the `postgres` user when we are root) and a redis-server, each on its own free port. The shared
 * PostgreSQL (5432) and Redis (6379) that other test suites use are never stopped or touched.
 * `available()` says why not, when the binaries or the user are missing: the scenario is then skipped.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { freePort, sleep } from './common';
import { waitFor } from '../../helpers/wait';
import { createConnection } from 'node:net';

function pgBin(name: string): string | null {
  const root = '/usr/lib/postgresql';
  if (existsSync(root)) {
    for (const v of readdirSync(root).sort().reverse()) if (existsSync(join(root, v, 'bin', name))) return join(root, v, 'bin', name);
  }
  try {
    return (
      execFileSync('sh', ['-c', `command -v ${name}`])
        .toString()
        .trim() || null
    );
  } catch {
    return null;
  }
}

function uidOf(user: string): { uid: number; gid: number } | null {
  try {
    return { uid: Number(execFileSync('id', ['-u', user]).toString()), gid: Number(execFileSync('id', ['-g', user]).toString()) };
  } catch {
    return null;
  }
}

const asPostgres = (): boolean => userInfo().uid === 0;

export function privatePostgresUnavailable(): string | null {
  if (!pgBin('initdb') || !pgBin('pg_ctl')) return 'no initdb/pg_ctl (Debian postgresql package) on this machine';
  if (asPostgres() && !uidOf('postgres')) return 'running as root and there is no postgres user to run a private cluster';
  return null;
}

export function privateRedisUnavailable(): string | null {
  return pgBinless('redis-server') ? null : 'no redis-server binary on this machine';
}
function pgBinless(name: string): boolean {
  try {
    return (
      execFileSync('sh', ['-c', `command -v ${name}`])
        .toString()
        .trim() !== ''
    );
  } catch {
    return false;
  }
}

export interface PrivatePostgres {
  url: string;
  port: number;
  stop(): Promise<void>;
  start(): Promise<void>;
  /** pg_ctl restart -m fast: every connection is cut. */
  restart(): Promise<void>;
  destroy(): Promise<void>;
}

export async function startPrivatePostgres(): Promise<PrivatePostgres> {
  const dir = mkdtempSync(join(tmpdir(), 'rbff-chaos-pg-'));
  const data = join(dir, 'data');
  const port = await freePort();
  const pgUser = asPostgres() ? uidOf('postgres') : null;
  if (pgUser) {
    chownSync(dir, pgUser.uid, pgUser.gid);
    chmodSync(dir, 0o700);
  }
  const run = (bin: string, args: string[]) =>
    execFileSync(asPostgres() ? 'runuser' : bin, asPostgres() ? ['-u', 'postgres', '--', bin, ...args] : args, {
      stdio: 'pipe',
      cwd: dir,
      timeout: 120_000,
    });
  run(pgBin('initdb')!, ['-D', data, '-A', 'trust', '-U', 'postgres', '--no-sync', '-E', 'UTF8']);
  const ctl = (...args: string[]) =>
    run(pgBin('pg_ctl')!, [
      '-D',
      data,
      '-l',
      join(dir, 'log'),
      '-w',
      '-t',
      '60',
      '-o',
      `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=100`,
      ...args,
    ]);
  ctl('start');
  const url = `postgresql://postgres@127.0.0.1:${port}/postgres`;
  return {
    url,
    port,
    start: async () => void ctl('start'),
    stop: async () => void ctl('stop', '-m', 'fast'),
    restart: async () => void ctl('restart', '-m', 'fast'),
    destroy: async () => {
      try {
        ctl('stop', '-m', 'immediate');
      } catch {
        /* already stopped */
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export interface PrivateRedis {
  url: string;
  port: number;
  stop(): Promise<void>;
  start(): Promise<void>;
  destroy(): Promise<void>;
}

export async function startPrivateRedis(): Promise<PrivateRedis> {
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), 'rbff-chaos-redis-'));
  let proc: ChildProcess | null = null;
  const start = async () => {
    proc = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir], {
      stdio: 'ignore',
    });
    await waitFor(() => canConnect(port), { timeoutMs: 10_000, intervalMs: 50, what: 'private redis-server listening', retryErrors: true });
  };
  const stop = async () => {
    const p = proc;
    proc = null;
    if (!p || p.exitCode !== null) return;
    const exited = new Promise((r) => p.once('exit', r));
    p.kill('SIGKILL'); // our own child, by its handle
    await exited;
    await sleep(50);
  };
  await start();
  return {
    url: `redis://127.0.0.1:${port}`,
    port,
    start,
    stop,
    destroy: async () => {
      await stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

function canConnect(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = createConnection({ port, host: '127.0.0.1' });
    s.once('connect', () => (s.destroy(), resolve(true)));
    s.once('error', () => resolve(false));
  });
}
