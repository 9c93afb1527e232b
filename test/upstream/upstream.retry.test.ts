import { ManualClock } from '../../src/shared/clock';
import { backoffDelayMs, nextRetryDelay, parseRetryAfter } from '../../src/upstream/http/upstream.retry';

const policy = { maxAttempts: 4, baseDelayMs: 100, maxDelayMs: 1_000, maxTotalMs: 2_000 };

describe('retry backoff', () => {
  it('grows exponentially with full jitter, capped', () => {
    expect(backoffDelayMs(policy, 1, () => 0.999)).toBe(99);
    expect(backoffDelayMs(policy, 2, () => 0.999)).toBe(199);
    expect(backoffDelayMs(policy, 3, () => 0.999)).toBe(399);
    expect(backoffDelayMs(policy, 10, () => 0.999)).toBe(999);
    expect(backoffDelayMs(policy, 3, () => 0)).toBe(0);
  });

  it('stops at maxAttempts and at the total-time cap (on the injected clock)', () => {
    const clock = new ManualClock();
    const env = { clock, sleep: async () => undefined, random: () => 0.5 };
    const startedAtMs = clock.nowMs();
    expect(nextRetryDelay(policy, env, { attempt: 1, startedAtMs }, null)).toBe(50);
    expect(nextRetryDelay(policy, env, { attempt: 4, startedAtMs }, null)).toBeNull();
    clock.advance(1_990);
    expect(nextRetryDelay(policy, env, { attempt: 2, startedAtMs }, null)).toBeNull();
    // Retry-After replaces the jitter, and still counts against the total
    clock.set(startedAtMs);
    expect(nextRetryDelay(policy, env, { attempt: 1, startedAtMs }, 1_500)).toBe(1_500);
    expect(nextRetryDelay(policy, env, { attempt: 1, startedAtMs }, 2_500)).toBeNull();
  });

  it('parses Retry-After as seconds or an HTTP date', () => {
    const clock = new ManualClock(Date.parse('2026-01-01T00:00:00Z'));
    expect(parseRetryAfter('3', clock)).toBe(3_000);
    expect(parseRetryAfter('Thu, 01 Jan 2026 00:00:10 GMT', clock)).toBe(10_000);
    expect(parseRetryAfter(undefined, clock)).toBeNull();
    expect(parseRetryAfter('soon', clock)).toBeNull();
  });
});
