import { BatchedReads } from '../../src/modules/transfer/transfer.subscriptions';

/** transfer.subscriptions.ts: the subscribe-time row reads shared by a storm of subscribers. */
describe('BatchedReads', () => {
  it('gives every caller a read that started after it arrived, sharing one read among those who arrived while another ran', async () => {
    const started: { key: string; seq: number; resolve: (v: number) => void }[] = [];
    let arrivals = 0;
    const reads = new BatchedReads<number>((key) => new Promise<number>((resolve) => started.push({ key, seq: arrivals, resolve })));

    const later = () => performance.now() + 60_000; // arrived after any read started so far
    const a = reads.get('t'); // starts read #1 at once
    const early = reads.get('t', 0); // arrived before #1 started: joins it
    arrivals++;
    const b = reads.get('t', later()); // arrived while #1 runs: waits for #2
    arrivals++;
    const c = reads.get('t', later()); // joins #2 as well
    arrivals++;
    const other = reads.get('u'); // another key: its own read
    expect(started.map((s) => s.key)).toEqual(['t', 'u']);

    started[0]!.resolve(1);
    expect([await a, await early]).toEqual([1, 1]);
    await new Promise((r) => setImmediate(r));
    // #2 started only after #1 ended, i.e. after b and c arrived
    expect(started.map((s) => [s.key, s.seq])).toEqual([
      ['t', 0],
      ['u', 3],
      ['t', 3],
    ]);
    started[2]!.resolve(2);
    expect([await b, await c]).toEqual([2, 2]);
    started[1]!.resolve(9);
    expect(await other).toBe(9);

    // nothing in flight any more: the next caller starts a fresh read at once
    const d = reads.get('t');
    expect(started).toHaveLength(4);
    started[3]!.resolve(4);
    expect(await d).toBe(4);
  });

  it('a failed read fails its callers only; those waiting for the next read get it', async () => {
    const pending: { resolve: (v: number) => void; reject: (e: Error) => void }[] = [];
    const reads = new BatchedReads<number>(() => new Promise<number>((resolve, reject) => pending.push({ resolve, reject })));
    const a = reads.get('t');
    const b = reads.get('t', performance.now() + 60_000);
    pending[0]!.reject(new Error('pool timeout'));
    await expect(a).rejects.toThrow('pool timeout');
    await new Promise((r) => setImmediate(r));
    pending[1]!.resolve(7);
    expect(await b).toBe(7);
  });
});
