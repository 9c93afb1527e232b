/**
 * Exponential backoff: the delay before retry `attempt` (0 for the first) is `baseMs × 2^attempt`, at most `maxMs`.
 * `maxExponent` stops the doubling early (it keeps 2^n finite for long failure streaks). Jitter spreads waiters:
 * `full` waits a random whole number of ms below the delay; `double` waits between the delay and twice it.
 */
export interface Backoff {
  baseMs: number;
  maxMs: number;
  /** Retries before this one (a negative count is taken as 0). */
  attempt: number;
  maxExponent?: number;
  jitter?: 'full' | 'double';
  /** The jitter's source of randomness, in [0, 1). */
  random?: () => number;
}

export function backoffDelay({ baseMs, maxMs, attempt, maxExponent = Infinity, jitter, random = Math.random }: Backoff): number {
  const delay = Math.min(maxMs, baseMs * 2 ** Math.min(Math.max(0, attempt), maxExponent));
  if (jitter === 'full') return Math.floor(random() * delay);
  if (jitter === 'double') return delay + random() * delay;
  return delay;
}
