/**
 * PGlite (PostgreSQL compiled to WebAssembly) for the embedded default and tests.
 *
 * Costs measured here (2 shared cores): a fresh instance runs initdb, 1.3–2 s; an instance loaded from
 * a dump of an initialised (and migrated) data directory (`loadDataDir`) skips initdb, ≈ 0.3 s. The
 * wasm modules are compiled once per process and shared by every instance.
 */
import { closeSync, mkdirSync, openSync, readFileSync, rmSync, writeSync } from 'node:fs';
import { hostname } from 'node:os';
import path from 'node:path';
import type { PGlite as PGliteInstance, PGliteOptions } from '@electric-sql/pglite';
import { applyMigrations, type Migration, type SqlSession } from './migrate';

/*
 * PGlite and its Prisma adapter. In a normal process: plain `require`.
 *
 * Under Jest, modules run in a vm context where PGlite's dynamic `import("module")`,
 * `import("fs/promises")`… (Node built-ins only) throw ERR_VM_DYNAMIC_IMPORT_CALLBACK_MISSING_FLAG
 * (Jest would need --experimental-vm-modules, and even Node's own loader fails there). So under Jest
 * we evaluate PGlite's CommonJS bundle with those `import("x")` rewritten to a synchronous require of the built-in,
 * and the adapter with its `require("@electric-sql/pglite")` pointed at that same copy (it converts
 * errors with instanceof). Everything stays in the test's realm.
 */
type PgliteModule = typeof import('@electric-sql/pglite');
type AdapterModule = typeof import('pglite-prisma-adapter');

function evalCommonJs(file: string, source: string, req: (id: string) => unknown): unknown {
  const mod = { exports: {} as unknown };
  // `__importBuiltin` rather than `require`: emscripten's glue declares its own `var require`.
  const fn = new Function('exports', 'require', 'module', '__filename', '__dirname', '__importBuiltin', source) as (
    ...args: unknown[]
  ) => void;
  fn(mod.exports, req, mod, file, path.dirname(file), req);
  return mod.exports;
}

