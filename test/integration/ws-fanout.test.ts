/**
 * Shared execution and pre-serialised messages of graphql-ws subscriptions (src/graphql/ws-fanout.ts),
 * over real websockets: subscribers of one event with the same document, variables and principal share one
 * execution and one JSON text; different principals never share; authorisation stays per socket; errors keep
 * each socket's own request id.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import WebSocket from 'ws';
import { GraphQLError, buildSchema, type GraphQLFieldResolver } from 'graphql';
import { AuthService } from '../../src/auth/auth.service';
import { loadConfig } from '../../src/config';
import { createErrorFormatter } from '../../src/graphql/errors';
import type { GraphQLContext } from '../../src/graphql/context';
import { createGraphQLWsServer, type GraphQLWsServer } from '../../src/graphql/ws';
import { createAdmission } from '../../src/graphql/admission';
import { createEdgeLimits, type EdgeLimits } from '../../src/graphql/graphql.rate-limit';
import { createLogger } from '../../src/shared/logger';
import { systemClock } from '../../src/shared/clock';
import { waitFor } from '../helpers/wait';

const schema = buildSchema(`
  type Query { ok: Boolean }
  type Tick { n: Int! seenBy: String! secret: String }
  type Subscription { ticks(topic: String!): Tick }
`);

/** Hands the same event object to every subscriber of a topic (like the shared reads of transferUpdated). */
class Hub {
  private readonly subs = new Map<string, Set<(ev: object) => void>>();
  count = (topic: string) => this.subs.get(topic)?.size ?? 0;
  publish(topic: string, ev: object) {
    for (const push of this.subs.get(topic) ?? []) push(ev);
  }
  iterate(topic: string): AsyncIterableIterator<object> {
    const queue: object[] = [];
    let wake: (() => void) | null = null;
    const push = (ev: object) => {
      queue.push(ev);
      wake?.();
    };
    const set = this.subs.get(topic) ?? new Set();
    this.subs.set(topic, set.add(push));
    const it: AsyncIterableIterator<object> = {
      next: async () => {
        while (queue.length === 0) await new Promise<void>((r) => (wake = r));
        return { value: queue.shift()!, done: false };
      },
      return: async () => {
        set.delete(push);
        return { value: undefined, done: true };
      },
      [Symbol.asyncIterator]: () => it,
    };
    return it;
  }
}

const hub = new Hub();
const seenByCalls: string[] = [];
const subscriptionFields = schema.getSubscriptionType()!.getFields();
subscriptionFields.ticks!.subscribe = ((_root, args: { topic: string }, ctx: GraphQLContext) => {
  if (args.topic === 'private' && ctx.caller?.role !== 'admin') throw new GraphQLError('staff only', { extensions: { code: 'FORBIDDEN' } });
  return hub.iterate(args.topic);
}) as GraphQLFieldResolver<unknown, GraphQLContext>;
subscriptionFields.ticks!.resolve = (ev) => ev;
const tickFields = (schema.getType('Tick') as import('graphql').GraphQLObjectType).getFields();
tickFields.seenBy!.resolve = (_ev, _args, ctx: GraphQLContext) => {
  seenByCalls.push(ctx.caller!.userId);
  return ctx.caller!.userId;
};
tickFields.secret!.resolve = (ev: { n: number }) => {
  if (ev.n === 2) throw new GraphQLError('no secret today', { extensions: { code: 'FORBIDDEN' } });
  return `s${ev.n}`;
};

interface Socket {
  ws: WebSocket;
  messages: string[];
  waitFor(n: number): Promise<void>;
}

