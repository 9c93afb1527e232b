/**
 * The polling loop (src/shared/poll-loop.ts) the transfer worker and the webhook processor run on, driven by
 * injected fake timers: when rounds run (start, interval, wake-ups), that they never overlap, how wake-ups
 * during a round coalesce, back-off after errors, the steady cadence, idle(), and stop() draining the round
 * in flight.
 */
import { PollLoop, type PollLoopOptions, type PollTimers } from '../../src/shared/poll-loop';

class FakeTimers implements PollTimers {
  private t = 0;
  private seq = 0;
  private queue: { id: number; at: number; fn: () => void }[] = [];
  setTimeout(fn: () => void, ms: number): unknown {
    const id = ++this.seq;
    this.queue.push({ id, at: this.t + ms, fn });
    return id;
  }
  clearTimeout(handle: unknown): void {
    this.queue = this.queue.filter((x) => x.id !== handle);
  }
  now(): number {
    return this.t;
  }
  /** Moves time by `ms`, firing due timers in order (promises settle after each). */
  async advance(ms: number): Promise<void> {
    const end = this.t + ms;
    for (;;) {
      await settle();
      const due = this.queue.filter((x) => x.at <= end).sort((a, b) => a.at - b.at || a.id - b.id)[0];
      if (!due) break;
      this.queue = this.queue.filter((x) => x !== due);
      this.t = due.at;
      due.fn();
    }
    this.t = end;
    await settle();
  }
  get pending(): number {
    return this.queue.length;
  }
}

const settle = async () => {
  for (let i = 0; i < 5; i++) await new Promise<void>((r) => setImmediate(r));
};

/** A round the test ends by hand (or at once with `auto`), recording when each started and how many overlapped. */
const gates: (() => void)[][] = [];
function rounds(timers: FakeTimers, auto = true) {
  const r = {
    starts: [] as number[],
    active: 0,
    maxActive: 0,
    fail: 0,
    open: [] as (() => void)[],
    fn: async () => {
      r.starts.push(timers.now());
      r.active++;
      r.maxActive = Math.max(r.maxActive, r.active);
      try {
        if (!auto) await new Promise<void>((done) => r.open.push(done));
        if (r.fail > 0) {
          r.fail--;
          throw new Error('database unavailable');
        }
      } finally {
        r.active--;
      }
    },
    finishRound: async () => {
      r.open.shift()?.();
      await settle();
    },
  };
  gates.push(r.open);
  return r;
}

const loops: PollLoop[] = [];
const make = (timers: FakeTimers, fn: () => Promise<unknown>, opts: Partial<PollLoopOptions> = {}) => {
  const l = new PollLoop(fn, { intervalMs: 1000, timers, ...opts });
  loops.push(l);
  return l;
};
afterEach(async () => {
  const stopping = loops.splice(0).map((l) => l.stop());
  for (const open of gates.splice(0)) for (const done of open.splice(0)) done();
  await Promise.all(stopping);
});

describe('after-round cadence (the transfer worker)', () => {
  it('runs a round at once on start (not inside the caller), then intervalMs after each round ended', async () => {
    const timers = new FakeTimers();
    const r = rounds(timers, false);
    const loop = make(timers, r.fn);
    loop.start();
    expect(r.starts).toEqual([]); // on the next timer turn
    await timers.advance(0);
    expect(r.starts).toEqual([0]);
    await timers.advance(300); // the round takes 300 ms
    await r.finishRound();
    await timers.advance(999);
    expect(r.starts).toEqual([0]);
    await timers.advance(1);
    expect(r.starts).toEqual([0, 1300]);
    expect(loop.isRunning).toBe(true);
  });

  it('a wake-up runs a round at once; wake-ups during a round coalesce into one more right after it; never two at a time', async () => {
    const timers = new FakeTimers();
    const r = rounds(timers, false);
    const loop = make(timers, r.fn);
    loop.start();
    await timers.advance(0);
    await r.finishRound();
    await timers.advance(100);
    loop.wake();
    await timers.advance(0);
    expect(r.starts).toEqual([0, 100]);
    loop.wake();
    loop.wake();
    loop.wake();
    await timers.advance(50);
    expect(r.active).toBe(1);
    await r.finishRound();
    await timers.advance(0);
    expect(r.starts).toEqual([0, 100, 150]); // one more, right after
    await r.finishRound();
    await timers.advance(999);
    expect(r.starts).toEqual([0, 100, 150]); // then back to polling
    await timers.advance(1);
    expect(r.starts).toEqual([0, 100, 150, 1150]);
    expect(r.maxActive).toBe(1);
  });

  it('does nothing before start; start twice is one loop', async () => {
    const timers = new FakeTimers();
    const r = rounds(timers);
    const loop = make(timers, r.fn);
    loop.wake();
    await timers.advance(5000);
    expect(r.starts).toEqual([]);
    loop.start();
    loop.start();
    await timers.advance(2500);
    expect(r.starts).toEqual([0, 1000, 2000].map((x) => x + 5000));
  });
});

