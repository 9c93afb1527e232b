/**
 * Prisma's schema engine, offline, as WebAssembly (`@prisma/schema-engine-wasm`, a devDependency).
 *
 * Used by development tooling only — creating migrations (`migration.create.ts`) and the drift test —
 * never by the running service (see migrate.ts for why). The Prisma 7 CLI would download a native
 * engine from a host this network cannot reach; the wasm build needs nothing but a driver adapter.
 *
 * The package targets bundlers (an ES module importing a `.wasm` file). Neither plain CommonJS nor
 * Jest can import it as is, so we evaluate its wasm-bindgen glue (`schema_engine_bg.js`, which imports
 * nothing) as a function in the current realm, instantiate the `.wasm` with the glue as its import
 * object, then `__wbg_set_wasm` + `__wbindgen_start`, as the package's own entry file does.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { bindMigrationAwareSqlAdapterFactory } from '@prisma/driver-adapter-utils';
import type { SqlDriverAdapter, SqlMigrationAwareDriverAdapterFactory } from '@prisma/driver-adapter-utils';
import type * as Wasm from '@prisma/schema-engine-wasm' with { 'resolution-mode': 'import' };
import { MIGRATION_LOCK_FILE, PRISMA_DIR, readMigrations, type Migration } from './migrate';
import { openPglite, PrismaPGlite, type PGlite } from './pglite';

type SchemaEngine = Wasm.SchemaEngine;
type MigrationList = Wasm.MigrationList;
type GlueModule = typeof Wasm;

let gluePromise: Promise<GlueModule> | null = null;

/** Loads and instantiates the wasm schema engine once per process (≈ 5 MB of wasm). */
function loadSchemaEngineModule(): Promise<GlueModule> {
  gluePromise ??= (async () => {
    const gluePath = require.resolve('@prisma/schema-engine-wasm/schema_engine_bg');
    const source = readFileSync(gluePath, 'utf8');
    const names: string[] = [];
    const body = source.replace(/^export (function|class) ([A-Za-z0-9_$]+)/gm, (_m, kind: string, name: string) => {
      names.push(name);
      return `${kind} ${name}`;
    });
    if (/^export /m.test(body)) throw new Error(`Unexpected export form in ${gluePath}; update schema-engine.ts`);
    // `module` is referenced by the glue's `__wbg_require_*` shim.
    const factory = new Function('module', `${body}\nreturn { ${names.join(', ')} };`) as (m: unknown) => GlueModule;
    const glue = factory({ require });
    // The engine arms timers (e.g. a 10 s timeout around taking its migration lock) that it never
    // clears; unref them so that they do not keep a CLI or a Jest worker alive.
    const imports = glue as unknown as Record<string, unknown>;
    for (const name of names.filter((n) => n.startsWith('__wbg_setTimeout_'))) {
      const original = imports[name] as (...args: unknown[]) => unknown;
      imports[name] = (...args: unknown[]) => {
        const timer = original(...args) as { unref?: () => void } | undefined;
        timer?.unref?.();
        return timer;
      };
    }
    const wasmBytes = readFileSync(path.join(path.dirname(gluePath), 'schema_engine_bg.wasm'));
    // lib "ES2022" without "dom" has no WebAssembly typings; the global exists in Node.
    const { WebAssembly: WA } = globalThis as unknown as {
      WebAssembly: {
        instantiate(bytes: Uint8Array, imports: object): Promise<{ instance: { exports: Record<string, unknown> } }>;
      };
    };
    const { instance } = await WA.instantiate(wasmBytes, { './schema_engine_bg.js': glue });
    const g = glue as unknown as { __wbg_set_wasm(x: unknown): void };
    g.__wbg_set_wasm(instance.exports);
    (instance.exports as { __wbindgen_start(): void }).__wbindgen_start();
    return glue;
  })();
  gluePromise.catch(() => (gluePromise = null));
  return gluePromise;
}

