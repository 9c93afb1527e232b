/** Why a subscriber's wait ended: a pub/sub message, the safety poll, or the subscription closed. */
export type Wake = 'message' | 'poll' | 'closed';

/**
 * The wake-ups of one transferUpdated stream: the next pub/sub message or the safety poll, whichever comes
 * first. Per wait it costs one promise: one pull on the subscription is kept open across waits (a message that
 * arrives while the stream is reading or sending is kept for the next wait, never lost), and the poll is one
 * timer for the stream's life, re-armed per wait — with N subscribers and one change, no N timers created and
 * cancelled, no N races built.
 *
 * `wokeAt` is when the last message arrived (after the change that sent it committed) or the poll fired: a read
 * that serves this wait must start after it.
 */
export class WakeUps {
  wokeAt = performance.now();
  private pulling = false;
  private arrived: IteratorResult<unknown> | null = null;
  private failed: { error: unknown } | null = null;
  private waiter: { resolve: (w: Wake) => void; reject: (e: unknown) => void } | null = null;
  private timer: NodeJS.Timeout | null = null;

  constructor(
    private readonly sub: AsyncIterator<unknown>,
    private readonly pollMs: number,
  ) {}

  wait(): Promise<Wake> {
    const ready = this.take();
    if (ready) return ready;
    if (!this.pulling) this.pull();
    return new Promise<Wake>((resolve, reject) => {
      this.waiter = { resolve, reject };
      if (this.timer) this.timer.refresh();
      else {
        this.timer = setTimeout(this.onPoll, this.pollMs);
        // armed between waits too (re-armed, never re-made): it must not hold the process open on its own
        this.timer.unref();
      }
    });
  }

  /** Stops the poll timer (the stream ended). */
  stop(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.waiter = null;
  }

  /** A message (or failure) that arrived while nobody waited, as the result of this wait. */
  private take(): Promise<Wake> | null {
    if (this.failed) {
      const { error } = this.failed;
      this.failed = null;
      return Promise.reject(error);
    }
    if (!this.arrived) return null;
    const r = this.arrived;
    this.arrived = null;
    return Promise.resolve(r.done ? 'closed' : 'message');
  }

  private pull(): void {
    this.pulling = true;
    this.sub.next().then(
      (r) => {
        this.pulling = false;
        this.wokeAt = performance.now();
        const w = this.waiter;
        if (w) {
          this.waiter = null;
          w.resolve(r.done ? 'closed' : 'message');
        } else this.arrived = r;
      },
      (error: unknown) => {
        this.pulling = false;
        const w = this.waiter;
        if (w) {
          this.waiter = null;
          w.reject(error);
        } else this.failed = { error };
      },
    );
  }

  private readonly onPoll = () => {
    const w = this.waiter;
    if (!w) return; // fired between waits: the next wait re-arms it
    this.waiter = null;
    this.wokeAt = performance.now();
    w.resolve('poll');
  };
}
