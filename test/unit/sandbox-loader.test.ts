import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { loadSandbox, SANDBOX_PACKAGE, SandboxUnavailableError } from '../../src/sandbox.loader';

const SRC = join(__dirname, '..', '..', 'src');

function tsFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((d) => {
    const p = join(dir, d.name);
    if (d.isDirectory()) return d.name === 'generated' ? [] : tsFiles(p);
    return d.name.endsWith('.ts') ? [p] : [];
  });
}

describe('sandbox loader', () => {
  test('loads startSandbox and DEFAULT_OPTIONS from the package', async () => {
    const { startSandbox, DEFAULT_OPTIONS } = await loadSandbox();
    expect(typeof startSandbox).toBe('function');
    expect(DEFAULT_OPTIONS.verificationClients.length).toBeGreaterThan(0);
    const sandbox = await startSandbox({ port: 0, options: DEFAULT_OPTIONS });
    try {
      expect(sandbox.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    } finally {
      await sandbox.close();
    }
  });

  test('package absent (production install): a SandboxUnavailableError saying what to configure', async () => {
    const notFound = Object.assign(new Error(`Cannot find package '${SANDBOX_PACKAGE}' imported from /app/dist/sandbox.loader.js`), {
      code: 'ERR_MODULE_NOT_FOUND',
    });
    const err = await loadSandbox(() => Promise.reject(notFound)).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(SandboxUnavailableError);
    const message = (err as Error).message;
    expect(message).toContain(SANDBOX_PACKAGE);
    expect(message).toContain('npm ci --omit=dev');
    expect(message).toContain('GATEWAY_BASE_URL');
    expect((err as Error).cause).toBe(notFound);
  });

  test('other failures are not disguised', async () => {
    const boom = new Error('boom');
    await expect(loadSandbox(() => Promise.reject(boom))).rejects.toBe(boom);
  });

  test('a CommonJS package seen through `default` works too', async () => {
    const real = await loadSandbox();
    const mod = await loadSandbox(() => Promise.resolve({ default: real } as never));
    expect(mod.startSandbox).toBe(real.startSandbox);
  });

  test('nothing else in src/ imports the sandbox package (nor its sources)', () => {
    const specifier = /(?:\bfrom\s+|\bimport\s*\(\s*|\brequire\s*\(\s*|^\s*import\s+)(['"])([^'"]+)\1/gm;
    const offenders = tsFiles(SRC)
      .filter((f) => relative(SRC, f) !== 'sandbox.loader.ts')
      .flatMap((f) => [...readFileSync(f, 'utf8').matchAll(specifier)].map((m) => `${relative(SRC, f)}: ${m[2]}`))
      .filter((line) => /@remittance-bff\/sandbox|packages\/sandbox|\/sandbox\//.test(line.split(': ')[1]));
    expect(offenders).toEqual([]);
  });
});
