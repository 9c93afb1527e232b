import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';

export interface ServiceProcess {
  proc: ChildProcess;
  /** http origin */
  url: string;
  stdout: string[];
  stderr: string[];
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

const ROOT = join(__dirname, '..', '..');

/** Runs the built service (`node dist/main.js`) as a child process and waits until it prints its URL. */
export async function spawnService(env: Record<string, string>, timeoutMs = 60_000): Promise<ServiceProcess> {
  const proc = spawn(process.execPath, [join(ROOT, 'dist', 'main.js')], {
    cwd: ROOT,
    env: {
      PATH: process.env.PATH ?? '',
      NODE_ENV: 'development',
      HOST: '127.0.0.1',
      PORT: '0',
      SANDBOX_PORT: '0',
      LOG_LEVEL: 'warn',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const stdout: string[] = [];
  const stderr: string[] = [];
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    proc.on('exit', (code, signal) => resolve({ code, signal })),
  );
  proc.stderr!.on('data', (d) => stderr.push(String(d)));
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => {
      proc.kill('SIGKILL'); // never leave a half-started service behind (it would outlive the test run)
      reject(new Error(`service did not start:\n${stderr.join('')}\n${stdout.join('')}`));
    }, timeoutMs);
    proc.stdout!.on('data', (d) => {
      stdout.push(String(d));
      const m = /GraphQL at (http:\/\/[^\s/]+)\/graphql/.exec(stdout.join(''));
      if (m) {
        clearTimeout(timer);
        resolve(m[1]!);
      }
    });
    void exited.then(({ code }) => {
      clearTimeout(timer);
      reject(new Error(`service exited with ${code} before starting:\n${stderr.join('')}`));
    });
  });
  return { proc, url, stdout, stderr, exited };
}

/** Runs a built CLI script to completion. */
export function runNode(
  script: string,
  args: string[],
  env: Record<string, string>,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const proc = spawn(process.execPath, [join(ROOT, script), ...args], {
      cwd: ROOT,
      env: { PATH: process.env.PATH ?? '', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    proc.stdout!.on('data', (d) => (stdout += String(d)));
    proc.stderr!.on('data', (d) => (stderr += String(d)));
    proc.on('exit', (code) => resolve({ code, stdout, stderr }));
  });
}
