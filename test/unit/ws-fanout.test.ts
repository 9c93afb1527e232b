import { GraphQLError, GraphQLObjectType, GraphQLSchema, GraphQLString, parse, type ExecutionResult } from 'graphql';
import { subscribeShared } from '../../src/graphql/ws-fanout';

/** ws-fanout.ts: graphql-js `subscribe` with each event's execution shared per (event object, share key). */
describe('subscribeShared', () => {
  type Source = { events: object[]; returned: number; thrown: unknown[] };
  const sources: Source[] = [];
  function schema(opts: { withThrow?: boolean; asyncField?: boolean } = {}) {
    const source = (): AsyncIterator<object> => {
      const s: Source = { events: [], returned: 0, thrown: [] };
      sources.push(s);
      let i = 0;
      const it: AsyncIterator<object> & AsyncIterable<object> = {
        next: async () => (i < s.events.length ? { value: s.events[i++]!, done: false } : { value: undefined, done: true }),
        return: async () => {
          s.returned++;
          return { value: undefined, done: true };
        },
        ...(opts.withThrow
          ? {
              throw: async (e: unknown) => {
                s.thrown.push(e);
                return { value: undefined, done: true };
              },
            }
          : {}),
        [Symbol.asyncIterator]: () => it,
      };
      return it;
    };
    const event = new GraphQLObjectType({
      name: 'Event',
      fields: {
        name: {
          type: GraphQLString,
          resolve: (e: { name: string; fail?: boolean }) => {
            if (e.fail) throw new GraphQLError('field failed');
            return opts.asyncField ? Promise.resolve(e.name) : e.name;
          },
        },
      },
    });
    return new GraphQLSchema({
      query: new GraphQLObjectType({ name: 'Query', fields: { ok: { type: GraphQLString } } }),
      subscription: new GraphQLObjectType({
        name: 'Subscription',
        fields: { changed: { type: event, subscribe: source, resolve: (e: unknown) => e } },
      }),
    });
  }
  const document = parse('subscription { changed { name } }');
  const open = async (s: GraphQLSchema, shareKey: string | null) => {
    const r = await subscribeShared({ schema: s, document }, shareKey);
    if (!(Symbol.asyncIterator in r)) throw new Error('expected a stream');
    return { it: r, source: sources[sources.length - 1]! };
  };
  afterEach(() => (sources.length = 0));

  it.each([false, true])('maps every event to its result in order, then ends (async fields: %s)', async (asyncField) => {
    const { it, source } = await open(schema({ asyncField }), 'k');
    source.events.push({ name: 'a' }, { name: 'b' });
    expect(await it.next()).toEqual({ value: { data: { changed: { name: 'a' } } }, done: false });
    expect(await it.next()).toEqual({ value: { data: { changed: { name: 'b' } } }, done: false });
    expect((await it.next()).done).toBe(true);
  });

  it('executes an event once for every stream with the same share key, apart for another key or none', async () => {
    const s = schema({ asyncField: true });
    const a = await open(s, 'same');
    const b = await open(s, 'same');
    const c = await open(s, 'other');
    const d = await open(s, null);
    const event = { name: 'x' };
    for (const o of [a, b, c, d]) o.source.events.push(event);
    const [ra, rb, rc, rd] = await Promise.all([a.it.next(), b.it.next(), c.it.next(), d.it.next()]);
    expect(ra.value).toBe(rb.value);
    expect(rc.value).not.toBe(ra.value);
    expect(rd.value).not.toBe(ra.value);
    expect(rc.value).toEqual(ra.value);
  });

  it('a field error is a result with errors, the stream goes on', async () => {
    const { it, source } = await open(schema(), 'k');
    source.events.push({ name: 'a', fail: true }, { name: 'b' });
    const first = (await it.next()).value as ExecutionResult;
    expect(first.errors?.[0]?.message).toBe('field failed');
    expect((await it.next()).value).toEqual({ data: { changed: { name: 'b' } } });
    expect(source.returned).toBe(0);
  });

  it('return() closes the source', async () => {
    const { it, source } = await open(schema(), 'k');
    expect(await it.return(undefined)).toEqual({ value: undefined, done: true });
    expect(source.returned).toBe(1);
  });

  it('throw() is passed to a source that can take it; one that cannot is closed and the error comes back', async () => {
    const takes = await open(schema({ withThrow: true }), 'k');
    const e1 = new Error('stop');
    expect((await takes.it.throw(e1)).done).toBe(true);
    expect(takes.source.thrown).toEqual([e1]);

    const cannot = await open(schema(), 'k');
    const e2 = new Error('stop');
    await expect(cannot.it.throw(e2)).rejects.toBe(e2);
    expect(cannot.source.returned).toBe(1);
  });

  it('a source that fails rejects the pull', async () => {
    const { it, source } = await open(schema(), 'k');
    source.events.push({ name: 'a' });
    await it.next();
    Object.defineProperty(source.events, 1, {
      get() {
        throw new Error('backend gone'); // the next pull of the source fails
      },
    });
    await expect(it.next()).rejects.toThrow('backend gone');
  });
});
