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
    /** The JSON to every client, `times` times (as often as each client's socket carries subscriptions). */
    broadcast(args: { json: string; times?: number }) {
      const t0 = wallMs();
      const times = args.times ?? 1;
      for (const ws of wss!.clients) for (let i = 0; i < times; i++) ws.send(args.json);
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
