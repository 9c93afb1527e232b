import { bindIterator, currentRequest, runInRequest } from '../../src/shared/request-context';

/** request-context.ts: a subscription's events are produced in its operation's context, wherever they are pulled from. */
describe('bindIterator', () => {
  it('runs every step of the iterator in the bound context, pulled from outside any context', async () => {
    const seen: (string | undefined)[] = [];
    async function* events() {
      try {
        for (let i = 0; i < 3; i++) {
          await new Promise((r) => setImmediate(r)); // a hop through the event loop between steps
          seen.push(currentRequest()?.requestId);
          yield i;
        }
      } finally {
        seen.push(`finally:${currentRequest()?.requestId}`);
      }
    }
    const bound = bindIterator({ requestId: 'op-1', userId: 'u1' }, events());
    expect(currentRequest()).toBeUndefined();
    expect(await bound.next()).toEqual({ value: 0, done: false });
    expect(currentRequest()).toBeUndefined(); // nothing leaks into the caller
    expect(await bound.next()).toEqual({ value: 1, done: false });
    await runInRequest({ requestId: 'someone-else' }, () => bound.next()); // pulled from another operation's context
    await bound.return(undefined);
    expect(seen).toEqual(['op-1', 'op-1', 'op-1', 'finally:op-1']);
  });

  it('throws into the iterator in the bound context', async () => {
    let at: string | undefined;
    async function* events() {
      try {
        yield 1;
      } catch {
        at = currentRequest()?.requestId;
      }
    }
    const bound = bindIterator({ requestId: 'op-2' }, events());
    await bound.next();
    await bound.throw(new Error('client went away'));
    expect(at).toBe('op-2');
  });

  it('each bound iterator keeps its own context', async () => {
    async function* who() {
      for (;;) yield currentRequest()?.requestId;
    }
    const a = bindIterator({ requestId: 'a' }, who());
    const b = bindIterator({ requestId: 'b' }, who());
    expect([(await a.next()).value, (await b.next()).value, (await a.next()).value]).toEqual(['a', 'b', 'a']);
  });
});
