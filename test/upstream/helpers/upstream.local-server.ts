import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import { loadConfig, type Config } from '../../../src/config';
import { ManualClock } from '../../../src/shared/clock';
import { createLogger } from '../../../src/shared/logger';
import { Metrics } from '../../../src/shared/metrics';
import { createUpstreamClients, type UpstreamClients } from '../../../src/upstream/upstream.clients';

export interface SeenRequest {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: string;
  json: unknown;
}

export type Handler = (req: SeenRequest, res: ServerResponse) => void | Promise<void>;

/** A tiny HTTP server whose behaviour each test scripts, recording every request. */
export class LocalServer {
  readonly seen: SeenRequest[] = [];
  handler: Handler = (_req, res) => json(res, 404, { error: { code: 'NOT_FOUND', message: 'no handler' } });
  private server: Server | null = null;
  private readonly sockets = new Set<import('node:net').Socket>();
  url = '';

  async start(): Promise<this> {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const body = Buffer.concat(chunks).toString('utf8');
        let parsed: unknown;
        try {
          parsed = body ? JSON.parse(body) : undefined;
        } catch {
          parsed = undefined;
        }
        const seen = { method: req.method ?? '', url: req.url ?? '', headers: req.headers, body, json: parsed };
        this.seen.push(seen);
        void Promise.resolve(this.handler(seen, res)).catch((e) => {
          res.statusCode = 500;
          res.end(String(e));
        });
      });
    });
    this.server.on('connection', (s) => {
      this.sockets.add(s);
      s.on('close', () => this.sockets.delete(s));
    });
    await new Promise<void>((r) => this.server!.listen(0, '127.0.0.1', r));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this;
  }

  paths(prefix = ''): string[] {
    return this.seen.filter((s) => s.url.startsWith(prefix)).map((s) => `${s.method} ${s.url}`);
  }

  async stop(): Promise<void> {
    for (const s of this.sockets) s.destroy();
    await new Promise<void>((r) => this.server?.close(() => r()) ?? r());
  }
}

export function json(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text), ...headers });
  res.end(text);
}

/** Collects pino lines. */
export class LogSink extends Writable {
  readonly lines: string[] = [];
  override _write(chunk: Buffer, _enc: string, cb: () => void): void {
    this.lines.push(...chunk.toString('utf8').split('\n').filter(Boolean));
    cb();
  }
  get text(): string {
    return this.lines.join('\n');
  }
  records(): Array<Record<string, unknown>> {
    return this.lines.map((l) => JSON.parse(l) as Record<string, unknown>);
  }
}

export interface Harness {
  clients: UpstreamClients;
  config: Config;
  clock: ManualClock;
  metrics: Metrics;
  logs: LogSink;
  sleeps: number[];
}

/**
 * Clients on the real factory, pointed at `baseUrl` for all three services (each under its own prefix),
 * with a manual clock, an injected sleep that records and advances the clock, and a debug log sink.
 */
export function harness(baseUrl: string, env: Record<string, string> = {}, opts: { realSleep?: boolean } = {}): Harness {
  const config = loadConfig({
    NODE_ENV: 'test',
    GATEWAY_BASE_URL: `${baseUrl}/gateway`,
    REMITTANCES_BASE_URL: `${baseUrl}/remittances`,
    VERIFICATION_BASE_URL: `${baseUrl}/verification`,
    UPSTREAM_READ_TIMEOUT_MS: '2000',
    UPSTREAM_PAYMENT_TIMEOUT_MS: '4000',
    ...env,
  });
  const clock = new ManualClock();
  const metrics = new Metrics({ defaultMetrics: false });
  const logs = new LogSink();
  const logger = createLogger({ level: 'debug', destination: logs });
  const sleeps: number[] = [];
  const clients = createUpstreamClients(config, {
    clock,
    metrics,
    logger,
    retryEnv: opts.realSleep
      ? { random: () => 0.5 }
      : {
          random: () => 0.5,
          sleep: async (ms) => {
            sleeps.push(ms);
            clock.advance(ms);
          },
        },
  });
  return { clients, config, clock, metrics, logs, sleeps };
}

export async function metricValue(metrics: Metrics, labels: Record<string, string>): Promise<number> {
  const m = await metrics.upstreamRequests.get();
  return m.values
    .filter((v) => Object.entries(labels).every(([k, val]) => (v.labels as Record<string, unknown>)[k] === val))
    .reduce((a, v) => a + v.value, 0);
}
