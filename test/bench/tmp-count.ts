import 'reflect-metadata';
import { createHook } from 'node:async_hooks';
import path from 'node:path';
import { request } from 'undici';
import { DIST } from './rpc';
import { BANKS_QUERY, TRANSFER_QUERY, transferId, OWNER, seedTransfers } from './seed';
const { createApp } = require(path.join(DIST, 'app.js'));
const { loadConfig } = require(path.join(DIST, 'config.js'));
const { currentRequest } = require(path.join(DIST, 'shared/request-context.js'));
(async () => {
  const config = loadConfig({
    NODE_ENV: 'test',
    HOST: '127.0.0.1',
    PORT: '0',
    SANDBOX_PORT: '0',
    LOG_LEVEL: 'fatal',
    DATABASE_URL: 'memory://',
    DATA_DIR: '/tmp/ovh/data',
    SAGA_WORKER_ENABLED: 'false',
    RATE_LIMIT_UPSTREAM_POINTS_PER_MINUTE: '1000000',
  });
  const app = await createApp(config);
  const { url } = await app.start();
  await seedTransfers(app.db.prisma, 10, 5);
  const token = await app.auth.issueDevToken(OWNER, 'customer');
  const which = process.argv[2] ?? 'banks';
  const body =
    which === 'banks'
      ? JSON.stringify({ query: BANKS_QUERY })
      : JSON.stringify({ query: TRANSFER_QUERY, variables: { id: transferId(7) } });
  const send = async () => {
    const r = await request(`${url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
      body,
    });
    await r.body.text();
  };
  for (let i = 0; i < 50; i++) await send();
  const counts = new Map<string, number>();
  const h = createHook({
    init(_id, type) {
      if (!currentRequest()) return;
      if (type !== 'PROMISE') return;
      Error.stackTraceLimit = 12;
      const st = (new Error().stack ?? '')
        .split('\n')
        .slice(2)
        .map((l) => l.trim())
        .filter((l) => !l.includes('node:internal') && !l.includes('node:async_hooks'))
        .slice(0, 2)
        .map((l) =>
          l
            .replace(/^at /, '')
            .replace(/\(.*node_modules\//, '(')
            .replace(/\(.*\/dist\//, '(dist/')
            .replace(/:\d+\)$/, ')'),
        )
        .join(' < ');
      counts.set(st, (counts.get(st) ?? 0) + 1);
    },
  });
  h.enable();
  const N = 100;
  for (let i = 0; i < N; i++) await send();
  h.disable();
  console.log(which);
  for (const [k, v] of [...counts].sort((a, b) => b[1] - a[1]).slice(0, 60)) console.log((v / N).toFixed(1).padStart(5), k);
  await app.close();
  process.exit(0);
})();