function loadPgliteModules(): { pglite: PgliteModule; adapter: AdapterModule } {
  if (process.env.JEST_WORKER_ID === undefined) {
    return {
      pglite: require('@electric-sql/pglite') as PgliteModule,
      adapter: require('pglite-prisma-adapter') as AdapterModule,
    };
  }
  const pgliteFile = require.resolve('@electric-sql/pglite');
  const pgliteSource = readFileSync(pgliteFile, 'utf8').replace(
    /\bimport\((["'])([a-z:/_]+)\1\)/g,
    (_m, q: string, id: string) => `Promise.resolve(__importBuiltin(${q}${id}${q}))`,
  );
  const pglite = evalCommonJs(pgliteFile, pgliteSource, (id) => require(id)) as PgliteModule;
  const adapterFile = require.resolve('pglite-prisma-adapter');
  const adapter = evalCommonJs(adapterFile, readFileSync(adapterFile, 'utf8'), (id) =>
    id === '@electric-sql/pglite' ? pglite : require(require.resolve(id, { paths: [path.dirname(adapterFile)] })),
  ) as AdapterModule;
  return { pglite, adapter };
}

const modules = loadPgliteModules();
export const PGlite = modules.pglite.PGlite;
export type PGlite = PGliteInstance;
export const PrismaPGlite = modules.adapter.PrismaPGlite;

type WasmModule = NonNullable<PGliteOptions['pgliteWasmModule']>;
interface SharedAssets {
  pgliteWasmModule: WasmModule;
  initdbWasmModule: WasmModule;
  fsBundle: Blob;
}
let assets: Promise<SharedAssets> | null = null;

function sharedAssets(): Promise<SharedAssets> {
  assets ??= (async () => {
    const dist = path.dirname(require.resolve('@electric-sql/pglite'));
    const { WebAssembly: WA } = globalThis as unknown as { WebAssembly: { compile(b: Uint8Array): Promise<WasmModule> } };
    const [pgliteWasmModule, initdbWasmModule] = await Promise.all([
      WA.compile(readFileSync(path.join(dist, 'pglite.wasm'))),
      WA.compile(readFileSync(path.join(dist, 'initdb.wasm'))),
    ]);
    return { pgliteWasmModule, initdbWasmModule, fsBundle: new Blob([readFileSync(path.join(dist, 'pglite.data'))]) };
  })();
  assets.catch(() => (assets = null));
  return assets;
}

interface OpenPgliteOptions {
  /** Directory of a persistent database (created if missing); null = in memory. */
  dataDir: string | null;
  /** Start from this dump (PGlite#dumpDataDir) instead of running initdb; only for a new database. */
  loadDataDir?: Blob;
  /**
   * In memory only: keep a dump of the first freshly initialised instance in this process and start
   * later ones from it (≈ 0.3 s instead of ≈ 1.5–2 s; costs ≈ 80 ms once and ≈ 40 MB of memory).
   */
  reuseInitdb?: boolean;
}

let blankDump: Promise<Blob> | null = null;

export async function openPglite(opts: OpenPgliteOptions): Promise<PGlite> {
  const shared = await sharedAssets();
  const options: PGliteOptions = { ...shared };
  if (opts.dataDir !== null) {
    mkdirSync(opts.dataDir, { recursive: true });
    options.dataDir = path.resolve(opts.dataDir);
  }
  if (opts.loadDataDir) options.loadDataDir = opts.loadDataDir;
  else if (opts.reuseInitdb && opts.dataDir === null && blankDump) options.loadDataDir = await blankDump;
  const pg = new PGlite(options);
  await pg.waitReady;
  // UTC, as every PostgreSQL session of the service (database.ts): PGlite would take the process's zone
  await pg.exec('SET TimeZone TO UTC');
  if (opts.reuseInitdb && opts.dataDir === null && !opts.loadDataDir && !blankDump) {
    blankDump = pg.dumpDataDir('none');
    blankDump.catch(() => (blankDump = null));
    await blankDump;
  }
  return pg;
}

/**
 * PGlite data directories must be opened by one process at a time (it has no postmaster to arbitrate).
 * A lock file next to the directory (`<dataDir>.lock`: host and pid) turns a second process on this
 * host into a clear error instead of a corrupted database. A lock whose process is gone is taken
 * over — including one carrying our own pid that this process did not take (a restarted container
 * runs as the same pid) and one written on another host (we cannot check it; sharing a PGlite
 * directory between hosts is not supported).
 */
const heldLocks = new Set<string>();

export function lockDataDir(dataDir: string): () => void {
  const lockPath = `${path.resolve(dataDir).replace(/\/+$/, '')}.lock`;
  if (heldLocks.has(lockPath)) throw new Error(`PGlite data directory ${dataDir} is already open in this process`);
  mkdirSync(path.dirname(lockPath), { recursive: true });
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      const fd = openSync(lockPath, 'wx');
      writeSync(fd, JSON.stringify({ host: hostname(), pid: process.pid }));
      closeSync(fd);
      heldLocks.add(lockPath);
      let released = false;
      return () => {
        if (released) return;
        released = true;
        heldLocks.delete(lockPath);
        rmSync(lockPath, { force: true });
      };
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
      let owner: { host?: unknown; pid?: unknown } = {};
      try {
        owner = JSON.parse(readFileSync(lockPath, 'utf8')) as typeof owner;
      } catch {
        // unreadable or half-written: treat as stale
      }
      const pid = typeof owner.pid === 'number' ? owner.pid : NaN;
      if (owner.host === hostname() && pid !== process.pid && Number.isInteger(pid) && pid > 0 && isAlive(pid)) {
        throw new Error(
          `PGlite data directory ${dataDir} is in use by process ${pid} (lock file ${lockPath}). ` +
            'Stop it, or use DATABASE_URL=memory:// or a postgres:// URL for several instances.',
          { cause: e },
        );
      }
      rmSync(lockPath, { force: true }); // stale
    }
  }
  throw new Error(`could not lock ${lockPath}`);
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** A SqlSession (see migrate.ts) over a PGlite instance. */
export function pgliteSession(db: PGlite): SqlSession {
  return {
    query: async <T>(sql: string, params?: unknown[]) => (await db.query<T>(sql, params)).rows,
    exec: async (script: string) => {
      await db.exec(script);
    },
  };
}

/**
 * A dump (tar) of an in-memory database with `migrations` applied, to start new databases from with
 * `loadDataDir` — skipping initdb and the migrations. Used by the test helper to make in-memory test
 * databases cheap.
 */
export async function createMigratedPgliteDump(migrations: Migration[]): Promise<Blob> {
  const pg = await openPglite({ dataDir: null });
  try {
    await applyMigrations(pgliteSession(pg), migrations);
    return await pg.dumpDataDir('none');
  } finally {
    await pg.close();
  }
}