describe('graphql-ws fan-out: shared execution, pre-serialised messages', () => {
  let dir: string;
  let server: http.Server;
  let wss: GraphQLWsServer;
  let url: string;
  let auth: AuthService;
  let limits: EdgeLimits;
  const sockets: Socket[] = [];

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'rbff-ws-fanout-'));
    const config = loadConfig({ DATA_DIR: dir });
    auth = await AuthService.create(config.auth, dir, systemClock);
    const logger = createLogger({ level: 'silent' });
    limits = createEdgeLimits(config, schema, logger);
    const admission = createAdmission({ config, rateLimiter: limits.rateLimiter, rules: limits.rules });
    wss = createGraphQLWsServer({
      schema,
      auth,
      logger,
      admission,
      formatError: createErrorFormatter(logger),
      connectionInitWaitTimeoutMs: 10_000,
    });
    server = http.createServer();
    server.on('upgrade', (req, socket, head) => wss.handleUpgrade(req, socket, head));
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    url = `ws://127.0.0.1:${(server.address() as { port: number }).port}/graphql`;
  });
  afterAll(async () => {
    for (const s of sockets) s.ws.terminate();
    await wss.close();
    await limits.close();
    await new Promise((r) => server.close(r));
    rmSync(dir, { recursive: true, force: true });
  });

  /** A raw graphql-transport-ws socket (to see the exact text of each message), acknowledged. */
  async function open(sub: string, role: 'customer' | 'backoffice' | 'admin'): Promise<Socket> {
    const ws = new WebSocket(url, 'graphql-transport-ws');
    const messages: string[] = [];
    const waiters: { n: number; resolve: () => void }[] = [];
    ws.on('message', (d) => {
      messages.push(d.toString());
      for (const w of [...waiters]) if (messages.length >= w.n) w.resolve();
    });
    const s: Socket = {
      ws,
      messages,
      waitFor: (n) => new Promise<void>((resolve) => (messages.length >= n ? resolve() : waiters.push({ n, resolve }))),
    };
    sockets.push(s);
    await new Promise((r) => ws.once('open', r));
    ws.send(JSON.stringify({ type: 'connection_init', payload: { authorization: `Bearer ${await auth.issueDevToken(sub, role)}` } }));
    await s.waitFor(1);
    expect(JSON.parse(messages.shift()!)).toEqual({ type: 'connection_ack' });
    return s;
  }
  const QUERY = 'subscription T($topic: String!) { ticks(topic: $topic) { n seenBy secret } }';
  const subscribe = (s: Socket, id: string, topic: string) =>
    s.ws.send(JSON.stringify({ id, type: 'subscribe', payload: { query: QUERY, variables: { topic } } }));
  it('executes and serialises each event once per principal, and every socket gets its own operation id', async () => {
    const [a1, a2, bob, root] = await Promise.all([
      open('alice', 'customer'),
      open('alice', 'customer'),
      open('bob', 'customer'),
      open('root', 'admin'),
    ]);
    subscribe(a1!, 'first', 'public');
    subscribe(a2!, 'an-other-id', 'public');
    subscribe(bob!, 'first', 'public');
    subscribe(root!, '7', 'public');
    await waitFor(() => hub.count('public') === 4, { timeoutMs: 10_000, intervalMs: 5, what: '4 subscribers on public' });

    seenByCalls.length = 0;
    hub.publish('public', { n: 1 });
    await Promise.all([a1, a2, bob, root].map((s) => s!.waitFor(1)));

    // exactly the message graphql-ws would have built, with each socket's id and principal
    const next = (id: string, seenBy: string) =>
      JSON.stringify({ id, type: 'next', payload: { data: { ticks: { n: 1, seenBy, secret: 's1' } } } });
    expect(a1!.messages).toEqual([next('first', 'alice')]);
    expect(a2!.messages).toEqual([next('an-other-id', 'alice')]);
    expect(bob!.messages).toEqual([next('first', 'bob')]);
    expect(root!.messages).toEqual([next('7', 'root')]);
    // alice's two sockets shared one execution; bob and root (other principals) each had their own
    expect(seenByCalls.sort()).toEqual(['alice', 'bob', 'root']);

    // a new event object is a new execution
    seenByCalls.length = 0;
    hub.publish('public', { n: 3 });
    await Promise.all([a1, a2, bob, root].map((s) => s!.waitFor(2)));
    expect(JSON.parse(a2!.messages[1]!)).toEqual({
      id: 'an-other-id',
      type: 'next',
      payload: { data: { ticks: { n: 3, seenBy: 'alice', secret: 's3' } } },
    });
    expect(seenByCalls.sort()).toEqual(['alice', 'bob', 'root']);

    // a result with errors is shared too, but each socket's errors carry that socket's own request id
    hub.publish('public', { n: 2 });
    await Promise.all([a1, a2].map((s) => s!.waitFor(3)));
    const [e1, e2] = [a1, a2].map(
      (s) => JSON.parse(s!.messages[2]!) as { payload: { data: unknown; errors: { extensions: { code: string; requestId: string } }[] } },
    );
    expect(e1!.payload.data).toEqual({ ticks: { n: 2, seenBy: 'alice', secret: null } });
    expect(e2!.payload.data).toEqual(e1!.payload.data);
    expect(e1!.payload.errors[0]!.extensions.code).toBe('FORBIDDEN');
    expect(e1!.payload.errors[0]!.extensions.requestId).toMatch(/^[0-9a-f-]{36}$/);
    expect(e2!.payload.errors[0]!.extensions.requestId).toMatch(/^[0-9a-f-]{36}$/);
    expect(e1!.payload.errors[0]!.extensions.requestId).not.toBe(e2!.payload.errors[0]!.extensions.requestId);
  });

  it('still authorises each socket: a refused subscriber gets its error while others of the same document get events', async () => {
    const [carol, admin] = await Promise.all([open('carol', 'customer'), open('root', 'admin')]);
    subscribe(carol!, 'p', 'private');
    await carol!.waitFor(2);
    // graphql-ws answers a refused source stream with a result carrying the error, then completes
    const refusal = JSON.parse(carol!.messages[0]!) as {
      id: string;
      type: string;
      payload: { data?: unknown; errors: { extensions: { code: string } }[] };
    };
    expect([refusal.id, refusal.type, refusal.payload.data ?? null, refusal.payload.errors[0]!.extensions.code]).toEqual([
      'p',
      'next',
      null,
      'FORBIDDEN',
    ]);
    expect(JSON.parse(carol!.messages[1]!)).toEqual({ id: 'p', type: 'complete' });

    subscribe(admin!, 'p', 'private');
    await waitFor(() => hub.count('private') === 1, { timeoutMs: 10_000, intervalMs: 5, what: 'a subscriber on private' });
    hub.publish('private', { n: 5 });
    await admin!.waitFor(1);
    expect(JSON.parse(admin!.messages[0]!)).toEqual({
      id: 'p',
      type: 'next',
      payload: { data: { ticks: { n: 5, seenBy: 'root', secret: 's5' } } },
    });
    expect(carol!.messages).toHaveLength(2);
  });

  it('does not share between different variables', async () => {
    const [x, y] = await Promise.all([open('dan', 'customer'), open('dan', 'customer')]);
    subscribe(x!, '1', 'v-a');
    subscribe(y!, '1', 'v-b');
    await waitFor(() => hub.count('v-a') === 1 && hub.count('v-b') === 1, {
      timeoutMs: 10_000,
      intervalMs: 5,
      what: 'a subscriber on v-a and on v-b',
    });
    const ev = { n: 9 };
    seenByCalls.length = 0;
    hub.publish('v-a', ev);
    hub.publish('v-b', ev); // the same event object under other variables: executed again
    await Promise.all([x!.waitFor(1), y!.waitFor(1)]);
    expect(seenByCalls).toEqual(['dan', 'dan']);
  });
});
