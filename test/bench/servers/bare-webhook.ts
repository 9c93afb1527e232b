/**
 * Baseline of benchmark 3: a bare Fastify route doing HMAC-SHA256 verification of X-Service-Signature over
 * the raw body and one `INSERT … ON CONFLICT DO NOTHING`, with `pg` (a pool of 20 and the INSERT a prepared
 * statement, as the service's defaults DATABASE_POOL_MAX and DATABASE_PREPARED_STATEMENTS) when PostgreSQL is
 * used, with PGlite (in memory) otherwise.
 */
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import Fastify from 'fastify';
import pg from 'pg';
import { PGlite } from '@electric-sql/pglite';
import { serveCommands } from '../rpc';

let close: () => Promise<void> = async () => undefined;

const DDL = `CREATE TABLE IF NOT EXISTS bench_webhook_bare (dedupe_key text PRIMARY KEY, payload jsonb NOT NULL, received_at timestamptz NOT NULL)`;
const INSERT = `INSERT INTO bench_webhook_bare (dedupe_key, payload, received_at) VALUES ($1, $2::jsonb, now()) ON CONFLICT DO NOTHING`;

serveCommands(
  {
    async start(args: { databaseUrl: string | null; secret: string }) {
      let query: (sql: string, params?: unknown[]) => Promise<unknown>;
      let closeDb: () => Promise<void>;
      if (args.databaseUrl) {
        const pool = new pg.Pool({ connectionString: args.databaseUrl, max: 20 });
        // named: parsed once per connection
        query = (sql, params) => pool.query({ name: sql === INSERT ? 'bench_insert' : undefined, text: sql, values: params });
        closeDb = () => pool.end();
      } else {
        const lite = new PGlite();
        query = (sql, params) => lite.query(sql, params as unknown[]);
        closeDb = () => lite.close();
      }
      await query(DDL);
      const app = Fastify({ logger: false });
      app.removeAllContentTypeParsers();
      app.addContentTypeParser('*', { parseAs: 'buffer' }, (_req, body, done) => done(null, body));
      app.post('/webhooks/remittances', async (request, reply) => {
        const raw = request.body as Buffer;
        const header = String(request.headers['x-service-signature'] ?? '');
        const t = /(?:^|,)t=(\d+)/.exec(header)?.[1];
        const v1 = /(?:^|,)v1=([0-9a-f]{64})/.exec(header)?.[1];
        if (!t || !v1) return reply.code(401).send({ error: 'invalid_signature' });
        const expected = createHmac('sha256', args.secret).update(`${t}.`).update(raw).digest();
        if (!timingSafeEqual(expected, Buffer.from(v1, 'hex'))) return reply.code(401).send({ error: 'invalid_signature' });
        await query(INSERT, [createHash('sha256').update(raw).digest('hex'), raw.toString('utf8')]);
        return reply.send({ received: true });
      });
      await app.listen({ port: 0, host: '127.0.0.1' });
      close = async () => {
        await app.close();
        await closeDb();
      };
      return {
        url: `http://127.0.0.1:${(app.server.address() as { port: number }).port}`,
        dbKind: args.databaseUrl ? 'postgres (pg)' : 'pglite',
      };
    },
  },
  () => close(),
);
