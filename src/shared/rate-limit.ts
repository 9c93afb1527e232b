import type Redis from 'ioredis';
import { RateLimiterRedis, RateLimiterRes } from 'rate-limiter-flexible';

interface RateLimitRule {
  /** Allowed calls per window. */
  points: number;
  /** Window length, seconds. */
  durationS: number;
}

type RateLimitDecision = { allowed: true } | { allowed: false; retryAfterSeconds: number };

interface Window {
  consumed: number;
  endsAtMs: number;
}

const ALLOWED: RateLimitDecision = Object.freeze({ allowed: true });

/**
 * Fixed windows counted in this process's memory, as rate-limiter-flexible's RateLimiterMemory counts them (a window
 * opens at a key's first point and lasts the rule's duration; points taken beyond the limit are counted too), decided
 * synchronously: no promise, timer or result object per call. Windows that have ended are dropped by a sweep once
 * per window length. At most `maxKeys` are kept, and a live window is never dropped to make room (that would hand its
 * key a fresh budget): when the table is full of live windows, a key without one is counted in one window shared by
 * all such keys. Under a churn of made-up addresses the churn itself is then one budget, while the clients already
 * counted keep theirs.
 */
export class MemoryWindows {
  private readonly windows = new Map<string, Window>();
  private overflow: Window = { consumed: 0, endsAtMs: 0 };
  private sweptAtMs = 0;
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
      this.windows.delete(key);
      if (this.windows.size >= this.maxKeys) this.sweepWhenFull(nowMs);
      if (this.windows.size >= this.maxKeys) return this.count(this.overflowWindow(nowMs), points, nowMs);
      this.windows.set(key, (w = { consumed: 0, endsAtMs: nowMs + this.durationMs }));
    }
    return this.count(w, points, nowMs);
  }

  private count(w: Window, points: number, nowMs: number): RateLimitDecision {
    w.consumed += points;
    return w.consumed > this.rule.points
      ? { allowed: false, retryAfterSeconds: Math.max(1, Math.ceil((w.endsAtMs - nowMs) / 1000)) }
      : ALLOWED;
  }

  /** The window shared by keys that found the table full (renewed like any other). */
  private overflowWindow(nowMs: number): Window {
    if (this.overflow.endsAtMs <= nowMs) this.overflow = { consumed: 0, endsAtMs: nowMs + this.durationMs };
    return this.overflow;
  }

  /** A full table is swept at once, at most once a second (a sweep walks every key). */
  private sweepWhenFull(nowMs: number): void {
    if (nowMs - this.sweptAtMs < 1000) return;
    this.sweep(nowMs);
  }

  private sweep(nowMs: number): void {
    this.sweptAtMs = nowMs;
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
 * same counting, decided synchronously). One limiter per named rule. If Redis fails, the request is decided by this
 * process's own windows for the rule (bounded like the in-memory mode) — a Redis outage must not take the API down,
 * nor lift the limits.
 */
export class RateLimiter {
  private readonly limiters = new Map<string, { redis: RateLimiterRedis | null; memory: MemoryWindows }>();

  constructor(rules: Record<string, RateLimitRule>, redis: Redis | null, prefix = 'rbff:rl') {
    for (const [name, rule] of Object.entries(rules)) {
      const base = { points: rule.points, duration: rule.durationS, keyPrefix: `${prefix}:${name}` };
      this.limiters.set(name, {
        redis: redis ? new RateLimiterRedis({ ...base, storeClient: redis }) : null,
        memory: new MemoryWindows(rule),
      });
    }
  }

  /**
   * Takes `points` (default 1) from the key's budget of `rule`; refused when that would exceed it. In memory the
   * decision is returned as it is made; with Redis, once Redis answered (or failed: then this process's windows).
   */
  consume(rule: string, key: string, points = 1): RateLimitDecision | Promise<RateLimitDecision> {
    const limiter = this.limiters.get(rule);
    if (!limiter) throw new Error(`unknown rate limit rule ${rule}`);
    const { redis, memory } = limiter;
    if (!redis) return memory.consume(key, points);
    return redis.consume(key, points).then(
      () => ALLOWED,
      (e: unknown) =>
        e instanceof RateLimiterRes
          ? { allowed: false as const, retryAfterSeconds: Math.max(1, Math.ceil(e.msBeforeNext / 1000)) }
          : memory.consume(key, points), // Redis failed: counted here meanwhile
    );
  }

  /** Stops the in-memory sweepers. */
  close(): void {
    for (const l of this.limiters.values()) l.memory.close();
  }
}
