/**
 * The sandbox HTTP server: one port serving the simulated upstream APIs, each under its own base path —
 * /gateway (payments gateway), /remittances (remittances platform), /verification (verification-session API) —
 * and the control API under /__sandbox.
 *
 * Server-wide behaviour:
 * - Every request under /gateway, /remittances and /verification is recorded in ctx.calls (onResponse):
 *   { service, method, path (full path, without query), status, at (sandbox clock), idempotencyKey }
 *   idempotencyKey = body.externalRefundId (a refund), else body.externalPaymentId, else the {externalPaymentId}
 *   of /gateway/payments/{id}/capture|void, else null. Never headers or bodies, so never secrets.
 * - Faults (ctx.faults) apply to those three APIs, not to the control API and not to the browser pages
 *   (/gateway/3ds/*, /verification/hosted/*): latencyMs delays each request before it is handled; errorRate
 *   answers 503 { error: { code: "SERVICE_UNAVAILABLE" } } (with Retry-After: 1) without doing anything,
 *   drawn from the seeded ctx.random; dropResponseAfterCommitRate applies to the gateway's POST /v2/payment,
 *   capture, void and refund: the work is committed, then the socket is destroyed without an answer; such a call
 *   is recorded with status 0.
 * - With `tls`, the whole port speaks HTTPS (plain HTTP is refused at the protocol level); with
 *   requireClientCert the server asks for a client certificate (verified against `ca`) but does not reject the
 *   handshake, so that the remittances plugin answers 401/403 itself (ctx.tlsClientAuthRequired).
 */
import Fastify, { type FastifyInstance, type FastifyRequest } from 'fastify';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { DEFAULT_OPTIONS, SandboxContext, type SandboxOptions, type SandboxService } from './sandbox.context';
import { sandboxControlPlugin } from './sandbox.control';
import { gatewayPlugin } from './gateway/gateway.plugin';
import { remittancesPlugin } from './remittances/remittances.plugin';
import { remittancesControlPlugin } from './remittances/remittances.control';
import { verificationPlugin } from './verification/verification.plugin';

export interface SandboxServerOptions {
  port?: number; // default 4010; 0 = random
  host?: string; // default 127.0.0.1
  tls?: { cert: string; key: string; ca: string; requireClientCert: boolean }; // PEM contents
  options?: Partial<SandboxOptions>;
  logger?: boolean; // default false
}

export interface RunningSandbox {
  url: string; // origin, e.g. http://127.0.0.1:4010
  ctx: SandboxContext;
  close(): Promise<void>;
}

const SERVICES: Array<[string, SandboxService]> = [
  ['/gateway', 'gateway'],
  ['/remittances', 'remittances'],
  ['/verification', 'verification'],
];
const BROWSER_PAGES = ['/gateway/3ds/', '/verification/hosted/'];

function pathOf(url: string): string {
  const i = url.indexOf('?');
  return i === -1 ? url : url.slice(0, i);
}

export function serviceOf(path: string): SandboxService | null {
  for (const [prefix, service] of SERVICES) if (path === prefix || path.startsWith(`${prefix}/`)) return service;
  return null;
}

const CAPTURE_OR_VOID = /^\/gateway\/payments\/([^/]+)\/(capture|void)$/;

/** The idempotency key a request body carries: a refund's externalRefundId, else the externalPaymentId. */
function keyOfBody(body: unknown): string | null {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return null;
  for (const name of ['externalRefundId', 'externalPaymentId']) {
    const key = (body as Record<string, unknown>)[name];
    if (typeof key === 'string' && key !== '') return key;
  }
  return null;
}

/** The idempotency key of requests refused by the errorRate fault (their body is never parsed by Fastify). */
const faultedKeys = new WeakMap<object, string | null>();

