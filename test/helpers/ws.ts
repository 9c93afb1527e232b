import WebSocket from 'ws';
import { createClient, type Client } from 'graphql-ws';

/**
 * A graphql-ws client for tests; `closed` resolves with the close code and reason. `params` go into connection_init
 * beside the token; `headers` are sent with the upgrade request.
 */
export function wsClient(
  wsUrl: string,
  token?: string,
  opts: { lazy?: boolean; params?: Record<string, unknown>; headers?: Record<string, string> } = {},
) {
  let resolveClosed!: (v: { code: number; reason: string }) => void;
  const closed = new Promise<{ code: number; reason: string }>((r) => (resolveClosed = r));
  const headers = opts.headers;
  const client: Client = createClient({
    url: wsUrl,
    webSocketImpl: headers
      ? class extends WebSocket {
          constructor(url: string, protocols?: string | string[]) {
            super(url, protocols, { headers });
          }
        }
      : WebSocket,
    lazy: opts.lazy ?? true,
    retryAttempts: 0,
    connectionParams: { ...(token ? { authorization: `Bearer ${token}` } : {}), ...opts.params },
    on: {
      closed: (e) => {
        const ev = e as { code: number; reason: string };
        resolveClosed({ code: ev.code, reason: String(ev.reason) });
      },
    },
  });
  return { client, closed };
}

/** Subscribes and collects results; `next(n)` waits for n results in total. */
export function collect<T>(client: Client, query: string, variables?: Record<string, unknown>) {
  const results: { data?: T; errors?: { message: string; extensions?: Record<string, unknown> }[] }[] = [];
  const waiters: { n: number; resolve: () => void }[] = [];
  let error: unknown;
  let completed = false;
  const dispose = client.subscribe<T>(
    { query, variables },
    {
      next: (v) => {
        results.push(v as never);
        for (const w of [...waiters]) if (results.length >= w.n) w.resolve();
      },
      error: (e) => {
        error = e;
        for (const w of [...waiters]) w.resolve();
      },
      complete: () => {
        completed = true;
        for (const w of [...waiters]) w.resolve();
      },
    },
  );
  return {
    results,
    get error() {
      return error;
    },
    get completed() {
      return completed;
    },
    dispose,
    next: (n: number, timeoutMs = 5000) =>
      new Promise<void>((resolve, reject) => {
        if (results.length >= n || error || completed) return resolve();
        const t = setTimeout(() => reject(new Error(`only ${results.length}/${n} results`)), timeoutMs);
        waiters.push({ n, resolve: () => (clearTimeout(t), resolve()) });
      }),
  };
}

/** Opens a raw socket speaking graphql-transport-ws and resolves with its close code. */
export function rawSocketClose(wsUrl: string, send?: (ws: WebSocket) => void): Promise<{ code: number; reason: string }> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(wsUrl, 'graphql-transport-ws');
    ws.on('open', () => send?.(ws));
    ws.on('close', (code, reason) => resolve({ code, reason: reason.toString() }));
    ws.on('error', reject);
  });
}
