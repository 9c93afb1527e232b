import type Redis from 'ioredis';
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';

interface RateLimitRule {
  /** Allowed calls per window. */
  points: number;
  /** Window length, seconds. */
  durationS: number;
}

type RateLimitDecision = { allowed: true } | { allowed: false; retryAfterSeconds: number };

/**
 * Per-key rate limits with rate-limiter-flexible: fixed windows counted atomically in Redis (INCR + PEXPIRE,
 * so every instance shares one budget) when a Redis client is given, otherwise in this process's memory.
 * One limiter per named rule. If Redis fails, the request is allowed (an insurance limiter in memory
 * keeps counting meanwhile) — a Redis outage must not take the API down.
 */
export class RateLimiter {
  private readonly limiters = new Map<string, RateLimiterAbstract>();

  constructor(rules: Record<string, RateLimitRule>, redis: Redis | null, prefix = 'rbff:rl') {
    for (const [name, rule] of Object.entries(rules)) {
      const base = { points: rule.points, duration: rule.durationS, keyPrefix: `${prefix}:${name}` };
      this.limiters.set(
        name,
        redis
          ? new RateLimiterRedis({ ...base, storeClient: redis, insuranceLimiter: new RateLimiterMemory(base) })
          : new RateLimiterMemory(base),
      );
    }
  }

  /** Takes `points` (default 1) from the key's budget of `rule`; refused when that would exceed it. */
  async consume(rule: string, key: string, points = 1): Promise<RateLimitDecision> {
    const limiter = this.limiters.get(rule);
    if (!limiter) throw new Error(`unknown rate limit rule ${rule}`);
    try {
      await limiter.consume(key, points);
      return { allowed: true };
    } catch (e) {
      if (e instanceof RateLimiterRes) return { allowed: false, retryAfterSeconds: Math.max(1, Math.ceil(e.msBeforeNext / 1000)) };
      return { allowed: true }; // store error (insurance limiter already failed too): fail open
    }
  }
}
