/**
 * Test helpers for the sandbox (simulated upstream APIs).
 *
 *   const sb = await startTestSandbox();          // random port, 127.0.0.1
 *   const token = await sb.gatewayToken();
 *   const res = await sb.gateway('POST', '/v2/foreign-exchange', { ... });   // bearer token added
 *   await sb.control.advanceClock(301);
 *   await sb.close();
 */
import { request as undiciRequest, type Dispatcher } from 'undici';
import { waitFor } from './wait';
import {
  startSandbox,
  type RunningSandbox,
  type SandboxCall,
  type SandboxFaults,
  type SandboxServerOptions,
} from '@remittance-bff/sandbox';

export interface HttpResponse<T = any> {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  /** Parsed JSON when the response is JSON, else the text. */
  body: T;
  text: string;
}

export interface HttpOptions {
  body?: unknown; // JSON-encoded unless a string (sent as is)
  headers?: Record<string, string>;
  token?: string; // adds Authorization: Bearer <token>
  dispatcher?: Dispatcher; // e.g. an undici Agent with a client certificate
}

/** One HTTP request; never throws on a status code. */
export async function http<T = any>(method: string, url: string, opts: HttpOptions = {}): Promise<HttpResponse<T>> {
  const headers: Record<string, string> = { accept: 'application/json', ...(opts.headers ?? {}) };
  let body: string | undefined;
  if (opts.body !== undefined) {
    body = typeof opts.body === 'string' ? opts.body : JSON.stringify(opts.body);
    if (!Object.keys(headers).some((h) => h.toLowerCase() === 'content-type')) headers['content-type'] = 'application/json';
  }
  if (opts.token) headers.authorization = `Bearer ${opts.token}`;
  const res = await undiciRequest(url, { method: method as Dispatcher.HttpMethod, headers, body, dispatcher: opts.dispatcher });
  const text = await res.body.text();
  const type = String(res.headers['content-type'] ?? '');
  let parsed: unknown = text;
  if (type.includes('json') && text !== '') parsed = JSON.parse(text);
  return { status: res.statusCode, headers: res.headers as HttpResponse['headers'], body: parsed as T, text };
}

export interface TestSandbox extends RunningSandbox {
  gatewayUrl: string;
  remittancesUrl: string;
  verificationUrl: string;
  controlUrl: string;
  /** Request to `${url}${path}` (path includes the service prefix, e.g. /gateway/v2/payment). */
  request<T = any>(method: string, path: string, opts?: HttpOptions): Promise<HttpResponse<T>>;
  /** A fresh gateway access token (default sandbox credentials unless overridden in options). */
  gatewayToken(): Promise<string>;
  /** Gateway request with a cached bearer token; path relative to /gateway. */
  gateway<T = any>(method: string, path: string, body?: unknown, opts?: Omit<HttpOptions, 'body' | 'token'>): Promise<HttpResponse<T>>;
  control: {
    calls(path?: string): Promise<SandboxCall[]>;
    reset(): Promise<void>;
    advanceClock(seconds: number): Promise<void>;
    setFaults(faults: Partial<SandboxFaults>): Promise<SandboxFaults>;
  };
}

export async function startTestSandbox(opts: SandboxServerOptions = {}): Promise<TestSandbox> {
  const running = await startSandbox({ port: 0, ...opts });
  const url = running.url;
  let cachedToken: string | null = null;
  const sb: TestSandbox = {
    ...running,
    gatewayUrl: `${url}/gateway`,
    remittancesUrl: `${url}/remittances`,
    verificationUrl: `${url}/verification`,
    controlUrl: `${url}/__sandbox`,
    request: (method, path, o) => http(method, `${url}${path}`, o),
    async gatewayToken() {
      const res = await http('POST', `${url}/gateway/oauth/token`, {
        body: { clientId: running.ctx.options.gatewayClientId, secretID: running.ctx.options.gatewayClientSecret },
      });
      if (res.status !== 200) throw new Error(`gateway token: ${res.status} ${res.text}`);
      return res.body.access_token as string;
    },
    async gateway(method, path, body, o = {}) {
      if (!cachedToken) cachedToken = await sb.gatewayToken();
      let res = await http(method, `${url}/gateway${path}`, { ...o, body, token: cachedToken });
      if (res.status === 401 && res.body?.error?.code === 'UNAUTHORIZED') {
        cachedToken = await sb.gatewayToken(); // token expired (clock moved) or state reset
        res = await http(method, `${url}/gateway${path}`, { ...o, body, token: cachedToken });
      }
      return res;
    },
    control: {
      async calls(path) {
        const q = path ? `?path=${encodeURIComponent(path)}` : '';
        return (await http<SandboxCall[]>('GET', `${url}/__sandbox/calls${q}`)).body;
      },
      async reset() {
        await http('POST', `${url}/__sandbox/reset`);
        cachedToken = null;
      },
      async advanceClock(seconds) {
        const res = await http('POST', `${url}/__sandbox/clock`, { body: { advanceSeconds: seconds } });
        if (res.status !== 200) throw new Error(`advance clock: ${res.status} ${res.text}`);
      },
      async setFaults(faults) {
        const res = await http<SandboxFaults>('POST', `${url}/__sandbox/faults`, { body: faults });
        if (res.status !== 200) throw new Error(`set faults: ${res.status} ${res.text}`);
        return res.body;
      },
    },
  };
  return sb;
}

/** A card token UUID ending in the given 4 characters (sandbox magic values, e.g. '0002' for 3DS). */
export function cardToken(suffix = '1234', prefix = 'aaaaaaaa-bbbb-4ccc-8ddd'): string {
  return `${prefix}-${'0'.repeat(12 - suffix.length)}${suffix}`.toLowerCase();
}

/**
 * Takes the manual-review decision for a transaction held by the sandbox (sender Compliance-Review): 409 until the
 * platform's own lifecycle has put it in ManualReview, so it is retried until taken.
 */
export async function decideReview(sandboxUrl: string, externalPaymentId: string, decision: 'Approved' | 'Rejected', timeoutMs = 15_000) {
  await waitFor(
    async () =>
      (
        await fetch(`${sandboxUrl}/__sandbox/transactions/${externalPaymentId}/compliance`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ decision }),
        })
      ).status < 300,
    { timeoutMs, intervalMs: 50, what: `the review decision (${decision})` },
  );
}

/** Sets the sandbox's fault knobs through its control API (POST /__sandbox/faults). */
export async function setFaults(sandboxUrl: string, faults: Record<string, unknown>): Promise<void> {
  const res = await fetch(`${sandboxUrl}/__sandbox/faults`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(faults),
  });
  if (!res.ok) throw new Error(`the sandbox refused the faults: ${res.status}`);
}

/** The platform's status of transaction `id` (GET …/fx/transactions/{id} with the sandbox's own credentials). */
export async function platformTransactionStatus(
  sandbox: { url: string; ctx: { options: SandboxOptionsForRead } },
  id: string,
): Promise<string> {
  const o = sandbox.ctx.options;
  const res = await fetch(`${sandbox.url}/remittances/organizations/${o.remittancesTenantId}/fx/transactions/${id}`, {
    headers: { 'x-api-key': o.remittancesApiKey, 'x-agent-id': o.remittancesAgentId, 'x-agent-api-key': o.remittancesAgentApiKey },
  });
  return ((await res.json()) as { status: string }).status;
}

type SandboxOptionsForRead = {
  remittancesTenantId: string;
  remittancesApiKey: string;
  remittancesAgentId: string;
  remittancesAgentApiKey: string;
};
