/**
 * Two service processes sharing PostgreSQL and Redis: a notice published through one reaches a subscriber
 * connected to the other. Runs only where DATABASE_URL (postgres) and REDIS_URL are set.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runNode, spawnService, type ServiceProcess } from '../helpers/process';
import { collect, wsClient } from '../helpers/ws';

const pg = process.env.DATABASE_URL?.startsWith('postgres') ? process.env.DATABASE_URL : undefined;
const redis = process.env.REDIS_URL;

if (!pg || !redis) {
  console.warn('Redis fan-out across two processes skipped: needs DATABASE_URL=postgres://… and REDIS_URL');
  it.skip('Redis fan-out across two processes (needs PostgreSQL and Redis)', () => undefined);
} else {
  describe('two instances, PostgreSQL + Redis', () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'rbff-fanout-'));
    const procs: ServiceProcess[] = [];
    afterAll(async () => {
      for (const p of procs) {
        p.proc.kill('SIGTERM');
        await p.exited;
      }
      rmSync(dataDir, { recursive: true, force: true });
    });

    it('an event published by one instance reaches a subscriber connected to the other', async () => {
      const env = { DATA_DIR: dataDir, DATABASE_URL: pg, REDIS_URL: redis };
      // Started together: the migration lock makes them apply the migrations once.
      procs.push(...(await Promise.all([spawnService(env), spawnService(env)])));
      const [a, b] = procs as [ServiceProcess, ServiceProcess];
      expect(a.url).not.toBe(b.url);
      const tokenOf = async (sub: string, role: string) =>
        (await runNode('dist/auth/token.cli.js', ['--sub', sub, '--role', role], { DATA_DIR: dataDir })).stdout.trim();

      const { client } = wsClient(`${b.url.replace('http', 'ws')}/graphql`, await tokenOf('gina', 'customer'));
      const sub = collect<{ systemNotices: { message: string } }>(client, 'subscription { systemNotices { message } }');
      await new Promise((r) => setTimeout(r, 500)); // let B's SUBSCRIBE reach Redis

      const res = await fetch(`${a.url}/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${await tokenOf('root', 'admin')}` },
        body: JSON.stringify({ query: 'mutation { publishSystemNotice(input: { message: "from instance A" }) { id } }' }),
      });
      expect(((await res.json()) as { errors?: unknown }).errors).toBeUndefined();
      await sub.next(1, 5000);
      expect(sub.results[0]!.data!.systemNotices.message).toBe('from instance A');
      const ready = (await (
        await fetch(`${b.url}/readyz`, { headers: { authorization: `Bearer ${await tokenOf('root', 'admin')}` } })
      ).json()) as { checks: { pubsub: { details: { kind: string } } } };
      expect(ready.checks.pubsub.details.kind).toBe('redis');
      sub.dispose();
      await client.dispose();
    });
  });
}
