import type { Server } from 'node:net';

/**
 * At most `max` connections open at once per client key (HTTP keep-alive connections and websockets alike, on this
 * instance): one more is destroyed as soon as it is accepted, before any byte of it is read. `keyOf` gives the key
 * of a peer address, or null for a peer that is not counted (a trusted proxy carries many clients).
 */
export function limitConnectionsPerClient(
  server: Server,
  opts: { max: number; keyOf: (address: string) => string | null; onRefused?: () => void },
): void {
  const open = new Map<string, number>();
  server.on('connection', (socket) => {
    const key = opts.keyOf(socket.remoteAddress ?? '');
    if (key === null) return;
    const n = open.get(key) ?? 0;
    if (n >= opts.max) {
      opts.onRefused?.();
      socket.destroy();
      return;
    }
    open.set(key, n + 1);
    socket.once('close', () => {
      const left = (open.get(key) ?? 1) - 1;
      if (left > 0) open.set(key, left);
      else open.delete(key);
    });
  });
}
