// Lint: typescript-eslint's recommended rules (syntax-only, fast on two cores) plus the import rules that encode
// the layers (docs/architecture.md). Formatting is Prettier's (eslint-config-prettier turns style rules off).
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import prettier from 'eslint-config-prettier';

/**
 * Imports a layer must not make. Relative imports are matched by how far up they go (`../` × depth of the file
 * below src/), so `../http/x` from src/upstream/gateway/ (the upstream's own http/) is not src/http/.
 */
const layer = (depth, forbidden, packages = [], more = []) => {
  const up = depth === 0 ? '^\\./' : `^(\\.\\./){${depth}}`;
  return {
    'no-restricted-imports': [
      'error',
      {
        patterns: [
          ...forbidden.map(([dir, message]) => ({ regex: `${up}${dir}(/|$)`, message })),
          ...packages.map(([regex, message]) => ({ regex, message })),
          ...more,
        ],
      },
    ],
  };
};

// ── module boundaries: another module only through its ports (src/modules/<m>/<m>.ports.ts) ──
// Extra patterns for layer(): one block per file, since a later block's no-restricted-imports replaces an earlier one's.
const PORTS_ONLY = [
  {
    regex: '^\\.\\./([a-z0-9-]+)/(?!\\1\\.ports$)',
    message: "another module is imported only through its ports: '../<m>/<m>.ports' (or deps.provided at runtime)",
  },
];
// module.ts and modules.ts: the contract and the list may import modules' definitions and ports
const DEFINITIONS_AND_PORTS = [
  {
    regex: '^\\./([a-z0-9-]+)/(?!\\1\\.(module|ports)$)',
    message: "the module contract and list import a module's <m>.module or <m>.ports only",
  },
];

const GRAPHQL = ['graphql', 'GraphQL belongs to the edge: resolvers, GraphQL types, module definitions and graphql/'];
const GRAPHQL_PACKAGES = [
  '^(graphql|type-graphql|@apollo/.*)$',
  'GraphQL belongs to the edge: resolvers, GraphQL types, module definitions and graphql/',
];
const SANDBOX = ['sandbox', 'the sandbox is loaded only by src/sandbox.loader.ts'];
const SANDBOX_PACKAGE = ['^@remittance-bff/sandbox(/.*)?$', 'the sandbox is loaded only by src/sandbox.loader.ts'];
const MODULES = ['modules', 'this layer sits below the domain modules'];
const DB = ['(db|generated)', 'this layer knows no database'];
const DB_PACKAGES = ['^(@prisma/.*|pg)$', 'this layer knows no database'];
const HTTP = ['http', 'this layer knows no HTTP server'];
const HTTP_PACKAGES = ['^fastify$', 'this layer knows no HTTP server'];
const AUTH = ['auth', 'this layer knows no authentication'];
const ABOVE_SHARED = ['(upstream|events|app|app\\.infra|config)', 'shared/ imports nothing above it'];

const SQL_PLACE = 'SQL belongs in src/db/ or a *.repository.ts (docs/architecture.md, Persistence)';
const RESOLVER_NO_DB = 'a resolver reaches the database only through a service or a loader';
/** A raw SQL statement or fragment: the SQL layer's tags (sql.query`…`, sql.execute`…`) and Prisma.sql/raw/join/empty. */
const RAW_SQL = [
  {
    selector: "TaggedTemplateExpression[tag.type='MemberExpression'][tag.property.name=/^(query|execute)$/]",
    message: SQL_PLACE,
  },
  {
    selector: "MemberExpression[object.name='Prisma'][property.name=/^(sql|raw|join|empty)$/]",
    message: SQL_PLACE,
  },
];
const PRISMA_RAW = [
  {
    selector: 'MemberExpression[property.name=/^\\$(queryRaw|executeRaw)(Unsafe)?$/]',
    message: "raw statements go through the typed SQL layer (src/db/raw-sql.ts), not Prisma's $queryRaw/$executeRaw",
  },
];
const NO_DATABASE = [
  {
    selector: "ImportDeclaration[importKind!='type'][source.value=/(\\/db\\/|\\/generated\\/|\\.repository$)/]",
    message: RESOLVER_NO_DB,
  },
  {
    selector: 'MemberExpression[property.name=/^(prisma|db|sql)$/]',
    message: RESOLVER_NO_DB,
  },
];

