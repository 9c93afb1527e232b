/**
 * The built service as a real process: configuration errors, start-up, the token CLI and graceful shutdown.
 * (Runs `node dist/...`: `npm test` builds first.)
 */
import { connect } from 'node:net';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runNode, spawnService } from '../helpers/process';
import { wsClient, collect } from '../helpers/ws';

jest.setTimeout(120_000); // child processes start slowly on a loaded 2-core CI machine

const dataDir = mkdtempSync(join(tmpdir(), 'rbff-proc-'));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

describe('configuration errors', () => {
  it('stop the process with one message naming every bad variable, and no stack trace', async () => {
    const r = await runNode('dist/main.js', [], { PORT: 'eighty', DATABASE_URL: 'mysql://x', REDIS_URL: 'nope', NODE_ENV: 'prod' });
    expect(r.code).toBe(1);
    for (const v of ['PORT', 'DATABASE_URL', 'REDIS_URL', 'NODE_ENV']) expect(r.stderr).toContain(`${v}:`);
    expect(r.stderr).not.toMatch(/\n\s+at /);
    expect(r.stdout).toBe('');
  });
});

describe('token CLI', () => {
  it('prints a token the service accepts, refuses bad roles, and fails loudly for a DATA_DIR the service never used', async () => {
    const bad = await runNode('dist/auth/token.cli.js', ['--sub', 'x', '--role', 'root'], { DATA_DIR: dataDir });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/role must be one of customer, backoffice, admin/);
    // no key pair yet: no token (one signed with a new key pair would be refused by the service), and none created
    const early = await runNode('dist/auth/token.cli.js', ['--sub', 'erin', '--role', 'backoffice'], { DATA_DIR: dataDir });
    expect([early.code, early.stdout]).toEqual([1, '']);
    expect(early.stderr).toMatch(/No development key pair in .*dev-auth-keys\.json: start the service first/);
    expect(existsSync(join(dataDir, 'dev-auth-keys.json'))).toBe(false);

    const svc = await spawnService({ DATA_DIR: dataDir, DATABASE_URL: 'memory://' });
    const ok = await runNode('dist/auth/token.cli.js', ['--sub', 'erin', '--role', 'backoffice'], { DATA_DIR: dataDir });
    expect(ok.code).toBe(0);
    const token = ok.stdout.trim();
    expect(token.split('.')).toHaveLength(3);
    try {
      const res = await fetch(`${svc.url}/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
        body: JSON.stringify({ query: '{ viewer { id role } }' }),
      });
      expect(await res.json()).toEqual({ data: { viewer: { id: 'erin', role: 'BACKOFFICE' } } });
      expect(svc.stdout.join('')).toMatch(/development token/);
    } finally {
      svc.proc.kill('SIGTERM');
      await svc.exited;
    }
  });
});

describe('graceful shutdown', () => {
  it('on SIGTERM: finishes the in-flight request, closes websockets with 1001, exits 0 within 10 s', async () => {
    const svc = await spawnService({ DATA_DIR: dataDir, DATABASE_URL: 'memory://' });
    const token = (await runNode('dist/auth/token.cli.js', ['--sub', 'frank', '--role', 'customer'], { DATA_DIR: dataDir })).stdout.trim();

    // A subscriber
    const { client, closed } = wsClient(`${svc.url.replace('http', 'ws')}/graphql`, token);
    const sub = collect(client, 'subscription { systemNotices { id } }');
    await new Promise((r) => setTimeout(r, 300));

    // A request in flight: headers and half the body sent before SIGTERM, the rest after.
    const { port } = new URL(svc.url);
    const body = JSON.stringify({ query: '{ viewer { id } }' });
    const socket = connect(Number(port), '127.0.0.1');
    await new Promise<void>((r) => socket.once('connect', () => r()));
    let response = '';
    socket.on('data', (d) => (response += String(d)));
    const ended = new Promise<void>((r) => socket.once('end', () => r()));
    socket.write(
      `POST /graphql HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nAuthorization: Bearer ${token}\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body.slice(0, 10)}`,
    );
    await new Promise((r) => setTimeout(r, 200));

    const started = Date.now();
    svc.proc.kill('SIGTERM');
    await new Promise((r) => setTimeout(r, 300));
    socket.write(body.slice(10));
    await ended;

    expect(response).toMatch(/^HTTP\/1.1 200/);
    expect(response).toContain('{"data":{"viewer":{"id":"frank"}}}');
    expect((await closed).code).toBe(1001);
    const exit = await svc.exited;
    expect(exit.code).toBe(0);
    expect(Date.now() - started).toBeLessThan(10_000);
    sub.dispose();
  });

  it('refuses new connections once draining', async () => {
    const svc = await spawnService({ DATA_DIR: dataDir, DATABASE_URL: 'memory://' });
    svc.proc.kill('SIGINT');
    const exit = await svc.exited;
    expect(exit.code).toBe(0);
    await expect(fetch(`${svc.url}/healthz`)).rejects.toThrow();
  });
});
