type Falsy = false | null | undefined | 0 | '';

export interface WaitOptions {
  /** Give up this long after the first try (default 5 s). */
  timeoutMs?: number;
  /** Pause between two tries (default 10 ms). */
  intervalMs?: number;
  /** What is awaited, for the failure message (default "condition"); a function is asked at the failure (e.g. to show the last state seen). */
  what?: string | (() => string);
  /**
   * An error thrown by `get` counts as "not yet" (the last one is named in the failure); by default it fails the
   * wait at once.
   */
  retryErrors?: boolean;
}

/**
 * Polls `get` (a predicate or a getter, sync or async) until it gives a truthy value, and returns that value. The
 * last try is made once the deadline has passed; then it throws "timed out after <timeoutMs> ms waiting for <what>".
 */
export async function waitFor<T>(get: () => T | Falsy | PromiseLike<T | Falsy>, opts: WaitOptions = {}): Promise<T> {
  const { timeoutMs = 5_000, intervalMs = 10, what = 'condition', retryErrors = false } = opts;
  const end = Date.now() + timeoutMs;
  let lastError: unknown = null;
  for (;;) {
    try {
      const v = await get();
      if (v) return v;
    } catch (e) {
      if (!retryErrors) throw e;
      lastError = e;
    }
    if (Date.now() > end) {
      const cause = lastError ? ` (last error: ${lastError instanceof Error ? lastError.message : String(lastError)})` : '';
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${typeof what === 'function' ? what() : what}${cause}`);
    }
    await new Promise((r) => setTimeout(r, intervalMs));
  }
}

/**
 * What `promise` settles to, or `null` once `ms` passed first. The timer is cleared either way, so a test that
 * raced a long timeout leaves nothing behind that keeps the worker alive.
 */
export async function within<T>(promise: PromiseLike<T>, ms: number): Promise<T | null> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([promise, new Promise<null>((r) => (timer = setTimeout(() => r(null), ms)))]);
  } finally {
    clearTimeout(timer);
  }
}
