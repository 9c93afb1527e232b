import IORedis from 'ioredis';
import type { GraphQLSchema } from 'graphql';
import type { Config } from '../config';
import { clientKey } from '../shared/client-address';
import type { Logger } from '../shared/logger';
import { RateLimiter } from '../shared/rate-limit';
import { anonymousRefusal, type RateLimitRules } from './rate-limits';
import { upstreamCost } from './upstream-fields';

/** The edge's budgets: per-caller rate limits, the upstream budget and per-IP anonymous traffic. */
export interface EdgeLimits {
  /** Redis for the budgets and APQ when REDIS_URL is set (shared across instances); null: per instance. */
  redis: IORedis | null;
  rateLimiter: RateLimiter;
  rules: RateLimitRules;
  /** The refusal of one more unauthenticated request from this client address, or null. */
  anonymousRefusal(ip: string): ReturnType<typeof anonymousRefusal>;
  close(): Promise<void>;
}

export function createEdgeLimits(config: Config, schema: GraphQLSchema, logger: Logger): EdgeLimits {
  const redis = config.redisUrl
    ? new IORedis(config.redisUrl, { connectionName: 'remittance-bff-limits', maxRetriesPerRequest: 1, enableOfflineQueue: false })
    : null;
  redis?.on('error', (err) => logger.warn({ err: { message: err.message } }, 'limits redis error'));
  const rateLimiter = new RateLimiter(
    {
      mutation: { points: config.rateLimits.mutationsPerMinute, durationS: 60 },
      alias: { points: config.rateLimits.aliasLookupsPerMinute, durationS: 60 },
      upstream: { points: config.budgets.upstreamPointsPerMinute, durationS: 60 },
      anonymous: { points: config.budgets.anonymousPerMinute, durationS: 60 },
    },
    redis,
  );
  return {
    redis,
    rateLimiter,
    rules: {
      mutationRule: 'mutation',
      queryRules: { resolveAlias: 'alias' },
      sharedRules: { createRecipient: { field: 'resolveAlias', rule: 'alias', what: 'alias look-up' } },
      upstream: { rule: 'upstream', cost: (document, operation) => upstreamCost(schema, document, operation) },
    },
    anonymousRefusal: (ip) => anonymousRefusal(rateLimiter, 'anonymous', clientKey(ip, config.clientIpv6Prefix)),
    async close() {
      rateLimiter.close();
      if (redis) await redis.quit().catch(() => redis.disconnect());
    },
  };
}
