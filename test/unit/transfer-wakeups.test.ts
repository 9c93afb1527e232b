import { MemoryPubSub } from '../../src/events/pubsub';
import { WakeUps } from '../../src/modules/transfer/transfer.wakeups';

/** transfer.wakeups.ts: what ends a transferUpdated stream's wait, on the real in-process pub/sub. */
describe('WakeUps', () => {
  let pubsub: MemoryPubSub;
  beforeEach(() => (pubsub = new MemoryPubSub()));
  afterEach(() => pubsub.close());

  it('ends a wait with the message that arrives, and marks when it arrived', async () => {
    const wakeUps = new WakeUps(pubsub.subscribe('t'), 60_000);
    const before = wakeUps.wokeAt;
    const waiting = wakeUps.wait();
    await new Promise((r) => setTimeout(r, 5));
    const published = performance.now();
    await pubsub.publish('t', { version: 2 });
    expect(await waiting).toBe('message');
    expect(wakeUps.wokeAt).toBeGreaterThanOrEqual(published);
    expect(wakeUps.wokeAt).toBeGreaterThan(before);
    wakeUps.stop();
  });

  it('ends a wait with the safety poll when no message comes, again on every later wait', async () => {
    const wakeUps = new WakeUps(pubsub.subscribe('t'), 30);
    const t0 = performance.now();
    expect(await wakeUps.wait()).toBe('poll');
    const firstPoll = wakeUps.wokeAt;
    expect(firstPoll - t0).toBeGreaterThanOrEqual(25);
    expect(await wakeUps.wait()).toBe('poll'); // the one timer, re-armed
    expect(wakeUps.wokeAt - firstPoll).toBeGreaterThanOrEqual(25);
    wakeUps.stop();
  });

  it('keeps a message that arrives between waits for the next wait (none lost while the stream reads or sends)', async () => {
    const wakeUps = new WakeUps(pubsub.subscribe('t'), 30);
    expect(await wakeUps.wait()).toBe('poll'); // the pull stays open after the poll ended the wait
    await pubsub.publish('t', { version: 3 }); // nobody waits now
    await new Promise((r) => setTimeout(r, 60)); // a poll timer firing meanwhile ends nothing
    const t = performance.now();
    expect(await wakeUps.wait()).toBe('message');
    expect(performance.now() - t).toBeLessThan(25); // at once, not at the next poll
    wakeUps.stop();
  });

  it('a re-armed poll counts from the start of the wait, not from the previous one', async () => {
    const wakeUps = new WakeUps(pubsub.subscribe('t'), 80);
    const first = wakeUps.wait();
    await new Promise((r) => setTimeout(r, 50));
    await pubsub.publish('t', { version: 2 });
    expect(await first).toBe('message');
    const t = performance.now();
    expect(await wakeUps.wait()).toBe('poll');
    expect(performance.now() - t).toBeGreaterThanOrEqual(70);
    wakeUps.stop();
  });

  it('ends the wait as closed when the subscription is returned (unsubscribe, shutdown)', async () => {
    const sub = pubsub.subscribe('t');
    const wakeUps = new WakeUps(sub, 60_000);
    const waiting = wakeUps.wait();
    await sub.return!();
    expect(await waiting).toBe('closed');
    wakeUps.stop();
  });

  it('passes a failing subscription on to the waiting stream, or to the next wait', async () => {
    let fail!: (e: Error) => void;
    const failing: AsyncIterator<unknown> = { next: () => new Promise((_, reject) => (fail = reject)) };
    const now = new WakeUps(failing, 60_000);
    const waiting = now.wait();
    fail(new Error('backend gone'));
    await expect(waiting).rejects.toThrow('backend gone');
    now.stop();

    const later = new WakeUps(failing, 20);
    expect(await later.wait()).toBe('poll');
    fail(new Error('backend gone'));
    await new Promise((r) => setImmediate(r));
    await expect(later.wait()).rejects.toThrow('backend gone');
    later.stop();
  });

  it('stop() cancels the poll: a stopped stream is never woken by it', async () => {
    const wakeUps = new WakeUps(pubsub.subscribe('t'), 20);
    let ended = false;
    void wakeUps.wait().then(() => (ended = true));
    wakeUps.stop();
    await new Promise((r) => setTimeout(r, 80));
    expect(ended).toBe(false);
  });
});
