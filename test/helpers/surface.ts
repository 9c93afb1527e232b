/** Helpers for the API surface tests (directory, wallets, verification, admin, limits). */
import type { TestApp } from './app';

export interface SandboxCallRow {
  service: string;
  method: string;
  path: string;
  status: number;
}

/** The embedded sandbox's call log (optionally filtered by path prefix, e.g. /gateway/bank). */
export async function sandboxCalls(t: TestApp, pathPrefix?: string): Promise<SandboxCallRow[]> {
  const q = pathPrefix ? `?path=${encodeURIComponent(pathPrefix)}` : '';
  const res = await fetch(`${t.app.sandbox!.url}/__sandbox/calls${q}`);
  return (await res.json()) as SandboxCallRow[];
}

export async function clearSandboxCalls(t: TestApp): Promise<void> {
  await fetch(`${t.app.sandbox!.url}/__sandbox/calls`, { method: 'DELETE' });
}

/** GET /bank calls only (not /bank/list). */
export const bankLookups = (calls: SandboxCallRow[]) => calls.filter((c) => c.path.split('?')[0] === '/gateway/bank');
