/**
 * Runs the benchmark's TypeScript directly: a require hook compiling .ts with @swc/core (already a dev
 * dependency, same options as jest's .swcrc: decorator metadata, CommonJS). Only the harness and the
 * baselines go through it; the service under test is loaded from dist/ (what `npm start` ships).
 */
'use strict';
const fs = require('node:fs');
const path = require('node:path');
const { transformSync } = require('@swc/core');

const rc = JSON.parse(fs.readFileSync(path.join(__dirname, '..', '..', '.swcrc'), 'utf8'));
delete rc.$schema;
require.extensions['.ts'] = function compileTs(module, filename) {
  const out = transformSync(fs.readFileSync(filename, 'utf8'), { ...rc, filename, swcrc: false, sourceMaps: 'inline' });
  module._compile(out.code, filename);
};