/**
 * A migration-aware adapter factory on in-memory PGlite: `connect()` gives one throwaway database,
 * `connectToShadowDb()` another (the engine applies the migrations there to learn their end state).
 * Wraps pglite-prisma-adapter, whose `executeScript` does not await (errors would be lost) and whose
 * shadow databases are never closed.
 */
function memoryPgliteAdapterFactory(): SqlMigrationAwareDriverAdapterFactory & { close(): Promise<void> } {
  const opened: PGlite[] = [];
  const connectTo = async (): Promise<SqlDriverAdapter> => {
    const pg = await openPglite({ dataDir: null, reuseInitdb: true });
    opened.push(pg);
    const adapter = await new PrismaPGlite(pg).connect();
    return Object.assign(Object.create(adapter) as SqlDriverAdapter, {
      executeScript: async (script: string) => {
        try {
          await pg.exec(script);
        } catch (e) {
          (adapter as unknown as { onError(e: unknown): never }).onError(e);
        }
      },
      dispose: async () => {
        if (!pg.closed) await pg.close();
      },
    });
  };
  return {
    provider: 'postgres',
    adapterName: 'pglite-memory',
    connect: connectTo,
    connectToShadowDb: connectTo,
    close: async () => {
      await Promise.all(opened.map((pg) => (pg.closed ? undefined : pg.close())));
    },
  };
}

export async function createSchemaEngine(
  adapterFactory: SqlMigrationAwareDriverAdapterFactory,
  opts: { schema?: { path: string; content: string }; log?: (line: string) => void } = {},
): Promise<SchemaEngine> {
  const glue = await loadSchemaEngineModule();
  const datamodels: [string, string][] | undefined = opts.schema ? [[opts.schema.path, opts.schema.content]] : undefined;
  return glue.SchemaEngine.new({ datamodels }, (line: string) => opts.log?.(line), bindMigrationAwareSqlAdapterFactory(adapterFactory));
}

/** The engine's view of a migrations directory. */
export function toMigrationList(migrations: Migration[], migrationsDir: string): MigrationList {
  const lockPath = path.join(migrationsDir, MIGRATION_LOCK_FILE);
  let lockContent: string | null;
  try {
    lockContent = readFileSync(lockPath, 'utf8');
  } catch {
    lockContent = null;
  }
  return {
    baseDir: migrationsDir,
    lockfile: { path: MIGRATION_LOCK_FILE, content: lockContent },
    shadowDbInitScript: '',
    migrationDirectories: migrations.map((m) => ({
      path: m.name,
      migrationFile: { path: 'migration.sql', content: { tag: 'ok', value: m.sql } },
    })),
  };
}

interface DiffOptions {
  prismaDir?: string;
  /** Override the schema text (tests); defaults to <prismaDir>/schema.prisma. */
  schemaContent?: string;
}

/**
 * SQL that takes a database from the state produced by the migrations to the one described by
 * schema.prisma; null when there is nothing to do (no drift).
 */
export async function diffMigrationsToSchema(opts: DiffOptions = {}): Promise<string | null> {
  const prismaDir = opts.prismaDir ?? PRISMA_DIR;
  const migrationsDir = path.join(prismaDir, 'migrations');
  const schemaPath = path.join(prismaDir, 'schema.prisma');
  const schemaContent = opts.schemaContent ?? readFileSync(schemaPath, 'utf8');
  const migrations = readMigrations(migrationsDir);
  const factory = memoryPgliteAdapterFactory();
  try {
    const engine = await createSchemaEngine(factory);
    try {
      const result = await engine.diff({
        from: migrations.length ? { tag: 'migrations', ...toMigrationList(migrations, migrationsDir) } : { tag: 'empty' },
        to: { tag: 'schemaDatamodel', files: [{ path: schemaPath, content: schemaContent }] },
        script: true,
        exitCode: true,
        filters: { externalTables: [], externalEnums: [] },
      });
      // exitCode 2 = non-empty diff (like `prisma migrate diff --exit-code`).
      return result.exitCode === 2 ? (result.stdout ?? '') : null;
    } finally {
      engine.free();
    }
  } finally {
    await factory.close();
  }
}
