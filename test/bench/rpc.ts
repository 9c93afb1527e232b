/**
 * Parent ↔ child plumbing: every server, baseline and load generator of the benchmark is a separate Node
 * process (pinned to its own core with taskset when possible) answering commands over the IPC channel.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import os from 'node:os';
import path from 'node:path';

export const ROOT = path.resolve(__dirname, '..', '..');
export const DIST = path.join(ROOT, 'dist');

/** A module of the built service (dist/, what `npm start` runs), typed by its source: `fromDist<typeof M>('config.js')`. */
export const fromDist = <T>(p: string): T => require(path.join(DIST, p)) as T;
const REGISTER = path.join(__dirname, 'register.cjs');

/** Wall-clock milliseconds with sub-millisecond resolution, comparable across processes of one machine. */
export const wallMs = (): number => performance.timeOrigin + performance.now();

export interface Pinning {
  pinned: boolean;
  serverCore: number | null;
  loadCore: number | null;
  cores: number;
  note: string;
}

/** taskset (util-linux) and at least two usable cores → server on the first, load on the second. */
export function detectPinning(): Pinning {
  const cores = os.availableParallelism?.() ?? os.cpus().length;
  if (process.env.BENCH_NO_PIN === '1')
    return { pinned: false, serverCore: null, loadCore: null, cores, note: 'not pinned (BENCH_NO_PIN=1)' };
  const r = spawnSync('taskset', ['-pc', String(process.pid)], { encoding: 'utf8' });
  if (r.error || r.status !== 0)
    return { pinned: false, serverCore: null, loadCore: null, cores, note: 'not pinned (taskset not available)' };
  const list = parseCpuList(/:\s*([\d,-]+)\s*$/.exec(r.stdout.trim())?.[1] ?? '');
  if (list.length < 2)
    return { pinned: false, serverCore: null, loadCore: null, cores, note: `not pinned (only ${list.length} usable core)` };
  return {
    pinned: true,
    serverCore: list[0]!,
    loadCore: list[1]!,
    cores,
    note: `server on core ${list[0]}, load generator on core ${list[1]} (taskset)`,
  };
}

function parseCpuList(s: string): number[] {
  const out: number[] = [];
  for (const part of s.split(',').filter(Boolean)) {
    const [a, b] = part.split('-').map(Number);
    for (let i = a!; i <= (b ?? a!); i++) out.push(i);
  }
  return out;
}

export class Child {
  private seq = 0;
  private readonly pending = new Map<number, { resolve: (v: any) => void; reject: (e: Error) => void }>();
  readonly exited: Promise<number | null>;

  private constructor(
    readonly name: string,
    readonly proc: ChildProcess,
  ) {
    proc.on('message', (m: { id: number; result?: unknown; error?: string }) => {
      const p = this.pending.get(m.id);
      if (!p) return;
      this.pending.delete(m.id);
      if (m.error !== undefined) p.reject(new Error(`${name}: ${m.error}`));
      else p.resolve(m.result);
    });
    this.exited = new Promise((resolve) =>
      proc.on('exit', (code) => {
        for (const p of this.pending.values()) p.reject(new Error(`${name} exited (${code})`));
        this.pending.clear();
        resolve(code);
      }),
    );
  }

  /** Starts `script` (a .ts file under test/bench) in a new Node process, pinned to `core` when given. */
  static start(
    name: string,
    script: string,
    opts: { core?: number | null; env?: Record<string, string>; nodeArgs?: string[] } = {},
  ): Child {
    const nodeArgs = ['-r', REGISTER, ...(opts.nodeArgs ?? []), path.join(__dirname, script)];
    const [cmd, args] =
      opts.core != null ? ['taskset', ['-c', String(opts.core), process.execPath, ...nodeArgs]] : [process.execPath, nodeArgs];
    const proc = spawn(cmd as string, args as string[], {
      cwd: ROOT,
      env: { ...process.env, ...opts.env },
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    return new Child(name, proc);
  }

  call<T = any>(cmd: string, args: unknown = {}, timeoutMs = 600_000): Promise<T> {
    const id = ++this.seq;
    return new Promise<T>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(id);
        reject(new Error(`${this.name}: ${cmd} timed out after ${timeoutMs} ms`));
      }, timeoutMs);
      this.pending.set(id, {
        resolve: (v) => (clearTimeout(timer), resolve(v)),
        reject: (e) => (clearTimeout(timer), reject(e)),
      });
      this.proc.send({ id, cmd, args });
    });
  }

  async stop(): Promise<void> {
    if (this.proc.exitCode !== null || this.proc.signalCode !== null) return;
    await this.call('exit', {}, 15_000).catch(() => undefined);
    const t = setTimeout(() => this.proc.kill('SIGKILL'), 10_000);
    await this.exited;
    clearTimeout(t);
  }
}

/** Child side: answers the parent's commands (and `cpu`: its CPU time so far, µs); `exit` runs `onExit` then exits. */
export function serveCommands(handlers: Record<string, (args: any) => unknown>, onExit: () => Promise<void> = async () => undefined): void {
  if (!process.send) throw new Error('must run as a child with an IPC channel');
  process.on('message', async (m: { id: number; cmd: string; args: unknown }) => {
    if (m.cmd === 'cpu') {
      // CPU time of this process (µs, user + system): per-request cost that a busy shared machine does not distort
      const u = process.cpuUsage();
      process.send!({ id: m.id, result: u.user + u.system });
      return;
    }
    if (m.cmd === 'exit') {
      await onExit().catch(() => undefined);
      process.send!({ id: m.id, result: true }, () => process.exit(0));
      return;
    }
    try {
      const h = handlers[m.cmd];
      if (!h) throw new Error(`unknown command ${m.cmd}`);
      process.send!({ id: m.id, result: (await h(m.args)) ?? null });
    } catch (e) {
      process.send!({ id: m.id, error: (e as Error).stack ?? String(e) });
    }
  });
  process.on('disconnect', () => void onExit().finally(() => process.exit(0)));
}

export function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;
}
