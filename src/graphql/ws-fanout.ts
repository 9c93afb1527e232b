/**
 * Subscription fan-out without per-socket work: when N sockets follow the same thing, each event
 * is executed once and serialised once, and every socket sends the same JSON text.
 *
 * - `subscribeShared` is graphql-js's `subscribe` (source stream → execute per event) with one difference:
 *   the execution of an event is shared by every subscription that pulls the same event object (the same
 *   root value: the source streams hand the same object to every subscriber woken by one change, see
 *   transfer.subscriptions.ts) with the same share key. The share key names everything the result may depend
 *   on besides the event: the document, the operation, the variables and the principal (see ws.ts). The
 *   source stream itself — and so the authorisation at subscribe time — stays per subscription.
 * - `preserialised` gives the JSON text of a shared, error-free result (computed once per result);
 *   `PreserialisedPayload` carries it through graphql-ws, whose `next` message is built with JSON.stringify:
 *   the payload serialises to a one-off marker, and `PreserialisingWebSocket.send` (the server's socket
 *   class) puts the text in the marker's place. graphql-ws stringifies and calls send synchronously, so the
 *   marker and the text always belong to the same message.
 */
import WebSocket from 'ws';
import { createSourceEventStream, execute, type ExecutionArgs, type ExecutionResult } from 'graphql';

type Result = ExecutionResult | Promise<ExecutionResult>;

/** Results handed to more than one subscription may be serialised once (see `preserialised`). */
const shared = new WeakSet<ExecutionResult>();

/** event object → share key → its execution; entries go with the event object (garbage-collected). */
const executions = new WeakMap<object, Map<string, Result>>();

function executeShared(args: ExecutionArgs, event: unknown, shareKey: string | null): Result {
  if (shareKey === null || typeof event !== 'object' || event === null) return execute({ ...args, rootValue: event });
  let byKey = executions.get(event);
  if (!byKey) executions.set(event, (byKey = new Map()));
  let r = byKey.get(shareKey);
  if (!r) {
    const started = execute({ ...args, rootValue: event });
    r = started instanceof Promise ? started.then((v) => (shared.add(v), v)) : (shared.add(started), started);
    byKey.set(shareKey, r);
  }
  return r;
}

/** graphql-js `subscribe`, each event's execution shared per (event object, shareKey); null = never shared. */
export async function subscribeShared(
  args: ExecutionArgs,
  shareKey: string | null,
): Promise<AsyncGenerator<ExecutionResult> | ExecutionResult> {
  const source = await createSourceEventStream(args);
  if (!(Symbol.asyncIterator in Object(source))) return source as ExecutionResult;
  const it = (source as AsyncIterable<unknown>)[Symbol.asyncIterator]();
  const closeQuietly = async () => {
    try {
      await it.return?.();
    } catch {
      // keep the original error
    }
  };
  const failed = (e: unknown): Promise<never> =>
    closeQuietly().then(() => {
      throw e;
    });
  // plain `then` chains, not async functions: per event and subscriber, one promise hop from the source's result
  // to graphql-ws (async functions around an async mapper cost several)
  const map = (r: IteratorResult<unknown>): IteratorResult<ExecutionResult> | Promise<IteratorResult<ExecutionResult>> => {
    if (r.done) return r as IteratorResult<ExecutionResult>;
    let v: Result;
    try {
      v = executeShared(args, r.value, shareKey);
    } catch (e) {
      return failed(e);
    }
    return v instanceof Promise ? v.then((value) => ({ value, done: false }), failed) : { value: v, done: false };
  };
  const step = (pull: () => Promise<IteratorResult<unknown>>): Promise<IteratorResult<ExecutionResult>> => {
    try {
      return pull().then(map);
    } catch (e) {
      return Promise.reject(e);
    }
  };
  // typed as AsyncGenerator for graphql-ws (it only calls next/return/throw); built by hand, so no asyncDispose
  const next = () => it.next();
  const out = {
    next: () => step(next),
    return: () => (it.return ? step(() => it.return!()) : Promise.resolve({ value: undefined, done: true })),
    throw: (e?: unknown) => (it.throw ? step(() => it.throw!(e)) : failed(e)),
    [Symbol.asyncIterator]() {
      return out;
    },
  } as unknown as AsyncGenerator<ExecutionResult>;
  return out;
}

/** A `next` payload whose JSON text is already known. */
class PreserialisedPayload {
  constructor(readonly json: string) {}
  /** Called by JSON.stringify while graphql-ws builds the message: a marker the socket replaces. */
  toJSON(): string {
    const marker = `${MARKER}${++markerSeq}`;
    pending = { tail: `,"payload":${JSON.stringify(marker)}}`, json: this.json };
    return marker;
  }
}
const MARKER = '\u0000preserialised:';
let markerSeq = 0;
let pending: { tail: string; json: string } | null = null;

const texts = new WeakMap<ExecutionResult, PreserialisedPayload>();

/** The serialised payload of a shared result without errors (JSON.stringify once per result), else null. */
export function preserialised(result: ExecutionResult): PreserialisedPayload | null {
  if (result.errors || !shared.has(result)) return null;
  let p = texts.get(result);
  if (!p) texts.set(result, (p = new PreserialisedPayload(JSON.stringify(result))));
  return p;
}

/** The server's socket class: sends a message built around a PreserialisedPayload with the payload's text. */
export class PreserialisingWebSocket extends WebSocket {
  override send(data: unknown, ...rest: unknown[]): void {
    const p = pending;
    if (p !== null && typeof data === 'string') {
      pending = null;
      if (data.endsWith(p.tail)) data = `${data.slice(0, data.length - p.tail.length)},"payload":${p.json}}`;
    }
    (WebSocket.prototype.send as (...a: unknown[]) => void).call(this, data, ...rest);
  }
}
