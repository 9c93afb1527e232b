import type Redis from 'ioredis';
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';

interface RateLimitRule {
  /** Allowed calls per window. */
  points: number;
  /** Window length, seconds. */
  durationS: number;
}

type RateLimitDecision = { allowed: true } | { allowed: false; retryAfterSeconds: number };

const ALLOWED: RateLimitDecision = Object.freeze({ allowed: true });

/**
 * Fixed windows counted in this process's memory, as rate-limiter-flexible's RateLimiterMemory counts them (a window
 * opens at a key's first point and lasts the rule's duration; points taken beyond the limit are counted too), decided
 * synchronously: no promise, timer or result object per call. Windows that have ended are dropped by a sweep once
 * per window length, and at most `maxKeys` are kept: under a churn of keys (addresses made up by the thousand) the
 * oldest window — the nearest to its end — makes room for the new one.
 */
export class MemoryWindows {
  private readonly windows = new Map<string, { consumed: number; endsAtMs: number }>();
  private readonly sweeper: NodeJS.Timeout;

  constructor(
    private readonly rule: RateLimitRule,
    private readonly maxKeys = MAX_KEYS_PER_RULE,
    private readonly durationMs = rule.durationS * 1000,
  ) {
    this.sweeper = setInterval(() => this.sweep(Date.now()), Math.max(1000, this.durationMs));
    this.sweeper.unref();
  }

  consume(key: string, points: number): RateLimitDecision {
    const nowMs = Date.now();
    let w = this.windows.get(key);
    if (!w || w.endsAtMs <= nowMs) {
      // a window renewed goes to the end of the insertion order, so the first key is always the oldest window
      this.windows.delete(key);
      if (this.windows.size >= this.maxKeys) this.windows.delete(this.windows.keys().next().value!);
      this.windows.set(key, (w = { consumed: 0, endsAtMs: nowMs + this.durationMs }));
    }
    w.consumed += points;
    return w.consumed > this.rule.points
      ? { allowed: false, retryAfterSeconds: Math.max(1, Math.ceil((w.endsAtMs - nowMs) / 1000)) }
      : ALLOWED;
  }

  private sweep(nowMs: number): void {
    for (const [key, w] of this.windows) if (w.endsAtMs <= nowMs) this.windows.delete(key);
  }

  /** Keys with a window (tests). */
  get size(): number {
    return this.windows.size;
  }

  close(): void {
    clearInterval(this.sweeper);
  }
}

/** Windows kept per rule in memory (≈ 100 bytes each). */
const MAX_KEYS_PER_RULE = 100_000;

/**
 * Per-key rate limits: fixed windows counted atomically in Redis with rate-limiter-flexible (INCR + PEXPIRE, so every
 * instance shares one budget) when a Redis client is given, otherwise in this process's memory (MemoryWindows: the
 * same counting, decided synchronously). One limiter per named rule. If Redis fails, the request is allowed (an
 * insurance limiter in memory keeps counting meanwhile) — a Redis outage must not take the API down.
 */
export class RateLimiter {
  private readonly limiters = new Map<string, RateLimiterAbstract | MemoryWindows>();

  constructor(rules: Record<string, RateLimitRule>, redis: Redis | null, prefix = 'rbff:rl') {
    for (const [name, rule] of Object.entries(rules)) {
      const base = { points: rule.points, duration: rule.durationS, keyPrefix: `${prefix}:${name}` };
      this.limiters.set(
        name,
        redis
          ? new RateLimiterRedis({ ...base, storeClient: redis, insuranceLimiter: new RateLimiterMemory(base) })
          : new MemoryWindows(rule),
      );
    }
  }

  /**
   * Takes `points` (default 1) from the key's budget of `rule`; refused when that would exceed it. In memory the
   * decision is returned as it is made; with Redis, once Redis answered.
   */
  consume(rule: string, key: string, points = 1): RateLimitDecision | Promise<RateLimitDecision> {
    const limiter = this.limiters.get(rule);
    if (!limiter) throw new Error(`unknown rate limit rule ${rule}`);
    if (limiter instanceof MemoryWindows) return limiter.consume(key, points);
    return limiter.consume(key, points).then(
      () => ALLOWED,
      (e: unknown) =>
        e instanceof RateLimiterRes
          ? { allowed: false as const, retryAfterSeconds: Math.max(1, Math.ceil(e.msBeforeNext / 1000)) }
          : ALLOWED, // store error (insurance limiter already failed too): fail open
    );
  }

  /** Stops the in-memory sweepers. */
  close(): void {
    for (const l of this.limiters.values()) if (l instanceof MemoryWindows) l.close();
  }
}
