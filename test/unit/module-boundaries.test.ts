/**
 * The module boundary lint (eslint.config.mjs): a module imports another module only through its ports, and the
 * module contract and list only a module's definition or ports. ESLint's Node API runs in a child process (it
 * loads eslint.config.mjs with a dynamic import, which jest's module system does not allow).
 */
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';

const FORBIDDEN: [string, string][] = [
  ['src/modules/transfer/x.ts', '../kyc/kyc.service'],
  ['src/modules/transfer/x.ts', '../checks/checks.credentials.repository'],
  ['src/modules/transfer/x.resolver.ts', '../kyc/kyc.types'],
  ['src/modules/recipient/x.ts', '../transfer/kyc.ports'],
  ['src/modules/module.ts', './kyc/kyc.service'],
];
const ALLOWED: [string, string][] = [
  ['src/modules/transfer/x.ts', '../kyc/kyc.ports'],
  ['src/modules/transfer/x.resolver.ts', '../kyc/kyc.ports'],
  ['src/modules/legacy-card/x.ts', '../checks/checks.ports'],
  ['src/modules/transfer/x.ts', './transfer.service'],
  ['src/modules/transfer/x.ts', '../module'],
  ['src/modules/transfer/x.ts', '../../shared/errors'],
  ['src/modules/module.ts', './kyc/kyc.ports'],
  ['src/modules/modules.ts', './kyc/kyc.module'],
];

// Only the import rule: the typed rules need the file in the TypeScript project, and these files do not exist.
const LINT = `
const { ESLint } = require('eslint');
const eslint = new ESLint({
  overrideConfig: { languageOptions: { parserOptions: { projectService: false } } },
  ruleFilter: ({ ruleId }) => ruleId === 'no-restricted-imports',
});
(async () => {
  const out = [];
  for (const [filePath, from] of JSON.parse(process.argv[1])) {
    const [result] = await eslint.lintText("import { x } from '" + from + "';\\nexport const y = x;\\n", { filePath });
    out.push(result.messages.map((m) => m.ruleId + ': ' + m.message));
  }
  process.stdout.write(JSON.stringify(out));
})();
`;

let problems: string[][];
beforeAll(() => {
  const cases = JSON.stringify([...FORBIDDEN, ...ALLOWED]);
  problems = JSON.parse(execFileSync(process.execPath, ['-e', LINT, cases], { cwd: join(__dirname, '..', '..'), encoding: 'utf8' }));
}, 60_000);

test.each(FORBIDDEN.map((c, i) => [...c, i] as const))('%s may not import %s', (_file, _from, i) => {
  expect(problems[i]).toEqual([expect.stringMatching(/^no-restricted-imports: .*ports/)]);
});

test.each(ALLOWED.map((c, i) => [...c, FORBIDDEN.length + i] as const))('%s may import %s', (_file, _from, i) => {
  expect(problems[i]).toEqual([]);
});
