/**
 * Test harness for the remittances/verification parts of the sandbox: a running sandbox over real HTTP
 * (startSandbox of @remittance-bff/sandbox), a small HTTP client and a local webhook receiver.
 */
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Agent, request } from 'undici';
import { DEFAULT_OPTIONS, startSandbox, type SandboxContext, type SandboxOptions } from '@remittance-bff/sandbox';

export const TENANT = 'sandbox-tenant';
export const API_KEY = 'sandbox-api-key';
export const AGENT_ID = '00000000-0000-4000-8000-00000000a9e7';
export const AGENT_KEY = 'sandbox-agent-key';

export interface TlsFiles {
  cert: string;
  key: string;
  ca: string;
  requireClientCert: boolean;
}

export interface Harness {
  url: string;
  ctx: SandboxContext;
  close(): Promise<void>;
}

export async function startHarness(opts: { options?: Partial<SandboxOptions>; tls?: TlsFiles } = {}): Promise<Harness> {
  return startSandbox({ port: 0, host: '127.0.0.1', tls: opts.tls, options: { ...DEFAULT_OPTIONS, ...opts.options } });
}

export interface Res<T = any> {
  status: number;
  headers: IncomingHttpHeaders;
  body: T;
  text: string;
}

export async function call<T = any>(
  base: string,
  method: string,
  path: string,
  opts: { headers?: Record<string, string>; json?: unknown; form?: Record<string, string>; raw?: string; dispatcher?: Agent } = {},
): Promise<Res<T>> {
  const headers: Record<string, string> = { accept: 'application/json', ...opts.headers };
  let body: string | undefined;
  if (opts.json !== undefined) {
    headers['content-type'] ??= 'application/json';
    body = JSON.stringify(opts.json);
  } else if (opts.form) {
    headers['content-type'] ??= 'application/x-www-form-urlencoded';
    body = new URLSearchParams(opts.form).toString();
  } else if (opts.raw !== undefined) body = opts.raw;
  const res = await request(`${base}${path}`, { method: method as 'GET', headers, body, dispatcher: opts.dispatcher });
  const text = await res.body.text();
  let parsed: unknown;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    parsed = text;
  }
  return { status: res.statusCode, headers: res.headers as IncomingHttpHeaders, body: parsed as T, text };
}

export const tenantHeaders = (apiKey = API_KEY): Record<string, string> => ({ 'x-api-key': apiKey });
export const agentHeaders = (agentId = AGENT_ID, agentKey = AGENT_KEY): Record<string, string> => ({
  'x-api-key': API_KEY,
  'x-agent-id': agentId,
  'x-agent-api-key': agentKey,
});

export interface Received {
  headers: IncomingHttpHeaders;
  raw: string;
  json: any;
  at: number;
}

/** A local webhook receiver. `respond` decides the status of each delivery (default 200). */
export class Receiver {
  readonly received: Received[] = [];
  private server: Server | null = null;
  respond: (r: Received, index: number) => number = () => 200;
  url = '';

  async start(): Promise<this> {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const raw = Buffer.concat(chunks).toString('utf8');
        let json: unknown = null;
        try {
          json = JSON.parse(raw);
        } catch {
          /* keep raw */
        }
        const r: Received = { headers: req.headers, raw, json, at: Date.now() };
        const index = this.received.length;
        this.received.push(r);
        res.statusCode = this.respond(r, index);
        res.end();
      });
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/hook`;
    return this;
  }

  async close(): Promise<void> {
    const s = this.server;
    if (!s) return;
    s.closeAllConnections();
    await new Promise<void>((resolve) => s.close(() => resolve()));
  }

  events(name?: string): any[] {
    return this.received.map((r) => r.json).filter((j) => !name || j?.event === name);
  }
}

/** Polls until truthy (5 s, every 10 ms by default): the suite's one wait helper. */
export { waitFor } from '../helpers/wait';

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Creates a subscription for the receiver and returns its id. */
export async function subscribe(base: string, url: string, events: string[]): Promise<string> {
  const res = await call(base, 'POST', `/remittances/organizations/${TENANT}/webhooks`, {
    headers: tenantHeaders(),
    json: { url, events },
  });
  if (res.status !== 201) throw new Error(`subscribe failed: ${res.status} ${res.text}`);
  return res.body.id;
}

export const ALL_EVENTS = [
  'TransactionStatusChanged',
  'TransactionComplianceStatusChangedEvent',
  'TransactionPayoutStatusChanged',
  'DocumentUpdatedEvents',
  'AgentUpdatedEvents',
];