export default tseslint.config(
  {
    ignores: [
      'dist/**',
      'src/generated/**',
      'packages/*/dist/**',
      'schema/app/generated.ts',
      'test/generated/**',
      'coverage/**',
      '.data/**',
      '.cache/**',
      'node_modules/**',
      // the reference web app's build output and its own install (examples/web-app)
      'examples/*/dist/**',
      'examples/*/node_modules/**',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  prettier,
  {
    languageOptions: { ecmaVersion: 2022, sourceType: 'module' },
    rules: {
      '@typescript-eslint/no-unused-vars': [
        'error',
        { args: 'none', caughtErrors: 'none', ignoreRestSiblings: true, varsIgnorePattern: '^_' },
      ],
      '@typescript-eslint/no-explicit-any': 'off', // tests read untyped GraphQL answers
      // TypeGraphQL's own API is typed with Function (resolver classes, type thunks)
      '@typescript-eslint/no-unsafe-function-type': 'off',
      '@typescript-eslint/no-require-imports': 'off',
      'no-empty': ['error', { allowEmptyCatch: true }],
    },
  },
  // ── promises: no background promise without its handler (an unhandled rejection ends the process) ──
  // Typed rules, so on the service's own sources only (the tests' promises are awaited by jest, and typed linting of
  // every test file would double the lint's time on two cores).
  {
    files: ['src/**/*.ts', 'packages/sandbox/src/**/*.ts'],
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      '@typescript-eslint/no-floating-promises': ['error', { ignoreVoid: false }],
      '@typescript-eslint/no-misused-promises': 'error',
    },
  },
  // ── layers ──
  { files: ['src/*.ts'], ignores: ['src/sandbox.loader.ts'], rules: layer(0, [SANDBOX], [SANDBOX_PACKAGE]) },
  {
    files: ['src/shared/*.ts'],
    rules: layer(
      1,
      [GRAPHQL, SANDBOX, MODULES, DB, HTTP, AUTH, ABOVE_SHARED],
      [GRAPHQL_PACKAGES, SANDBOX_PACKAGE, DB_PACKAGES, HTTP_PACKAGES],
    ),
  },
  {
    files: ['src/shared/*/*.ts'],
    rules: layer(
      2,
      [GRAPHQL, SANDBOX, MODULES, DB, HTTP, AUTH, ABOVE_SHARED],
      [GRAPHQL_PACKAGES, SANDBOX_PACKAGE, DB_PACKAGES, HTTP_PACKAGES],
    ),
  },
  {
    files: ['src/upstream/*.ts'],
    rules: layer(1, [GRAPHQL, SANDBOX, MODULES, DB, HTTP, AUTH], [GRAPHQL_PACKAGES, SANDBOX_PACKAGE, DB_PACKAGES, HTTP_PACKAGES]),
  },
  {
    files: ['src/upstream/*/*.ts'],
    rules: layer(2, [GRAPHQL, SANDBOX, MODULES, DB, HTTP, AUTH], [GRAPHQL_PACKAGES, SANDBOX_PACKAGE, DB_PACKAGES, HTTP_PACKAGES]),
  },
  {
    files: ['src/db/*.ts', 'src/events/*.ts'],
    rules: layer(1, [GRAPHQL, SANDBOX, MODULES, HTTP, AUTH], [GRAPHQL_PACKAGES, SANDBOX_PACKAGE, HTTP_PACKAGES]),
  },
  {
    files: ['src/graphql/*.ts', 'src/http/*.ts', 'src/auth/*.ts', 'src/config/*.ts'],
    rules: layer(1, [SANDBOX], [SANDBOX_PACKAGE]),
  },
  {
    // a module is GraphQL-free but for its edge files: resolvers, GraphQL types, subscriptions, the module definition
    files: ['src/modules/*/*.ts'],
    ignores: [
      'src/modules/*/*.resolver.ts',
      'src/modules/*/*.types.ts',
      'src/modules/*/*.module.ts',
      'src/modules/*/*.subscriptions.ts',
      'src/modules/*/*.routes.ts',
    ],
    rules: layer(2, [GRAPHQL, SANDBOX, HTTP], [GRAPHQL_PACKAGES, SANDBOX_PACKAGE, HTTP_PACKAGES], PORTS_ONLY),
  },
  {
    files: [
      'src/modules/*/*.resolver.ts',
      'src/modules/*/*.types.ts',
      'src/modules/*/*.module.ts',
      'src/modules/*/*.subscriptions.ts',
      'src/modules/*/*.routes.ts',
    ],
    rules: layer(2, [SANDBOX], [SANDBOX_PACKAGE], PORTS_ONLY),
  },
  { files: ['src/modules/*.ts'], rules: layer(1, [SANDBOX], [SANDBOX_PACKAGE], DEFINITIONS_AND_PORTS) },
  // ── the database: two ways (docs/architecture.md, Persistence) ──
  // Raw SQL (the typed SQL layer's statements and Prisma.sql fragments) only in src/db/ and *.repository.ts; Prisma's
  // $queryRaw/$executeRaw nowhere but src/db/ (the SQL layer wraps them); a resolver reaches no database at all.
  {
    files: ['src/**/*.ts'],
    ignores: ['src/db/**', 'src/generated/**', 'src/**/*.repository.ts'],
    rules: { 'no-restricted-syntax': ['error', ...RAW_SQL, ...PRISMA_RAW] },
  },
  { files: ['src/**/*.repository.ts'], rules: { 'no-restricted-syntax': ['error', ...PRISMA_RAW] } },
  {
    files: ['src/modules/*/*.resolver.ts'],
    rules: { 'no-restricted-syntax': ['error', ...RAW_SQL, ...PRISMA_RAW, ...NO_DATABASE] },
  },
  {
    files: ['test/**/*.ts', '**/*.js', '**/*.cjs', '**/*.mjs', 'codegen.ts'],
    languageOptions: {
      globals: {
        require: 'readonly',
        module: 'writable',
        process: 'readonly',
        console: 'readonly',
        __dirname: 'readonly',
        Buffer: 'readonly',
      },
    },
    rules: { '@typescript-eslint/no-non-null-assertion': 'off' },
  },
);
