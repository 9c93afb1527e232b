import { GraphQLError } from 'graphql';
import { GraphQLExchange, httpErrorFormatter, searchOf } from '../../src/graphql/graphql.http';
import { isRequestError, requestErrorStatus } from '../../src/graphql/http-status';
import type { Logger } from '../../src/shared/logger';
import { runInRequest } from '../../src/shared/request-context';
import { CATALOGS } from '../../src/shared/messages';

describe('searchOf: the query string Apollo reads for GET', () => {
  // what @as-integrations/fastify handed Apollo (a URL object built per request), for every shape of request target
  const targets = [
    '/graphql',
    '/graphql?',
    '/graphql?query=%7Bviewer%7Bid%7D%7D',
    '/graphql?query={viewer{id}}&operationName=A',
    '/graphql?a=1&b=2#frag',
    '/graphql#frag?x=1',
    '/graphql?x=a?b',
    '/graphql?q=%2B+plus&v=%7B%22a%22%3A1%7D',
    '/graphql?#',
    '/graphql?x=1#',
  ];
  it.each(targets)('%s', (target) => {
    expect(searchOf(target)).toBe(new URL(target, 'http://localhost/').search);
  });

  // characters a URL object percent-encodes (Node's parser lets these through in a request target): the text differs,
  // the parameters Apollo parses out of it do not
  it.each([`/graphql?q="quoted"&r='s'`, '/graphql?q=<a>&r=`b`'])('%s', (target) => {
    const params = (search: string) => [...new URLSearchParams(search)];
    expect(params(searchOf(target))).toEqual(params(new URL(target, 'http://localhost/').search));
  });
});

describe('request errors and their status', () => {
  it('a parse, validation or input error without a path is a request error; a field error or another code is not', () => {
    expect(isRequestError(new GraphQLError('x', { extensions: { code: 'GRAPHQL_PARSE_FAILED' } }))).toBe(true);
    expect(isRequestError(new GraphQLError('x', { extensions: { code: 'GRAPHQL_VALIDATION_FAILED' } }))).toBe(true);
    expect(isRequestError(new GraphQLError('x', { extensions: { code: 'BAD_USER_INPUT' } }))).toBe(true);
    expect(isRequestError(new GraphQLError('x', { path: ['a'], extensions: { code: 'BAD_USER_INPUT' } }))).toBe(false);
    expect(isRequestError(new GraphQLError('provided sha does not match query'))).toBe(false);
    expect(isRequestError(new GraphQLError('x', { extensions: { code: 'RATE_LIMITED' } }))).toBe(false);
    expect(isRequestError(new Error('x'))).toBe(false);
    expect(isRequestError(undefined)).toBe(false);
  });

  it('400 becomes 200 only for a client that prefers application/json', () => {
    expect(requestErrorStatus(400, undefined)).toBe(200);
    expect(requestErrorStatus(400, 'application/json')).toBe(200);
    expect(requestErrorStatus(400, 'application/graphql-response+json')).toBe(400);
    expect(requestErrorStatus(400, 'application/graphql-response+json, application/json;q=0.9')).toBe(400);
    expect(requestErrorStatus(429, 'application/json')).toBe(429);
  });
});

describe('httpErrorFormatter', () => {
  const logged: unknown[] = [];
  const logger = { error: (...args: unknown[]) => logged.push(args) } as unknown as Logger;
  const passThrough = (f: { message: string; extensions?: Record<string, unknown> }) => f;

  it('stamps the request id, counts the errors and tells whether all are request errors', () => {
    const format = httpErrorFormatter(passThrough, logger);
    const exchange = new GraphQLExchange(0);
    runInRequest({ requestId: 'r-1', edge: exchange }, () => {
      const parse = new GraphQLError('bad', { extensions: { code: 'GRAPHQL_PARSE_FAILED' } });
      expect(format({ message: 'bad', extensions: { code: 'GRAPHQL_PARSE_FAILED' } }, parse)).toEqual({
        message: 'bad',
        extensions: { code: 'GRAPHQL_PARSE_FAILED', requestId: 'r-1' },
      });
      expect([exchange.errors, exchange.requestErrorsOnly]).toEqual([1, true]);
      format({ message: 'x', extensions: { code: 'NOT_FOUND' } }, new GraphQLError('x', { path: ['a'] }));
      expect([exchange.errors, exchange.requestErrorsOnly]).toEqual([2, false]);
    });
  });

  it("outside a request: the edge's formatting alone", () => {
    const format = httpErrorFormatter(passThrough, logger);
    expect(format({ message: 'm', extensions: { code: 'X' } }, new Error('m'))).toEqual({ message: 'm', extensions: { code: 'X' } });
  });

  it('a formatter that fails: logged, answered as an internal error with the request id, nothing of the error repeated', () => {
    const format = httpErrorFormatter(() => {
      throw new Error('formatter broke on secret-value');
    }, logger);
    const out = runInRequest({ requestId: 'r-2', edge: new GraphQLExchange(0, 'pt-BR') }, () =>
      format({ message: 'secret-value' }, new Error('secret-value')),
    );
    expect(out).toEqual({
      message: CATALOGS.pt.errors.INTERNAL_SERVER_ERROR,
      extensions: { code: 'INTERNAL_SERVER_ERROR', detail: 'Internal server error', requestId: 'r-2' },
    });
    expect(logged).toHaveLength(1);
  });
});
