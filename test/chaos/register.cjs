/**
 * `npm run chaos` runs the suite's TypeScript directly: a require hook compiling .ts with @swc/core (a dev
 * dependency; the options of .swcrc, which jest uses too: decorator metadata, CommonJS).
 */
'use strict';
const fs = require('node:fs');
const path = require('node:path');
const { transformSync } = require('@swc/core');

require('reflect-metadata');
const rc = JSON.parse(fs.readFileSync(path.join(__dirname, '..', '..', '.swcrc'), 'utf8'));
delete rc.$schema;
require.extensions['.ts'] = function compileTs(module, filename) {
  const out = transformSync(fs.readFileSync(filename, 'utf8'), { ...rc, filename, swcrc: false, sourceMaps: 'inline' });
  module._compile(out.code, filename);
};
