import { Readable } from 'node:stream';
import { HeaderMap, type ApolloServer, type HTTPGraphQLRequest, type HTTPGraphQLResponse } from '@apollo/server';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { GraphQLFormattedError, OperationDefinitionNode } from 'graphql';
import type { Logger } from '../shared/logger';
import type { Metrics } from '../shared/metrics';
import { errorMessage, negotiateLanguage, type Language } from '../shared/messages';
import { currentRequest, runInRequest, type RequestContext } from '../shared/request-context';
import type { GraphQLContext } from './context';
import { isRequestError, requestErrorStatus } from './http-status';
import { operationMetrics } from './operation-metrics';

/**
 * What the GraphQL edge learns about one HTTP request while Apollo answers it, kept in the request context (the error
 * formatter has no other way to the request): the operation, once the executor has it (edge.gateway.ts), and the
 * errors the answer carries, counted by the error formatter (`httpErrorFormatter`). Read when the answer is written.
 */
export class GraphQLExchange {
  operation: OperationDefinitionNode | undefined = undefined;
  errors = 0;
  /** Every error so far is a request error (http-status.ts). */
  requestErrorsOnly = true;
  /** Work held until the operation is allowed to run (a persisted query's registration: apq.ts). */
  private held: (() => void) | undefined = undefined;
  private negotiated: Language | undefined = undefined;

  constructor(
    readonly startedMs: number,
    /** The request's Accept-Language header, read only if an error or a resolver needs the language. */
    private readonly acceptLanguage?: string,
  ) {}

  /** The language of the customer messages answered (Accept-Language; English by default). */
  get language(): Language {
    return (this.negotiated ??= negotiateLanguage(this.acceptLanguage));
  }

  /** Holds `work` until `admitted()`; dropped if the operation is refused. */
  holdUntilAdmitted(work: () => void): void {
    this.held = work;
  }

  /** The operation passed every refusal (edge.gateway.ts): the held work is done. */
  admitted(): void {
    const work = this.held;
    this.held = undefined;
    work?.();
  }
}

/** The exchange of the HTTP request being answered, or undefined (a websocket operation, a test's own call). */
export const currentExchange = (): GraphQLExchange | undefined => exchangeOf(currentRequest());

const exchangeOf = (request: RequestContext | undefined): GraphQLExchange | undefined =>
  request?.edge instanceof GraphQLExchange ? request.edge : undefined;

type FormatError = (formatted: GraphQLFormattedError, error: unknown, language?: Language) => GraphQLFormattedError;

/**
 * The error formatter of HTTP answers: the edge's own (errors.ts), in the request's language (Accept-Language), then
 * `extensions.requestId` (the request's x-request-id) on every error, counted on the exchange. Should the edge's
 * formatter fail, the error is logged and answered as an internal error — with the request id all the same.
 */
export function httpErrorFormatter(
  format: FormatError,
  logger: Logger,
): (formatted: GraphQLFormattedError, error: unknown) => GraphQLFormattedError {
  return (formatted, error) => {
    const request = currentRequest();
    const exchange = exchangeOf(request);
    if (exchange) {
      exchange.errors++;
      if (exchange.requestErrorsOnly && !isRequestError(error)) exchange.requestErrorsOnly = false;
    }
    let out: GraphQLFormattedError;
    try {
      out = format(formatted, error, exchange?.language);
    } catch (e) {
      logger.error({ err: e }, 'formatting a GraphQL error failed');
      const code = 'INTERNAL_SERVER_ERROR';
      out = { message: errorMessage(code, exchange?.language), extensions: { code, detail: 'Internal server error' } };
    }
    return request ? { ...out, extensions: { ...out.extensions, requestId: request.requestId } } : out;
  };
}

/**
 * The Fastify handler of GraphQL over HTTP: the request handed to Apollo, its answer written back with
 *
 * - the GraphQL over HTTP status of request errors (http-status.ts: 200 instead of 400 for a legacy JSON client),
 * - the operation's count and duration (operation-metrics.ts).
 *
 * In place of @as-integrations/fastify's handler, which does the same hand-over with a URL object built per request
 * (only its query string is read) and an async wrapper.
 */
export function graphqlHttpHandler(
  apollo: ApolloServer<GraphQLContext>,
  opts: { context: (request: FastifyRequest) => Promise<GraphQLContext>; metrics: Metrics },
): (request: FastifyRequest, reply: FastifyReply) => Promise<unknown> {
  const record = operationMetrics(opts.metrics);
  const answer = (res: HTTPGraphQLResponse, exchange: GraphQLExchange, request: FastifyRequest, reply: FastifyReply) => {
    let status = res.status ?? 200;
    if (exchange.errors > 0 && exchange.requestErrorsOnly) status = requestErrorStatus(status, request.headers.accept);
    record(exchange.operation, exchange.errors > 0, exchange.startedMs);
    for (const [name, value] of res.headers) void reply.header(name, value);
    void reply.code(status);
    return res.body.kind === 'complete' ? res.body.string : reply.send(Readable.from(res.body.asyncIterator));
  };
  const handle = (request: FastifyRequest, reply: FastifyReply, exchange: GraphQLExchange) =>
    apollo
      .executeHTTPGraphQLRequest({ httpGraphQLRequest: graphqlRequestOf(request), context: () => opts.context(request) })
      .then((res) => answer(res, exchange, request, reply));
  return (request, reply) => {
    const exchange = new GraphQLExchange(performance.now(), request.headers['accept-language']);
    const context = currentRequest();
    if (context) {
      context.edge = exchange;
      return handle(request, reply, exchange);
    }
    // every request has its context from its first hook (http.server.ts); a server built without that hook still works
    return runInRequest({ requestId: request.id, edge: exchange }, () => handle(request, reply, exchange));
  };
}

/** The request as Apollo reads it: method, headers, query string (for GET) and the parsed body. */
function graphqlRequestOf(request: FastifyRequest): HTTPGraphQLRequest {
  const headers = new HeaderMap();
  const raw = request.headers;
  for (const name in raw) {
    const value = raw[name];
    if (value) headers.set(name, Array.isArray(value) ? value.join(', ') : value);
  }
  return { method: request.method.toUpperCase(), headers, search: searchOf(request.url), body: request.body };
}

/** The query string of a request target, "?" included ("" for none), as `new URL(target, base).search` gives it. */
export function searchOf(target: string): string {
  const hash = target.indexOf('#');
  const q = target.indexOf('?');
  if (q < 0 || (hash >= 0 && hash < q)) return '';
  const search = hash < 0 ? target.slice(q) : target.slice(q, hash);
  return search === '?' ? '' : search;
}
