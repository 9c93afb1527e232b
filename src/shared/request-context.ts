import { AsyncLocalStorage, AsyncResource } from 'node:async_hooks';

/**
 * Who and what the current unit of work is: one HTTP request or one websocket operation. Kept in an
 * AsyncLocalStorage so that everything run on its behalf — resolvers, services, upstream calls, Prisma
 * queries, saga steps run inline by a mutation — logs with the same `requestId` (see the pino mixin in
 * logger.ts) without passing it along by hand. Work started later by a timer or a worker inherits the
 * context it was started from (Node propagates AsyncLocalStorage through timers and promises).
 */
export interface RequestContext {
  requestId: string;
  /** The caller's user id (the JWT `sub`, an opaque subject, not PII), once authenticated. */
  userId?: string;
  /**
   * The bookkeeping of the layer answering the request, kept here for the parts of it that only this context reaches
   * (the GraphQL edge's: what its executor and error formatter learn, read when the answer is written —
   * src/graphql/graphql.http.ts).
   */
  edge?: unknown;
}

const storage = new AsyncLocalStorage<RequestContext>();

/** The current request's context, or undefined outside any request (start-up, background work). */
export const currentRequest = (): RequestContext | undefined => storage.getStore();

/** Runs `fn` (and everything it starts) inside `ctx`. */
export const runInRequest = <T>(ctx: RequestContext, fn: () => T): T => storage.run(ctx, fn);

/** Records the caller of the current request (no-op outside a request). */
export function setRequestUser(userId: string | null | undefined): void {
  const ctx = storage.getStore();
  if (ctx && userId) ctx.userId = userId;
}

/**
 * Binds an async iterator's `next`/`return`/`throw` to `ctx`: a subscription's events are produced by
 * pulling the iterator from graphql-ws's own loop, which runs outside the operation's context. The context is
 * captured once (an async resource made inside it) and entered per call: `storage.run` per event would build a
 * new context frame for every message to every subscriber.
 */
export function bindIterator<T>(ctx: RequestContext, it: AsyncIterableIterator<T> | AsyncGenerator<T>): AsyncGenerator<T> {
  const scope = storage.run(ctx, () => new AsyncResource('subscription'));
  const bound: AsyncGenerator<T> = {
    next: (...args: [] | [unknown]) => scope.runInAsyncScope(() => it.next(...(args as []))),
    return: (value?: unknown) =>
      scope.runInAsyncScope(() => (it.return ? it.return(value as T) : Promise.resolve({ done: true as const, value: value as T }))),
    throw: (err?: unknown) => scope.runInAsyncScope(() => (it.throw ? it.throw(err) : Promise.reject(err))),
    [Symbol.asyncIterator]() {
      return bound;
    },
  } as AsyncGenerator<T>;
  return bound;
}

/** Minimal Fastify surface used by registerRequestContext (avoids importing Fastify types here). */
interface HookHost<Reply> {
  addHook(name: 'onRequest', hook: (req: { id: string; raw: object }, reply: Reply, done: () => void) => void): unknown;
}

/**
 * One context per HTTP request, from the first hook on: everything the request runs after it, in this hook's call or
 * later, is in that context. Fastify itself carries the context of the hooks before the body across the body's
 * arrival (its body parser resumes the request in an async resource made before reading), so the handler of a body
 * that came in several chunks still runs in it (test/integration/http-logger.test.ts).
 */
export function registerRequestContext<Reply>(
  fastify: HookHost<Reply>,
  /** More to do on each request first, in the same hook (one hook call fewer per request). */
  onRequest?: (req: { id: string }, reply: Reply) => void,
): void {
  fastify.addHook('onRequest', (req, reply, done) => {
    onRequest?.(req, reply);
    storage.run({ requestId: req.id }, done);
  });
}
