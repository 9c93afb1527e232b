/**
 * The README's app quick start, run as written: its shell block with bash (Node the only tool) against the built
 * service on its embedded defaults, and its graphql-ws snippet as an ES module with Node — only the address is
 * pointed at the service under test (`API`, the ws URL), and the snippet's app functions (getToken, render,
 * showError) are supplied. The same blocks in docs/api.md are checked to be the README's. (Runs `node dist/...`.)
 */
import { spawn } from 'node:child_process';
import { copyFileSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawnService, type ServiceProcess } from '../helpers/process';

jest.setTimeout(120_000);

const ROOT = join(__dirname, '..', '..');
const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
const section = readme.slice(readme.indexOf('## App quick start'), readme.indexOf('## Configuration'));
const block = (lang: string) => {
  const m = new RegExp('```' + lang + '\\n([\\s\\S]*?)```').exec(section);
  if (!m) throw new Error(`no ${lang} block in the README's app quick start`);
  return m[1]!;
};

const dataDir = mkdtempSync(join(tmpdir(), 'rbff-readme-'));
let svc: ServiceProcess;
beforeAll(async () => {
  svc = await spawnService({ DATA_DIR: dataDir, DATABASE_URL: 'memory://', SAGA_POLL_INTERVAL_MS: '100' });
});
afterAll(async () => {
  svc?.proc.kill('SIGTERM');
  await svc?.exited;
  rmSync(dataDir, { recursive: true, force: true });
});

function run(
  cmd: string,
  args: string[],
  env: Record<string, string>,
  cwd = ROOT,
): Promise<{ code: number | null; out: string; err: string }> {
  return new Promise((resolve) => {
    const p = spawn(cmd, args, { cwd, env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...env } });
    let out = '';
    let err = '';
    p.stdout.on('data', (d) => (out += String(d)));
    p.stderr.on('data', (d) => (err += String(d)));
    p.on('close', (code) => resolve({ code, out, err }));
  });
}

it('the shell block runs as pasted: viewer, quote, person, card check, transfer, receipt', async () => {
  const script = block('sh');
  const r = await run('bash', ['-euo', 'pipefail', '-c', `${script}\necho "TRANSFER=$TRANSFER"`], { API: svc.url, DATA_DIR: dataDir });
  expect({ code: r.code, err: r.err }).toEqual({ code: 0, err: expect.any(String) });
  expect(r.out).toMatch(/"viewer":\{"id":"alice","role":"CUSTOMER"/);
  const receipt = JSON.parse(r.out.split('\n').find((l) => l.includes('"receipt"'))!).data.transfer.receipt;
  expect(receipt.reference).toMatch(/^[0-9A-F]{4}-[0-9A-F]{4}-[0-9A-F]{4}$/);
  expect([receipt.fee.amount, receipt.total.amount]).toEqual(['3.99', '103.99']);
  expect(r.out).toMatch(/TRANSFER=[0-9a-f-]{36}/);
}, 90_000);

it('the graphql-ws snippet follows a transfer to its end with a token from getToken; a refusal does not loop', async () => {
  // a transfer to follow, made by the shell block's own steps
  const made = await run('bash', ['-euo', 'pipefail', '-c', `${block('sh')}\necho "TRANSFER=$TRANSFER"`], {
    API: svc.url,
    DATA_DIR: dataDir,
  });
  const transfer = /TRANSFER=([0-9a-f-]{36})/.exec(made.out)![1]!;
  const token = (
    await run(process.execPath, ['dist/auth/token.cli.js', '--sub', 'alice', '--role', 'customer'], { DATA_DIR: dataDir })
  ).out.trim();
  const dir = mkdtempSync(join(tmpdir(), 'rbff-snippet-'));
  try {
    copyFileSync(join(ROOT, 'schema', 'app', 'persisted-documents.json'), join(dir, 'persisted-documents.json'));
    symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'));
    const snippet = block('js').replace('ws://127.0.0.1:4000', svc.url.replace('http', 'ws'));
    writeFileSync(
      join(dir, 'follow.mjs'),
      `${snippet}
async function getToken() { return process.env.TOKEN; }
function render(t) { console.log('render', t.status, t.version); }
function showError(e) { console.log('error', e.extensions.code); }
let ended = 0;
const end = () => { if (++ended === 2) client.dispose().then(() => process.exit(0)); };
follow(process.env.TRANSFER, end);
follow('00000000-0000-4000-8000-000000000000', end);
setTimeout(() => { console.log('timeout'); process.exit(1); }, 60_000);
`,
    );
    const r = await run(process.execPath, ['follow.mjs'], { TOKEN: token, TRANSFER: transfer }, dir);
    expect(r.err).toBe('');
    expect(r.code).toBe(0);
    const lines = r.out.trim().split('\n');
    // the unknown transfer: refused once, then done — no reconnect loop
    expect(lines.filter((l) => l.startsWith('error'))).toEqual(['error NOT_FOUND']);
    const renders = lines.filter((l) => l.startsWith('render'));
    expect(renders.at(-1)).toMatch(/^render COMPLETED \d+$/);
    const versions = renders.map((l) => Number(l.split(' ')[2]));
    expect(versions).toEqual([...new Set(versions)].sort((a, b) => a - b)); // each version once, in order
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}, 90_000);

it("docs/api.md's quick start shows the README's shell helpers and graphql-ws snippet, unchanged", () => {
  const api = readFileSync(join(ROOT, 'docs', 'api.md'), 'utf8');
  const helpers = block('sh').split('\n\n')[0]!; // the token, op and pick
  expect(api).toContain(helpers);
  expect(api).toContain(block('js'));
});