describe('stop: drain on close', () => {
  it('waits for the round in flight, which sees isClosed; nothing runs afterwards, and the loop cannot start again', async () => {
    const timers = new FakeTimers();
    let sawClosed = false;
    let release!: () => void;
    const loop = make(timers, async () => {
      await new Promise<void>((done) => (release = done));
      sawClosed = loop.isClosed;
    });
    loop.start();
    await timers.advance(0);
    let stopped = false;
    const stopping = loop.stop().then(() => (stopped = true));
    await settle();
    expect(stopped).toBe(false); // the round is still in flight
    expect(loop.isRunning).toBe(false);
    release();
    await stopping;
    expect(sawClosed).toBe(true);
    expect(timers.pending).toBe(0);
    loop.wake();
    loop.start();
    expect(timers.pending).toBe(0);
  });

  it('stop before the first round cancels it', async () => {
    const timers = new FakeTimers();
    const r = rounds(timers);
    const loop = make(timers, r.fn);
    loop.start();
    await loop.stop();
    await timers.advance(10_000);
    expect(r.starts).toEqual([]);
  });
});

describe('errors', () => {
  it('are reported; without back-off the next round comes at the next poll', async () => {
    const timers = new FakeTimers();
    const r = rounds(timers);
    const errors: string[] = [];
    make(timers, r.fn, { onError: (e) => errors.push((e as Error).message) }).start();
    r.fail = 2;
    await timers.advance(2000);
    expect(r.starts).toEqual([0, 1000, 2000]);
    expect(errors).toEqual(['database unavailable', 'database unavailable']);
  });

  it('with back-off: intervalMs × 2^(failures − 1) up to maxMs, reset by a round that succeeds; a wake-up still runs at once', async () => {
    const timers = new FakeTimers();
    const r = rounds(timers);
    const loop = make(timers, r.fn, { backoff: { maxMs: 3000 }, onError: () => undefined });
    loop.start();
    r.fail = 4;
    await timers.advance(0); // fails (1)
    await timers.advance(1000); // fails (2) at 1000
    await timers.advance(2000); // fails (3) at 3000
    await timers.advance(3000); // fails (4) at 6000: 4000 capped to 3000
    await timers.advance(3000); // succeeds at 9000
    await timers.advance(1000); // back to the interval
    expect(r.starts).toEqual([0, 1000, 3000, 6000, 9000, 10_000]);
    r.fail = 1;
    await timers.advance(1000); // fails at 11000: next in 1000… (first failure)
    r.fail = 1;
    await timers.advance(1000); // fails at 12000: next in 2000
    await timers.advance(500);
    loop.wake(); // new work: at once
    await timers.advance(0);
    expect(r.starts).toEqual([0, 1000, 3000, 6000, 9000, 10_000, 11_000, 12_000, 12_500]);
  });
});

describe('steady cadence (the webhook processor)', () => {
  it('beats every intervalMs whatever the rounds take; a beat during a round runs one more right after it', async () => {
    const timers = new FakeTimers();
    const r = rounds(timers, false);
    make(timers, r.fn, { cadence: 'steady' }).start();
    await timers.advance(0);
    expect(r.starts).toEqual([0]);
    await timers.advance(1500); // the beat at 1000 came during the round
    await r.finishRound();
    await timers.advance(0);
    expect(r.starts).toEqual([0, 1500]);
    await r.finishRound();
    await timers.advance(500); // the next beat: 2000, not 1500 + 1000
    expect(r.starts).toEqual([0, 1500, 2000]);
    await r.finishRound();
    await timers.advance(1000);
    expect(r.starts).toEqual([0, 1500, 2000, 3000]);
    expect(r.maxActive).toBe(1);
  });

  it('with back-off, beats are skipped until it has passed', async () => {
    const timers = new FakeTimers();
    const r = rounds(timers);
    make(timers, r.fn, { cadence: 'steady', backoff: { maxMs: 10_000 }, onError: () => undefined }).start();
    r.fail = 3;
    await timers.advance(8000);
    // fails at 0 (quiet 1000), 1000 (quiet 2000 → 3000), 3000 (quiet 4000 → 7000); succeeds at 7000; then every beat
    expect(r.starts).toEqual([0, 1000, 3000, 7000, 8000]);
  });
});

it('idle(): at once when nothing runs; else once the round and the rounds its wake-ups chained are over', async () => {
  const timers = new FakeTimers();
  const r = rounds(timers, false);
  const loop = make(timers, r.fn, { intervalMs: 60_000 });
  let idle = false;
  await loop.idle(); // not started: nothing runs
  loop.start();
  void loop.idle().then(() => (idle = true)); // the first round is due at once: busy
  await timers.advance(0);
  loop.wake();
  await r.finishRound();
  await timers.advance(0);
  expect(idle).toBe(false); // the wake-up's round runs now
  await r.finishRound();
  expect(idle).toBe(true);
  expect(r.starts).toEqual([0, 0]);
});
