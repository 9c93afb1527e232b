/**
 * The one way into the sandbox package (@remittance-bff/sandbox) from the service: a dynamic import, made only
 * when the built-in sandbox runs (no upstream base URL configured, never in production).
 *
 * The package is a development dependency: a production install (`npm ci --omit=dev`) and the Docker image do
 * not contain it. Nothing else in src/ imports it, so the service loads and runs without it; only asking for
 * the built-in sandbox there fails, with SandboxUnavailableError saying what to do.
 */
import type * as SandboxPackage from '@remittance-bff/sandbox';

export type { RunningSandbox } from '@remittance-bff/sandbox';

/** What the service uses from the package. */
export type SandboxModule = Pick<typeof SandboxPackage, 'startSandbox' | 'DEFAULT_OPTIONS' | 'SANDBOX_ONLY_VARIABLES'>;

/** The variables only the standalone sandbox reads, with their documentation (for the configuration reference). */
export type SandboxVariables = SandboxModule['SANDBOX_ONLY_VARIABLES'];

export const SANDBOX_PACKAGE = '@remittance-bff/sandbox';

export class SandboxUnavailableError extends Error {
  override readonly name = 'SandboxUnavailableError';
}

const isModuleNotFound = (e: unknown) => {
  const code = (e as { code?: unknown } | null)?.code;
  return code === 'MODULE_NOT_FOUND' || code === 'ERR_MODULE_NOT_FOUND';
};

/** Loads the sandbox package; `importer` is replaced by tests only. */
export async function loadSandbox(
  importer: () => Promise<SandboxModule> = () => import('@remittance-bff/sandbox'),
): Promise<SandboxModule> {
  let mod: SandboxModule;
  try {
    mod = await importer();
  } catch (e) {
    if (!isModuleNotFound(e)) throw e;
    throw new SandboxUnavailableError(
      `the built-in sandbox is needed (no upstream base URL is configured) but ${SANDBOX_PACKAGE} is not installed or not built ` +
        `(${(e as Error).message.split('\n')[0]}). It is a development dependency, absent from production installs (npm ci --omit=dev): ` +
        'set GATEWAY_BASE_URL, REMITTANCES_BASE_URL and VERIFICATION_BASE_URL (with their credentials) to the upstream APIs, ' +
        'or use a development install (npm install && npm run build), where the sandbox also runs alone with `npm run sandbox`.',
      { cause: e },
    );
  }
  // import() of a CommonJS package: its exports as named exports, and as `default` if Node could not list them.
  const exported = typeof mod?.startSandbox === 'function' ? mod : (mod as { default?: SandboxModule } | undefined)?.default;
  if (typeof exported?.startSandbox !== 'function' || typeof exported.DEFAULT_OPTIONS !== 'object') {
    throw new SandboxUnavailableError(`${SANDBOX_PACKAGE} does not export startSandbox and DEFAULT_OPTIONS: rebuild it (npm run build)`);
  }
  return {
    startSandbox: exported.startSandbox,
    DEFAULT_OPTIONS: exported.DEFAULT_OPTIONS,
    SANDBOX_ONLY_VARIABLES: exported.SANDBOX_ONLY_VARIABLES,
  };
}
