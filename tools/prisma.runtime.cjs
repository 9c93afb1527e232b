/**
 * Build step (after tsc): copies into dist/node_modules/ the part of Prisma's client runtime that the generated
 * client (dist/generated/prisma) loads, so that a production install needs neither `@prisma/client` (≈ 70 MB:
 * query compilers for every database, the generator, types) nor the `prisma` CLI that comes with it.
 *
 * The generated code keeps its `@prisma/client/runtime/<file>` specifiers; Node resolves them from
 * dist/generated/prisma upwards and finds dist/node_modules/@prisma/client first. Copied: every runtime file
 * those specifiers name (the client, and the PostgreSQL query compiler it imports lazily), the relative files
 * these require, and the packages they require (@prisma/client-runtime-utils), from the installed
 * @prisma/client — the version that generated the client.
 */
'use strict';
const fs = require('node:fs');
const path = require('node:path');
const { builtinModules } = require('node:module');
const { spawnSync } = require('node:child_process');

const root = path.resolve(__dirname, '..');
const dist = path.join(root, 'dist');
const generated = path.join(dist, 'generated', 'prisma');
const target = path.join(dist, 'node_modules');

function fail(message) {
  process.stderr.write(`prisma.runtime: ${message}\n`);
  process.exit(1);
}

function jsFiles(dir) {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((d) => {
    const p = path.join(dir, d.name);
    if (d.isDirectory()) return d.name === 'node_modules' ? [] : jsFiles(p);
    return d.name.endsWith('.js') ? [p] : [];
  });
}

/** Module specifiers in require("…") and import("…") calls. */
function specifiersIn(file) {
  const source = fs.readFileSync(file, 'utf8');
  const found = new Set();
  for (const m of source.matchAll(/\b(?:require|import)\(\s*(["'])([^"']+)\1\s*\)/g)) found.add(m[2]);
  return [...found];
}

const isBuiltin = (spec) => spec.startsWith('node:') || builtinModules.includes(spec.split('/')[0]);
const packageNameOf = (spec) => (spec.startsWith('@') ? spec.split('/').slice(0, 2) : spec.split('/').slice(0, 1)).join('/');

function packageDirOf(name, from) {
  try {
    return path.dirname(require.resolve(`${name}/package.json`, { paths: [from] }));
  } catch {
    // packages whose exports map hides package.json: walk up from the entry point
    let dir = path.dirname(require.resolve(name, { paths: [from] }));
    while (!fs.existsSync(path.join(dir, 'package.json'))) dir = path.dirname(dir);
    return dir;
  }
}

if (!fs.existsSync(generated)) fail(`${path.relative(root, generated)} is missing: run tsc after prisma generate first`);

fs.rmSync(target, { recursive: true, force: true });

const clientDir = packageDirOf('@prisma/client', root);
const clientPkg = JSON.parse(fs.readFileSync(path.join(clientDir, 'package.json'), 'utf8'));
const clientTarget = path.join(target, '@prisma', 'client');
const copiedPackages = new Map(); // name → directory in dist/node_modules

function copyFile(from, to) {
  fs.mkdirSync(path.dirname(to), { recursive: true });
  fs.copyFileSync(from, to);
}

/** Copies a whole package (a dependency of the runtime); it must not have dependencies of its own. */
function copyPackage(name, from) {
  if (copiedPackages.has(name)) return;
  const dir = packageDirOf(name, from);
  const pkg = JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8'));
  if (pkg.dependencies && Object.keys(pkg.dependencies).length > 0) {
    fail(`${name} has dependencies (${Object.keys(pkg.dependencies).join(', ')}); extend tools/prisma.runtime.cjs to copy them`);
  }
  const to = path.join(target, ...name.split('/'));
  fs.cpSync(dir, to, { recursive: true, filter: (src) => path.basename(src) !== 'node_modules' });
  copiedPackages.set(name, to);
}

/** Copies a file of @prisma/client's runtime, then what it requires. */
const copiedRuntime = new Set();
function copyRuntimeFile(file) {
  if (copiedRuntime.has(file)) return;
  copiedRuntime.add(file);
  const relative = path.relative(clientDir, file);
  if (relative.startsWith('..')) fail(`${file} is not inside ${clientDir}`);
  copyFile(file, path.join(clientTarget, relative));
  for (const spec of specifiersIn(file)) {
    if (isBuiltin(spec)) continue;
    if (spec.startsWith('.')) copyRuntimeFile(require.resolve(spec, { paths: [path.dirname(file)] }));
    else copyPackage(packageNameOf(spec), path.dirname(file));
  }
}

const wanted = new Set();
for (const file of jsFiles(generated)) {
  for (const spec of specifiersIn(file)) {
    if (spec === '@prisma/client' || spec.startsWith('@prisma/client/')) wanted.add(spec);
  }
}
if (wanted.size === 0) fail(`no @prisma/client specifier found in ${path.relative(root, generated)}`);

for (const spec of wanted) copyRuntimeFile(require.resolve(spec, { paths: [generated] }));

fs.writeFileSync(
  path.join(clientTarget, 'package.json'),
  `${JSON.stringify(
    {
      name: clientPkg.name,
      version: clientPkg.version,
      description: 'The part of Prisma Client runtime that dist/generated/prisma loads (copied by tools/prisma.runtime.cjs).',
      license: clientPkg.license,
    },
    null,
    2,
  )}\n`,
);
for (const extra of ['LICENSE']) {
  if (fs.existsSync(path.join(clientDir, extra))) copyFile(path.join(clientDir, extra), path.join(clientTarget, extra));
}

// Every specifier must now resolve inside dist/node_modules (checked in a fresh process: this one cached the
// resolutions made above, into the installed @prisma/client).
const check = spawnSync(
  process.execPath,
  ['-e', `for (const s of ${JSON.stringify([...wanted])}) console.log(s + '\\t' + require.resolve(s))`],
  { cwd: generated, encoding: 'utf8' },
);
if (check.status !== 0) fail(`resolving the copied runtime failed: ${check.stderr}`);
for (const line of check.stdout.trim().split('\n')) {
  const [spec, resolved] = line.split('\t');
  if (!resolved.startsWith(target + path.sep)) fail(`${spec} resolves to ${resolved}, outside ${path.relative(root, target)}`);
}

let bytes = 0;
const sizeOf = (dir) => {
  for (const d of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, d.name);
    if (d.isDirectory()) sizeOf(p);
    else bytes += fs.statSync(p).size;
  }
};
sizeOf(target);
process.stdout.write(
  `prisma.runtime: copied ${[...wanted].join(', ')} (+ ${[...copiedPackages.keys()].join(', ') || 'no package'}) into ` +
    `${path.relative(root, target)} (${(bytes / 1048576).toFixed(1)} MB)\n`,
);
