/**
 * Baseline of benchmark 2: a bare Fastify route making the same undici call as the service's `banks`
 * query — GET {gateway}/bank/list?countryCode=BR&page=0&resultsPerPage=20 with a bearer token, on an undici
 * Pool bounded like the service's (UPSTREAM_MAX_CONNECTIONS, 32) — and answering the upstream JSON. No
 * caller authentication, no schema, no validation: the floor.
 */
import Fastify from 'fastify';
import { Pool } from 'undici';
import { serveCommands } from '../rpc';

let close: () => Promise<void> = async () => undefined;

serveCommands(
  {
    async start(args: { gatewayUrl: string; connections?: number }) {
      const base = new URL(args.gatewayUrl);
      const pool = new Pool(base.origin, { connections: args.connections ?? 32 });
      const prefix = base.pathname.replace(/\/$/, '');
      const tokenRes = await pool.request({
        method: 'POST',
        path: `${prefix}/oauth/token`,
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ clientId: 'sandbox-client', secretID: 'sandbox-secret' }),
      });
      const { access_token: token } = (await tokenRes.body.json()) as { access_token: string };
      const app = Fastify({ logger: false });
      app.get('/banks', async (_req, reply) => {
        const r = await pool.request({
          method: 'GET',
          path: `${prefix}/bank/list?countryCode=BR&page=0&resultsPerPage=20`,
          headers: { authorization: `Bearer ${token}`, accept: 'application/json' },
        });
        const body = await r.body.json();
        return reply.code(r.statusCode === 200 ? 200 : 502).send(body);
      });
      await app.listen({ port: 0, host: '127.0.0.1' });
      close = async () => {
        await app.close();
        await pool.close();
      };
      return { url: `http://127.0.0.1:${(app.server.address() as { port: number }).port}` };
    },
  },
  () => close(),
);
