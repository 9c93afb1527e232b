/**
 * A background polling loop: runs `round` every intervalMs and at once when woken, never two rounds at a time.
 *
 * - start(): the first round runs at once (on the next timer turn, never inside the caller).
 * - wake(): run a round soon. Idle: at once. During a round: wake-ups coalesce into one more round right after
 *   it (work that arrived while the round was past the point of seeing it is never left to the next poll).
 * - cadence 'after-round' (default): the next poll is intervalMs after the last round ended (fixed delay).
 *   cadence 'steady': a beat every intervalMs whatever the rounds take; a beat during a round counts as a
 *   wake-up (fixed rate).
 * - errors: a round that throws is reported to onError; the next poll comes as usual — or, with `backoff`,
 *   after min(intervalMs × 2^(failures − 1), maxMs) consecutive failures' worth (reset by a round that
 *   succeeds). Wake-ups still run at once: they are new work someone asked for.
 * - stop(): closes the loop for good (start() after it does nothing), cancels what is scheduled and waits for
 *   the round in flight. Rounds read `isClosed` / `isRunning` to stop at their next boundary (drain on close).
 * - timers are injected (real, unref'd ones by default): the loop keeps no process alive, and tests drive it.
 */
import { backoffDelay } from './backoff';

export interface PollTimers {
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
  /** Milliseconds, for the steady cadence's back-off (the same time base as setTimeout's delays). */
  now(): number;
}

const realTimers: PollTimers = {
  setTimeout(fn, ms) {
    const t = setTimeout(fn, ms);
    t.unref?.();
    return t;
  },
  clearTimeout: (handle) => clearTimeout(handle as NodeJS.Timeout),
  now: () => Date.now(),
};

export interface PollLoopOptions {
  intervalMs: number;
  cadence?: 'after-round' | 'steady';
  /** Exponential back-off after rounds that throw (absent: the next poll as usual). */
  backoff?: { maxMs: number };
  /** A round threw (the loop goes on). */
  onError?: (err: unknown) => void;
  timers?: PollTimers;
}

export class PollLoop {
  private started = false;
  private closed = false;
  private running: Promise<void> | null = null;
  private again = false;
  /** The one-shot timer of the next round, and whether it is a wake-up (due at once) rather than a poll. */
  private next: unknown = null;
  private nextIsWake = false;
  private beat: unknown = null;
  private failures = 0;
  /** Steady cadence: beats before this time are skipped (back-off). */
  private quietUntil = 0;
  private idleWaiters: (() => void)[] = [];
  private readonly timers: PollTimers;

  constructor(
    private readonly round: () => Promise<unknown>,
    private readonly opts: PollLoopOptions,
  ) {
    this.timers = opts.timers ?? realTimers;
  }

  /** Started and not stopped. */
  get isRunning(): boolean {
    return this.started && !this.closed;
  }

  /** stop() was called: a round in flight should stop at its next boundary. */
  get isClosed(): boolean {
    return this.closed;
  }

  start(): void {
    if (this.started || this.closed) return;
    this.started = true;
    if (this.opts.cadence === 'steady') this.scheduleBeat();
    this.wake();
  }

  wake(): void {
    if (!this.isRunning) return;
    if (this.running) this.again = true;
    else this.schedule(0);
  }

  /** Resolves once no round is in flight or due at once (e.g. after a wake-up's round and those it chained). */
  idle(): Promise<void> {
    if (!this.busy) return Promise.resolve();
    return new Promise<void>((r) => this.idleWaiters.push(r));
  }

  async stop(): Promise<void> {
    this.closed = true;
    if (this.next !== null) this.timers.clearTimeout(this.next);
    if (this.beat !== null) this.timers.clearTimeout(this.beat);
    this.next = this.beat = null;
    this.nextIsWake = false;
    await this.running;
    for (const w of this.idleWaiters.splice(0)) w();
  }

  private get busy(): boolean {
    return this.running !== null || this.nextIsWake;
  }

  private schedule(ms: number): void {
    if (!this.isRunning) return;
    if (this.next !== null) this.timers.clearTimeout(this.next);
    this.nextIsWake = ms === 0;
    this.next = this.timers.setTimeout(() => {
      this.next = null;
      this.nextIsWake = false;
      this.run();
    }, ms);
  }

  private scheduleBeat(): void {
    this.beat = this.timers.setTimeout(() => {
      this.beat = null;
      if (!this.isRunning) return;
      this.scheduleBeat();
      if (this.timers.now() >= this.quietUntil) this.wake();
    }, this.opts.intervalMs);
  }

  private run(): void {
    if (!this.isRunning) return;
    this.running = (async () => {
      let failed = false;
      try {
        await this.round();
      } catch (err) {
        failed = true;
        this.opts.onError?.(err);
      }
      this.running = null;
      this.failures = failed ? this.failures + 1 : 0;
      const backoff = this.opts.backoff;
      const delay =
        failed && backoff
          ? backoffDelay({ baseMs: this.opts.intervalMs, maxMs: backoff.maxMs, attempt: this.failures - 1, maxExponent: 30 })
          : this.opts.intervalMs;
      this.quietUntil = failed && backoff ? this.timers.now() + delay : 0;
      const more = this.again;
      this.again = false;
      if (more) this.schedule(0);
      else if (this.opts.cadence !== 'steady') this.schedule(delay);
      if (!this.busy) for (const w of this.idleWaiters.splice(0)) w();
    })();
  }
}
