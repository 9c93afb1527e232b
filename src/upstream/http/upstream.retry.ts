import type { Clock } from '../../shared/clock';
import { backoffDelay } from '../../shared/backoff';

/**
 * Backoff for the few upstream calls that may be repeated (reads, and writes that carry the same
 * idempotency key on every attempt — see upstream.caller.ts for who decides).
 *
 * Exponential backoff with full jitter: before attempt n+1 wait `random() * min(maxDelayMs,
 * baseDelayMs * 2^(n-1))`, or the upstream's Retry-After when it sent one. Attempts are capped
 * (`maxAttempts`, first try included) and so is the total time: a retry whose wait would end beyond
 * `maxTotalMs` after the first attempt started is not made. Time is read from the injected clock and
 * waiting goes through the injected `sleep`, so tests move time instead of sleeping.
 */
export interface RetryPolicy {
  maxAttempts: number;
  baseDelayMs: number;
  maxDelayMs: number;
  maxTotalMs: number;
}

export interface RetryEnv {
  clock: Clock;
  sleep: (ms: number) => Promise<void>;
  random: () => number;
}

const realSleep = (ms: number): Promise<void> =>
  new Promise((resolve) => {
    const t = setTimeout(resolve, ms);
    t.unref?.();
  });

export const defaultRetryEnv = (clock: Clock): RetryEnv => ({ clock, sleep: realSleep, random: Math.random });

/** The wait before the retry that follows attempt `attempt` (1-based). */
export function backoffDelayMs(policy: RetryPolicy, attempt: number, random: () => number): number {
  return backoffDelay({ baseMs: policy.baseDelayMs, maxMs: policy.maxDelayMs, attempt: attempt - 1, jitter: 'full', random });
}

/**
 * Decides whether to retry after a failed attempt; returns the delay, or null to stop.
 * `retryAfterMs` (from the upstream) replaces the jittered delay when present.
 */
export function nextRetryDelay(
  policy: RetryPolicy,
  env: RetryEnv,
  state: { attempt: number; startedAtMs: number },
  retryAfterMs: number | null,
): number | null {
  if (state.attempt >= policy.maxAttempts) return null;
  const delay = retryAfterMs !== null ? retryAfterMs : backoffDelayMs(policy, state.attempt, env.random);
  const elapsed = env.clock.nowMs() - state.startedAtMs;
  if (elapsed + delay > policy.maxTotalMs) return null;
  return delay;
}

/** Parses Retry-After (delta seconds or HTTP date) into ms from now; null when absent or unreadable. */
export function parseRetryAfter(value: string | string[] | undefined, clock: Clock): number | null {
  const v = Array.isArray(value) ? value[0] : value;
  if (!v) return null;
  const trimmed = v.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed) * 1000;
  const at = Date.parse(trimmed);
  if (Number.isNaN(at)) return null;
  return Math.max(0, at - clock.nowMs());
}
