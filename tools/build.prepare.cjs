/**
 * `prepare` (run by `npm install` / `npm ci` in this directory): builds when the build tooling is installed.
 *
 * - Development install (`npm install`, `npm ci`): runs `npm run build` (Prisma client, the sandbox package,
 *   tsc into dist/), so that `npm install && npm start` works on a fresh clone.
 * - Production install (`npm ci --omit=dev`, or NODE_ENV=production): the tooling (prisma, typescript) is a
 *   development dependency and is absent, so nothing is built; dist/ must come from a development install
 *   (`npm run build`) made beforehand — see README, "Production".
 */
'use strict';
const { spawnSync } = require('node:child_process');
const { existsSync } = require('node:fs');
const path = require('node:path');

const root = path.resolve(__dirname, '..');
// In this project's own node_modules only (require.resolve would also look in parent directories).
const installed = (name) => existsSync(path.join(root, 'node_modules', name, 'package.json'));

const missing = ['typescript', 'prisma'].filter((name) => !installed(name));
if (missing.length > 0) {
  const built = existsSync(path.join(root, 'dist', 'main.js'));
  process.stdout.write(
    `prepare: build tooling not installed (${missing.join(', ')}: production install), not building; ` +
      (built ? 'dist/ is already built.\n' : 'dist/ is missing: build it with a development install first (npm ci && npm run build).\n'),
  );
  process.exit(0);
}

const npm = process.env.npm_execpath;
const result = npm
  ? spawnSync(process.execPath, [npm, 'run', 'build'], { cwd: root, stdio: 'inherit' })
  : spawnSync('npm', ['run', 'build'], { cwd: root, stdio: 'inherit', shell: process.platform === 'win32' });
if (result.error) throw result.error;
process.exit(result.status ?? 1);
