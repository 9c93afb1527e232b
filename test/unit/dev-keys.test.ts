import { spawn } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadOrCreateDevKeys } from '../../src/auth/auth.service';

const ROOT = join(__dirname, '..', '..');

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'dev-keys-'));
});
afterEach(() => rm(dir, { recursive: true, force: true }));

/** The built loadOrCreateDevKeys in a process of its own; resolves with the key pair it got, or its error. */
function inProcess(dataDir: string): Promise<string> {
  const script =
    `require(${JSON.stringify(join(ROOT, 'dist', 'auth', 'auth.service.js'))}).loadOrCreateDevKeys(${JSON.stringify(dataDir)})` +
    `.then((k) => process.stdout.write(JSON.stringify(k)), (e) => process.stdout.write('ERROR ' + e.message))`;
  return new Promise((resolve, reject) => {
    const p = spawn(process.execPath, ['-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    p.stdout.on('data', (c: Buffer) => (out += c.toString()));
    p.on('error', reject);
    p.on('close', () => resolve(out));
  });
}

// Processes of one data directory (a benchmark's servers, the token CLI beside the service) start at once: each must end
// up with the one key pair on disk, never read the file while another is still writing it (before, about one start in
// thirty here read it half-written: "Unexpected end of JSON input").
test('processes racing to create the development keys all get the same, whole key pair', async () => {
  for (let round = 0; round < 8; round++) {
    const d = join(dir, `r${round}`);
    const all = await Promise.all(Array.from({ length: 8 }, () => inProcess(d)));
    for (const k of all) expect(k).not.toMatch(/^ERROR/);
    for (const k of all) expect(k).toBe(all[0]);
    expect(JSON.parse(all[0]!)).toMatchObject({ alg: expect.any(String), privateJwk: { d: expect.any(String) } });
    expect(await readFile(join(d, 'dev-auth-keys.json'), 'utf8')).toBe(all[0]);
    expect(await readdir(d)).toEqual(['dev-auth-keys.json']); // nothing left behind
  }
}, 60_000);

// A file system without hard links (FAT, some shared folders) cannot be mounted here: its `link` answer is simulated.
test('where the file system has no hard links, the key file is created in place', async () => {
  const fsp = jest.requireActual<typeof import('node:fs/promises')>('node:fs/promises');
  const spy = jest.spyOn(fsp, 'link').mockRejectedValue(Object.assign(new Error('operation not permitted'), { code: 'EPERM' }));
  try {
    const keys = await loadOrCreateDevKeys(dir);
    expect(spy).toHaveBeenCalled();
    expect(JSON.parse(await readFile(join(dir, 'dev-auth-keys.json'), 'utf8'))).toEqual(keys);
    expect(await readdir(dir)).toEqual(['dev-auth-keys.json']); // the draft is gone
    expect(await loadOrCreateDevKeys(dir)).toEqual(keys);
  } finally {
    spy.mockRestore();
  }
});
