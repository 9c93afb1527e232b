import type { ApolloServerOptionsWithGateway } from '@apollo/server';
import type { GraphQLError, GraphQLSchema } from 'graphql';
import type { GraphQLContext } from './context';
import { currentExchange, type GraphQLExchange } from './graphql.http';
import type { ExecutionRequest, Executor } from './jit';

type GatewayInterface = ApolloServerOptionsWithGateway<GraphQLContext>['gateway'];
type SchemaListener = Parameters<GatewayInterface['onSchemaLoadOrUpdate']>[0];

/** What may not run, or null (may be a promise while a shared rate-limit store answers). */
export type Refusal = (req: ExecutionRequest) => GraphQLError | null | Promise<GraphQLError | null>;

/**
 * The execution step of HTTP operations, plugged into Apollo through its `gateway` option (which serves the given
 * schema): per operation, Apollo has parsed, validated and resolved it; here
 *
 * 1. the operation is noted for the answer's metrics (graphql.http.ts);
 * 2. what may not run is refused — a subscription or invalid text (input-text.ts), then the caller's rate limits and
 *    upstream budget (rate-limits.ts) — and Apollo answers the refusal as an error of the request (its
 *    `extensions.http` status: 400, or 429 with Retry-After), with nothing run or kept: a persisted query's
 *    registration, which Apollo makes before execution, waits for this step (apq.ts);
 * 3. the executor runs it (jit.ts: graphql-jit, or graphql-js).
 *
 * The edge's work is done here and in the error formatter rather than in an Apollo plugin: Apollo awaits every hook
 * of every request listener at each step of every request, which costs a promise and a microtask per listener and
 * step even for the hooks a listener does not have.
 */
export function edgeGateway(opts: { schema: GraphQLSchema; refuse: Refusal; execute: Executor }): GatewayInterface {
  const { schema, refuse, execute } = opts;
  const listeners = new Set<SchemaListener>();
  const admit = (req: ExecutionRequest, exchange: GraphQLExchange | undefined): ReturnType<Executor> => {
    exchange?.admitted();
    return execute(req);
  };
  // not async (a value or a rejected promise, never a throw): Apollo awaits what it returns
  const run = (req: ExecutionRequest, exchange: GraphQLExchange | undefined): ReturnType<Executor> => {
    let refusal: ReturnType<Refusal>;
    try {
      refusal = refuse(req);
    } catch (e) {
      return Promise.reject(e as Error);
    }
    if (refusal === null) return admit(req, exchange);
    if (refusal instanceof Promise) return refusal.then((r) => (r === null ? admit(req, exchange) : Promise.reject(r)));
    return Promise.reject(refusal);
  };
  return {
    onSchemaLoadOrUpdate(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    async load() {
      // Apollo builds its schema-derived data (document store, validation) from this event, before executing anything.
      for (const listener of listeners) listener({ apiSchema: schema, coreSupergraphSdl: '' });
      return {
        executor: (rc) => {
          const exchange = currentExchange();
          if (exchange) exchange.operation = rc.operation;
          return run(
            {
              document: rc.document,
              operation: rc.operation,
              operationName: rc.request.operationName ?? null,
              key: rc.queryHash,
              variables: rc.request.variables,
              contextValue: rc.context as GraphQLContext,
            },
            exchange,
          );
        },
      };
    },
    async stop() {
      listeners.clear();
    },
  };
}
