/**
 * The configuration reference stays true: every variable of src/config.ts is documented where it is defined, every
 * environment variable read anywhere in src/ is documented (the standalone sandbox's included), and the generated
 * files — docs/configuration.md, the README's summary, .env.example — are what `npm run docs:config` would write.
 * docker/.env.example and docker/compose.yaml name only documented variables (plus compose's own).
 * No database. Fix a failure with `npm run docs:config` (after documenting the variable in code).
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { configReference, renderConfigFiles } from '../../src/config.docs';
import { serviceVariables } from '../../src/config';
import { SANDBOX_ONLY_VARIABLES } from '@remittance-bff/sandbox';

const root = join(__dirname, '..', '..');
const read = (p: string) => readFileSync(join(root, p), 'utf8');

/** Variables src/ reads that are not configuration: set by tools, never by an operator. */
const NOT_CONFIGURATION: Record<string, string> = {
  JEST_WORKER_ID: 'set by Jest in its workers (src/db/pglite.ts loads PGlite differently there)',
};
/** Variables of docker/compose.yaml itself (the database password and the load balancer's port), not the service's. */
const COMPOSE_ONLY = new Set(['POSTGRES_PASSWORD', 'LB_PORT']);

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) return name === 'generated' ? [] : sourceFiles(p);
    return p.endsWith('.ts') ? [p] : [];
  });
}

/** Every `process.env.X`, `process.env['X']`, `env.X`, `env['X']` and `const { X } = process.env` in src/ (CLIs take an env object). */
function variablesReadInSource(): Map<string, string[]> {
  const found = new Map<string, string[]>();
  for (const file of [...sourceFiles(join(root, 'src')), ...sourceFiles(join(root, 'packages', 'sandbox', 'src'))]) {
    const text = readFileSync(file, 'utf8');
    const add = (name: string) => found.set(name, [...(found.get(name) ?? []), relative(root, file)]);
    for (const m of text.matchAll(/\b(?:process\.)?env(?:\.([A-Z][A-Z0-9_]*)\b|\[\s*['"]([A-Z][A-Z0-9_]*)['"]\s*\])/g))
      add((m[1] ?? m[2])!);
    // const { A, B: b = 'x' } = process.env
    for (const m of text.matchAll(/\{([^{}]*)\}\s*=\s*process\.env\b/g))
      for (const n of m[1]!.matchAll(/(?:^|,)\s*([A-Z][A-Z0-9_]*)\b/g)) add(n[1]!);
  }
  return found;
}

const reference = configReference(SANDBOX_ONLY_VARIABLES);
const documented = new Set(reference.map((r) => r.name));

test('every variable of the configuration schema is documented next to its definition', () => {
  const undocumented = serviceVariables()
    .filter((v) => !v.doc || v.doc.description.trim() === '')
    .map((v) => v.name);
  expect(undocumented).toEqual([]);
});

test('every environment variable read anywhere in src/ is documented', () => {
  const read = variablesReadInSource();
  expect(read.size).toBeGreaterThan(5); // the scan itself works (sandbox.main.ts reads a handful)
  const missing = [...read.entries()]
    .filter(([name]) => !documented.has(name) && !(name in NOT_CONFIGURATION))
    .map(([name, files]) => `${name} (read in ${[...new Set(files)].join(', ')})`);
  expect(missing).toEqual([]);
});

test('every sandbox-only variable documented is still read by the sandbox', () => {
  const read = variablesReadInSource();
  const stale = Object.keys(SANDBOX_ONLY_VARIABLES).filter((name) => !read.get(name)?.some((f) => f.startsWith('packages/sandbox/src/')));
  expect(stale).toEqual([]);
});

test('docs/configuration.md and .env.example name every variable', () => {
  const docs = read('docs/configuration.md');
  const env = read('.env.example');
  expect(reference.filter((r) => !docs.includes(`| \`${r.name}\` |`)).map((r) => r.name)).toEqual([]);
  expect(reference.filter((r) => !new RegExp(`^${r.name}=`, 'm').test(env)).map((r) => r.name)).toEqual([]);
  // and nothing else: a variable removed from the code leaves neither file naming it
  const envNames = [...env.matchAll(/^([A-Z][A-Z0-9_]*)=/gm)].map((m) => m[1]!);
  expect(envNames.filter((n) => !documented.has(n))).toEqual([]);
});

test('docs/configuration.md, the README summary and .env.example are as `npm run docs:config` writes them', () => {
  for (const [path, content] of Object.entries(renderConfigFiles(root, SANDBOX_ONLY_VARIABLES))) {
    // one file at a time, so a failure names it
    expect({ path, upToDate: read(path) === content }).toEqual({ path, upToDate: true });
  }
});

test('docker/.env.example and docker/compose.yaml name only documented variables', () => {
  const dockerEnv = read('docker/.env.example');
  const compose = read('docker/compose.yaml');
  const inDockerEnv = [...dockerEnv.matchAll(/^#?\s*([A-Z][A-Z0-9_]*)=/gm)].map((m) => m[1]!);
  const composeRefs = [...compose.matchAll(/\$\{([A-Z][A-Z0-9_]*)[:}?-]/g)].map((m) => m[1]!);
  // the api services' environment keys (the x-service anchor: indented `KEY: value` lines under `environment:`)
  const serviceBlock = compose.slice(compose.indexOf('x-service:'), compose.indexOf('\nservices:'));
  const environment = serviceBlock.slice(serviceBlock.indexOf('environment:'), serviceBlock.indexOf('volumes:'));
  const composeKeys = [...environment.matchAll(/^\s{4}([A-Z][A-Z0-9_]*):/gm)].map((m) => m[1]!);
  expect(inDockerEnv.length).toBeGreaterThan(5);
  expect(composeKeys.length).toBeGreaterThan(5);
  const unknown = [...new Set([...inDockerEnv, ...composeRefs, ...composeKeys])].filter((n) => !documented.has(n) && !COMPOSE_ONLY.has(n));
  expect(unknown).toEqual([]);
  // what compose requires (${VAR:?…}) is listed in docker/.env.example for the operator to fill in
  const required = [...compose.matchAll(/\$\{([A-Z][A-Z0-9_]*):\?/g)].map((m) => m[1]!);
  expect(required.filter((n) => !inDockerEnv.includes(n))).toEqual([]);
});
