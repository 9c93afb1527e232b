/**
 * The database lint (eslint.config.mjs, docs/architecture.md Persistence): raw SQL only in src/db/ and *.repository.ts,
 * Prisma's $queryRaw/$executeRaw only in src/db/, and no database at all in a resolver. ESLint's Node API runs in a
 * child process (it loads eslint.config.mjs with a dynamic import, which jest's module system does not allow).
 */
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';

const RAW = 'const rows = await this.sql.query`SELECT 1`;';
const FRAGMENT = "const f = Prisma.sql`x = ${1}`; const e = Prisma.empty; const r = Prisma.raw('c');";
const PRISMA_RAW = 'const rows = await this.prisma.$queryRaw`SELECT 1`; await tx.$executeRawUnsafe("DELETE");';
const MODEL = 'const p = await this.prisma.person.findMany({});';
const DB_IMPORT = "import { prismaRawSql } from '../../db/raw-sql';";

/** [file, code, how many problems] */
const CASES: [string, string, number][] = [
  ['src/modules/fx/fx.service.ts', RAW, 1],
  ['src/modules/fx/fx.service.ts', FRAGMENT, 3],
  ['src/modules/fx/fx.service.ts', PRISMA_RAW, 2],
  ['src/graphql/x.ts', RAW, 1],
  ['src/modules/fx/fx.repository.ts', RAW + FRAGMENT, 0],
  ['src/modules/fx/fx.repository.ts', PRISMA_RAW, 2],
  ['src/db/x.ts', RAW + FRAGMENT + PRISMA_RAW, 0],
  // Prisma's model API is the other way: fine in a service, not in a resolver
  ['src/modules/fx/fx.service.ts', MODEL, 0],
  ['src/modules/fx/fx.resolver.ts', MODEL, 1],
  ['src/modules/fx/fx.resolver.ts', DB_IMPORT, 1],
  ['src/modules/fx/fx.resolver.ts', "import type { Quote } from '../../generated/prisma/client';", 0],
];

const LINT = `
const { ESLint } = require('eslint');
const eslint = new ESLint({
  overrideConfig: { languageOptions: { parserOptions: { projectService: false } } },
  ruleFilter: ({ ruleId }) => ruleId === 'no-restricted-syntax',
});
(async () => {
  const out = [];
  for (const [filePath, code] of JSON.parse(process.argv[1])) {
    const [result] = await eslint.lintText(code + '\\n', { filePath });
    out.push(result.messages.map((m) => m.message));
  }
  process.stdout.write(JSON.stringify(out));
})();
`;

let problems: string[][];
beforeAll(() => {
  const cases = JSON.stringify(
    CASES.map(([file, code]) => [
      file,
      `export async function f(this: any, tx: any, Prisma: any) { ${code.startsWith('import') ? '' : code} }\n${code.startsWith('import') ? code : ''}`,
    ]),
  );
  problems = JSON.parse(execFileSync(process.execPath, ['-e', LINT, cases], { cwd: join(__dirname, '..', '..'), encoding: 'utf8' }));
}, 60_000);

test.each(CASES.map((c, i) => [c[0], c[1], c[2], i] as const))('%s: %s → %d problem(s)', (_file, _code, n, i) => {
  expect(problems[i]).toHaveLength(n);
});
