/**
 * The shared infrastructure the modules are built from: tracing, the built-in sandbox (when no upstream is
 * configured), the upstream clients, the database, pub/sub and authentication. Each part registers how it closes.
 */
import type { SpanProcessor } from '@opentelemetry/sdk-trace-base';
import type { Config } from './config';
import { AuthService } from './auth/auth.service';
import { createDatabase, type Database } from './db/database';
import { isDatabaseUnavailable } from './db/db.errors';
import { MemoryPubSub, type PubSub } from './events/pubsub';
import { RedisPubSub } from './events/redis.pubsub';
import type { Clock } from './shared/clock';
import type { Logger } from './shared/logger';
import type { Metrics } from './shared/metrics';
import { startTracing, traceDatabase } from './shared/tracing';
import { loadSandbox, type RunningSandbox } from './sandbox.loader';
import { createUpstreamClients, type UpstreamClients } from './upstream/upstream.clients';
import { backoffDelay } from './shared/backoff';

export interface Closer {
  name: string;
  close: () => Promise<unknown>;
}

export interface Infrastructure {
  sandbox: RunningSandbox | null;
  upstream: UpstreamClients;
  db: Database;
  pubsub: PubSub;
  auth: AuthService;
}

export async function createInfrastructure(
  config: Config,
  deps: { clock: Clock; logger: Logger; metrics: Metrics; traceSpanProcessors?: SpanProcessor[]; pgliteLoadDataDir?: Blob },
  closers: Closer[],
): Promise<Infrastructure> {
  const { clock, logger, metrics } = deps;
  // Tracing first (closed last, so every span is flushed); null when off: no SDK started at all
  const tracing = startTracing({ ...config.tracing, spanProcessors: deps.traceSpanProcessors });
  if (tracing) closers.push({ name: 'tracing', close: () => tracing.shutdown() });

  const sandbox = config.sandbox.enabled ? await startEmbeddedSandbox(config, clock) : null;
  if (sandbox) {
    closers.push({ name: 'sandbox', close: () => sandbox.close() });
    logger.info({ url: sandbox.url }, 'built-in sandbox started (no upstream base URL configured)');
  }
  const upstream = createUpstreamClients(config, {
    clock,
    metrics,
    logger,
    baseUrls: sandbox
      ? { gateway: `${sandbox.url}/gateway`, remittances: `${sandbox.url}/remittances`, verification: `${sandbox.url}/verification` }
      : undefined,
  });
  closers.push({ name: 'upstream', close: () => upstream.close() });

  const inMemory = config.database.kind === 'pglite' && config.database.dataDir === null;
  const db = await createDatabase(config.database, logger, inMemory ? { pgliteLoadDataDir: deps.pgliteLoadDataDir } : {});
  closers.push({ name: 'database', close: () => db.close() });
  if (tracing) traceDatabase((listener) => db.onQuery(listener));

  const pubsub: PubSub = config.redisUrl ? new RedisPubSub(config.redisUrl, logger) : new MemoryPubSub();
  closers.push({ name: 'pubsub', close: () => pubsub.close() });

  const auth = await AuthService.create(config.auth, config.dataDir, clock, metrics.registry);
  return { sandbox, upstream, db, pubsub, auth };
}

/** The built-in sandbox (loaded only now, see sandbox.loader.ts), accepting whatever credentials the service is configured with. */
async function startEmbeddedSandbox(config: Config, clock: Clock): Promise<RunningSandbox> {
  const { startSandbox, DEFAULT_OPTIONS } = await loadSandbox();
  return startSandbox({
    port: config.sandbox.port,
    host: config.sandbox.host,
    options: {
      // webhooks are signed with the time of the service that receives them (its own clock), never the sandbox clock
      wallClockMs: () => clock.nowMs(),
      gatewayClientId: config.gateway.clientId,
      gatewayClientSecret: config.gateway.clientSecret,
      remittancesTenantId: config.remittances.tenantId,
      remittancesApiKey: config.remittances.apiKey,
      remittancesAgentId: config.remittances.agentId,
      remittancesAgentApiKey: config.remittances.agentApiKey,
      verificationClients: [
        {
          clientId: config.verification.clientId,
          clientSecret: config.verification.clientSecret,
          tenantId: config.remittances.tenantId,
          scopes: ['sessions', 'verifications'],
        },
        ...DEFAULT_OPTIONS.verificationClients.filter(
          (c) => c.clientId !== config.verification.clientId && c.tenantId !== config.remittances.tenantId,
        ),
      ],
    },
  });
}

export async function closeAll(closers: Closer[], logger: Logger): Promise<void> {
  for (const c of [...closers].reverse()) {
    try {
      logger.debug({ component: c.name }, 'closing');
      await c.close();
    } catch (err) {
      logger.warn({ err, component: c.name }, 'error while closing');
    }
  }
  closers.length = 0;
}

/** Applies migrations, retrying with backoff while the database is unreachable; a failed migration is fatal. */
export async function migrateWhenReachable(db: Database, logger: Logger, stopped: () => boolean): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      const { applied } = await db.migrate();
      if (applied.length) logger.info({ applied }, 'migrations applied');
      return;
    } catch (err) {
      if (!isDatabaseUnavailable(err) || stopped()) throw err;
      const delay = backoffDelay({ baseMs: 250, maxMs: 5_000, attempt });
      logger.warn({ attempt, delayMs: delay, err: { message: (err as Error).message } }, 'database unreachable, retrying');
      await new Promise((r) => setTimeout(r, delay));
    }
  }
}
