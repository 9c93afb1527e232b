import type Redis from 'ioredis';
import { InMemoryLRUCache, PrefixingKeyValueCache, type KeyValueCache, type KeyValueCacheSetOptions } from '@apollo/utils.keyvaluecache';
import { currentExchange } from './graphql.http';

/**
 * Automatic persisted queries (https://www.apollographql.com/docs/apollo-server/performance/apq): a client
 * sends the sha256 of a query; an unknown hash answers PERSISTED_QUERY_NOT_FOUND; the client then sends hash
 * + query once, and only the hash afterwards (GET or POST). Registered queries live in a bounded store:
 * Redis when REDIS_URL is set (shared by every instance, each entry with a TTL), otherwise an in-memory LRU
 * bounded by size. Limits (GraphQL Armor) apply to a persisted query like to any other, and a registration whose
 * operation is refused (rate limits, a subscription over HTTP, invalid text) is not kept (`RegisteredOnAdmission`).
 */
export function apqOptions(opts: { ttlS: number; redis: Redis | null; memoryMaxBytes?: number }): {
  cache: KeyValueCache<string>;
  ttl: number | null;
} {
  const store: KeyValueCache<string> = opts.redis
    ? new PrefixingKeyValueCache(new RedisKeyValueCache(opts.redis), 'rbff:apq:')
    : new InMemoryLRUCache<string>({ maxSize: opts.memoryMaxBytes ?? 8 * 1024 * 1024 });
  return { cache: new RegisteredOnAdmission(store), ttl: opts.ttlS > 0 ? opts.ttlS : null };
}

/**
 * Apollo registers a query (hash + text) once its operation is resolved, before it executes — and so before the
 * edge's gateway refuses what may not run (edge.gateway.ts). During an HTTP request the registration is held on the
 * request's exchange and written only once the operation is admitted: a refused request registers nothing.
 */
class RegisteredOnAdmission implements KeyValueCache<string> {
  constructor(private readonly store: KeyValueCache<string>) {}

  get(key: string): Promise<string | undefined> {
    return this.store.get(key);
  }

  set(key: string, value: string, options?: KeyValueCacheSetOptions): Promise<void> {
    const exchange = currentExchange();
    if (!exchange) return this.store.set(key, value, options);
    exchange.holdUntilAdmitted(() => void this.store.set(key, value, options).catch(() => undefined));
    return Promise.resolve();
  }

  delete(key: string): Promise<boolean | void> {
    return this.store.delete(key);
  }
}

/** Apollo's KeyValueCache over ioredis (errors are misses: APQ then asks the client for the full query). */
export class RedisKeyValueCache implements KeyValueCache<string> {
  constructor(private readonly redis: Redis) {}

  async get(key: string): Promise<string | undefined> {
    try {
      return (await this.redis.get(key)) ?? undefined;
    } catch {
      return undefined;
    }
  }

  async set(key: string, value: string, options?: KeyValueCacheSetOptions): Promise<void> {
    try {
      if (options?.ttl) await this.redis.set(key, value, 'EX', Math.ceil(options.ttl));
      else await this.redis.set(key, value);
    } catch {
      /* a lost registration only costs one more round trip */
    }
  }

  async delete(key: string): Promise<boolean> {
    try {
      return (await this.redis.del(key)) > 0;
    } catch {
      return false;
    }
  }
}
