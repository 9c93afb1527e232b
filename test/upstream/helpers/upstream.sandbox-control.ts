import { Agent, request } from 'undici';

/** Talks to the sandbox control API (/__sandbox) — test-side, not through the clients under test. */
export class SandboxControl {
  private readonly dispatcher?: Agent;
  constructor(
    private readonly origin: string,
    tls?: { ca: string; cert?: string; key?: string },
  ) {
    if (tls) this.dispatcher = new Agent({ connect: { ca: tls.ca, cert: tls.cert, key: tls.key } });
  }

  private async call(method: 'GET' | 'POST' | 'DELETE', path: string, body?: unknown): Promise<unknown> {
    const res = await request(`${this.origin}/__sandbox${path}`, {
      method,
      dispatcher: this.dispatcher,
      headers: body === undefined ? {} : { 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.body.text();
    if (res.statusCode >= 400) throw new Error(`control ${method} ${path}: ${res.statusCode} ${text}`);
    return text ? JSON.parse(text) : undefined;
  }

  calls(
    pathPrefix: string,
  ): Promise<Array<{ service: string; method: string; path: string; status: number; idempotencyKey: string | null }>> {
    return this.call('GET', `/calls?path=${encodeURIComponent(pathPrefix)}`) as never;
  }
  reset(): Promise<unknown> {
    return this.call('POST', '/reset', {});
  }
  advanceClock(seconds: number): Promise<unknown> {
    return this.call('POST', '/clock', { advanceSeconds: seconds });
  }
  faults(patch: Record<string, unknown>): Promise<unknown> {
    return this.call('POST', '/faults', patch);
  }
  approveAgent(id: string): Promise<unknown> {
    return this.call('POST', `/agents/${encodeURIComponent(id)}/approve`, {});
  }
  async close(): Promise<void> {
    await this.dispatcher?.close();
  }
}