async function idempotencyKeyOfRaw(request: FastifyRequest): Promise<string | null> {
  if (request.method === 'GET' || request.method === 'HEAD') return null;
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of request.raw) {
      size += (chunk as Buffer).length;
      if (size > 1_048_576) return null;
      chunks.push(chunk as Buffer);
    }
    return keyOfBody(JSON.parse(Buffer.concat(chunks).toString('utf8')));
  } catch {
    return null;
  }
}

export function idempotencyKeyOf(request: FastifyRequest): string | null {
  const faulted = faultedKeys.get(request.raw);
  if (typeof faulted === 'string') return faulted;
  const key = keyOfBody(request.body);
  if (key) return key;
  const m = CAPTURE_OR_VOID.exec(pathOf(request.url));
  if (m) {
    try {
      return decodeURIComponent(m[1]);
    } catch {
      return m[1];
    }
  }
  return null;
}

function originOf(protocol: 'http' | 'https', host: string, port: number): string {
  const h = host === '0.0.0.0' ? '127.0.0.1' : host === '::' ? '[::1]' : host.includes(':') ? `[${host}]` : host;
  return `${protocol}://${h}:${port}`;
}

export async function startSandbox(opts: SandboxServerOptions = {}): Promise<RunningSandbox> {
  const ctx = new SandboxContext({ ...DEFAULT_OPTIONS, ...(opts.options ?? {}) });
  const tls = opts.tls;
  if (tls) ctx.tlsClientAuthRequired = tls.requireClientCert;

  const common = { logger: opts.logger ?? false, forceCloseConnections: true as const };
  const app = (tls
    ? Fastify({
        ...common,
        https: {
          cert: tls.cert,
          key: tls.key,
          ca: tls.ca,
          requestCert: tls.requireClientCert,
          rejectUnauthorized: false,
        },
      })
    : Fastify(common)) as unknown as FastifyInstance;

  // Faults run first (onRequest, before any plugin's own authentication), like a load balancer in front.
  app.addHook('onRequest', async (request, reply) => {
    const path = pathOf(request.url);
    if (!serviceOf(path) || BROWSER_PAGES.some((p) => path.startsWith(p))) return;
    const { latencyMs, errorRate } = ctx.faults;
    if (latencyMs > 0) await sleep(latencyMs);
    if (errorRate > 0 && ctx.random() < errorRate) {
      // Read the body only to log its externalPaymentId with the refused call; nothing is handled.
      faultedKeys.set(request.raw, await idempotencyKeyOfRaw(request));
      reply
        .code(503)
        .header('retry-after', '1')
        .send({ error: { code: 'SERVICE_UNAVAILABLE', message: 'sandbox fault injection: service unavailable' } });
      return reply;
    }
  });

  app.addHook('onResponse', async (request, reply) => {
    const path = pathOf(request.url);
    const service = serviceOf(path);
    if (!service || ctx.recordedRequests.has(request.raw)) return;
    ctx.recordCall({ service, method: request.method, path, status: reply.statusCode, idempotencyKey: idempotencyKeyOf(request) });
  });

  app.get('/', async () => ({
    gateway: `${ctx.publicOrigin}/gateway`,
    remittances: `${ctx.publicOrigin}/remittances`,
    verification: `${ctx.publicOrigin}/verification`,
    control: `${ctx.publicOrigin}/__sandbox`,
  }));

  await app.register(gatewayPlugin, { prefix: '/gateway', ctx });
  await app.register(remittancesPlugin, { prefix: '/remittances', ctx });
  await app.register(verificationPlugin, { prefix: '/verification', ctx });
  await app.register(sandboxControlPlugin, { prefix: '/__sandbox', ctx });
  await app.register(remittancesControlPlugin, { prefix: '/__sandbox', ctx });

  const host = opts.host ?? '127.0.0.1';
  await app.listen({ port: opts.port ?? 4010, host });
  const port = (app.server.address() as AddressInfo).port;
  ctx.publicOrigin = originOf(tls ? 'https' : 'http', host, port);

  let closed = false;
  return {
    url: ctx.publicOrigin,
    ctx,
    async close() {
      if (closed) return;
      closed = true;
      await app.close();
    },
  };
}
