// Runs src/db/migrate.cli.ts in a plain Node process (no build needed): .ts files are compiled on
// require by @swc/core with the repository's .swcrc. Used by test/db/postgres.test.ts.
const path = require('node:path');
const swc = require('@swc/core');
require.extensions['.ts'] = (module, filename) => {
  const { code } = swc.transformFileSync(filename, { swcrc: true, cwd: path.resolve(__dirname, '../..') });
  module._compile(code, filename);
};
const { runMigrateCli } = require('../../src/db/migrate.cli.ts');
runMigrateCli().then((code) => process.exit(code));
