/**
 * The logger behind Fastify (http.server.ts): one logger for every request — no child per request — that still is
 * the service's logger (its level, redaction and the request id from the mixin) with Fastify's serializers.
 */
import { request as httpRequest } from 'node:http';
import { Writable } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import { loadConfig } from '../../src/config';
import { createHttpServer } from '../../src/http/http.server';
import { createLogger } from '../../src/shared/logger';
import { Metrics } from '../../src/shared/metrics';
import { trustedProxies } from '../../src/shared/trust-proxy';

let fastify: FastifyInstance;
let url: string;
const lines: Record<string, any>[] = [];
const seen: unknown[] = [];

beforeAll(async () => {
  const destination = new Writable({
    write(chunk: Buffer, _enc, done) {
      for (const l of chunk.toString('utf8').split('\n')) if (l) lines.push(JSON.parse(l));
      done();
    },
  });
  const logger = createLogger({ level: 'info', destination });
  fastify = createHttpServer(loadConfig({ NODE_ENV: 'test' }), trustedProxies([]), logger, new Metrics());
  fastify.get('/log', (request, reply) => {
    seen.push(request.log);
    request.log.info({ req: request, res: reply, detail: { password: 'hunter2' } }, 'seen');
    request.log.debug('below the level');
    return { ok: true };
  });
  fastify.post('/log', (request) => {
    request.log.info('seen after the body');
    return { ok: true };
  });
  url = await fastify.listen({ host: '127.0.0.1', port: 0 });
});
afterAll(() => fastify.close());

test('every request logs through the same logger: the service’s, with the request id, redaction and Fastify’s serializers', async () => {
  for (const id of ['log-request-0001', 'log-request-0002']) {
    const res = await fetch(`${url}/log`, { headers: { 'x-request-id': id, authorization: 'Bearer secret-token' } });
    expect(res.status).toBe(200);
  }
  expect(seen).toHaveLength(2);
  expect(seen[0]).toBe(seen[1]);
  expect(seen[0]).toBe(fastify.log);
  const mine = lines.filter((l) => l.msg === 'seen');
  expect(mine.map((l) => l.requestId)).toEqual(['log-request-0001', 'log-request-0002']);
  for (const l of mine) {
    // Fastify's serializers: the request as method and url, never its headers; the reply as its status
    expect(l.req).toEqual(expect.objectContaining({ method: 'GET', url: '/log' }));
    expect(l.req).not.toHaveProperty('headers');
    expect(l.res).toEqual({ statusCode: 200 });
    expect(l.detail.password).toBe('[REDACTED]');
  }
  expect(lines.some((l) => l.msg === 'below the level')).toBe(false);
  expect(JSON.stringify(lines)).not.toContain('secret-token');
});

test('a body that arrives after the headers: the handler still logs with the request id', async () => {
  // The body's last chunk comes from the socket later, so Fastify runs the handler from the request stream's 'end'
  // event, outside the context the first hook made: the request's context must be entered again there.
  const body = JSON.stringify({ padding: 'x'.repeat(64) });
  const status = await new Promise<number>((resolve, reject) => {
    const req = httpRequest(
      `${url}/log`,
      {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'content-length': body.length, 'x-request-id': 'log-request-body1' },
      },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      },
    );
    req.on('error', reject);
    req.write(body.slice(0, 10));
    setTimeout(() => req.end(body.slice(10)), 50);
  });
  expect(status).toBe(200);
  expect(lines.filter((l) => l.msg === 'seen after the body').map((l) => l.requestId)).toEqual(['log-request-body1']);
});
