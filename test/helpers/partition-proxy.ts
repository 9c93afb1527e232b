import { connect, createServer, type AddressInfo, type Socket } from 'node:net';

/**
 * A TCP proxy in front of a server (a database) that can be partitioned: `cut()` drops every connection through it
 * and holds new ones open without an answer — what a network partition looks like to a client, whose connects then
 * wait out their own timeouts —; `heal()` lets connections through again.
 */
export interface PartitionProxy {
  port: number;
  /** `url` with its host and port replaced by the proxy's. */
  via(url: string): string;
  cut(): void;
  heal(): void;
  close(): Promise<void>;
}

export async function partitionProxy(target: { host: string; port: number }): Promise<PartitionProxy> {
  let partitioned = false;
  const open = new Set<Socket>();
  const server = createServer((client) => {
    open.add(client);
    client.once('close', () => open.delete(client));
    client.on('error', () => client.destroy());
    if (partitioned) return; // held: no answer until healed (then dropped)
    const upstream = connect(target.port, target.host);
    open.add(upstream);
    upstream.once('close', () => (open.delete(upstream), client.destroy()));
    upstream.on('error', () => upstream.destroy());
    client.once('close', () => upstream.destroy());
    client.pipe(upstream).pipe(client);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  const dropAll = () => {
    for (const s of open) s.destroy();
  };
  return {
    port,
    via(url) {
      const u = new URL(url);
      u.hostname = '127.0.0.1';
      u.port = String(port);
      return u.toString();
    },
    cut() {
      partitioned = true;
      dropAll();
    },
    heal() {
      partitioned = false;
      dropAll(); // the held connections never got an answer: let their clients retry afresh
    },
    async close() {
      dropAll();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}
