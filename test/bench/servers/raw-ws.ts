/** Baseline of benchmark 4: a raw `ws` server broadcasting one pre-serialized JSON string to every client. */
import http from 'node:http';
import { WebSocketServer } from 'ws';
import { serveCommands, wallMs } from '../rpc';

let server: http.Server | null = null;
let wss: WebSocketServer | null = null;

serveCommands(
  {
    async start() {
      server = http.createServer();
      wss = new WebSocketServer({ server, maxPayload: 64 * 1024 });
      await new Promise<void>((r) => server!.listen(0, '127.0.0.1', r));
      return { url: `ws://127.0.0.1:${(server.address() as { port: number }).port}/` };
    },
    broadcast(args: { json: string }) {
      const t0 = wallMs();
      for (const ws of wss!.clients) ws.send(args.json);
      return { t0, t1: wallMs() };
    },
    mem() {
      (globalThis as { gc?: () => void }).gc?.();
      const m = process.memoryUsage();
      return { rss: m.rss, heapUsed: m.heapUsed, external: m.external };
    },
    clients: () => wss!.clients.size,
  },
  async () => {
    for (const ws of wss?.clients ?? []) ws.terminate();
    await new Promise((r) => server?.close(r) ?? r(null));
  },
);
