import type {
  ApolloServerPlugin,
  GraphQLRequestContextDidResolveOperation,
  GraphQLRequestContextWillSendResponse,
  GraphQLRequestListener,
} from '@apollo/server';
import type { GraphQLError } from 'graphql';
import type { Metrics } from '../shared/metrics';
import type { RateLimiter } from '../shared/rate-limit';
import type { GraphQLContext } from './context';
import { applyRequestErrorStatus } from './http-status';
import { httpInputRefusal } from './input-text';
import { operationMetrics } from './metrics.plugin';
import { rateLimitRefusal, stampErrors, type RateLimitPluginOptions } from './rate-limit.plugin';

/**
 * The per-request work of the GraphQL edge over HTTP, in one Apollo plugin (Apollo awaits every hook of every
 * plugin: one listener instead of one per concern saves a handful of promises per request). In order:
 *
 * - once the operation is resolved: refuse what HTTP may not run (a subscription, invalid text: input-text.ts), then
 *   charge the caller's rate limits and upstream budget (rate-limit.plugin.ts) — what depends only on the document
 *   is worked out once per parsed document there;
 * - when the response is sent: `extensions.requestId` (and `retryAfterSeconds`) on every error, the GraphQL over
 *   HTTP status of request errors (http-status.ts), the operation's count and duration (metrics.plugin.ts).
 *
 * Tracing has its own plugin (tracing.ts), installed only while tracing is on.
 */
export function edgePlugin(opts: {
  limiter: RateLimiter;
  rules: RateLimitPluginOptions;
  metrics: Metrics;
}): ApolloServerPlugin<GraphQLContext> {
  const record = operationMetrics(opts.metrics);
  // The hooks are plain functions, not async ones: Apollo gathers each hook's result with Promise.all, which takes a
  // value as well as a promise, so a hook that has nothing to wait for returns none (Apollo's types ask for promises
  // only because hooks may wait). A hook never throws: a refusal or a failure is a rejected promise, as from an async
  // hook — thrown, it would leave Apollo's map over the listeners before the other plugins' hooks (tracing's) ran.
  const listener = (): GraphQLRequestListener<GraphQLContext> => {
    const startedMs = performance.now();
    let retryAfterSeconds: number | null = null;
    const refuse = (refusal: GraphQLError | null): Promise<void> | undefined => {
      if (!refusal) return undefined;
      if (refusal.extensions.code === 'RATE_LIMITED') retryAfterSeconds = refusal.extensions.retryAfterSeconds as number;
      return Promise.reject(refusal);
    };
    const hooks: SyncHooks = {
      didResolveOperation({ document, operation, request, contextValue }) {
        try {
          const refusal =
            httpInputRefusal(document, operation, request.variables) ??
            rateLimitRefusal(opts.limiter, opts.rules, contextValue.caller, operation, document);
          return refusal instanceof Promise ? refusal.then(refuse) : refuse(refusal);
        } catch (e) {
          return Promise.reject(e as Error);
        }
      },
      willSendResponse(rc) {
        try {
          stampErrors(rc.response, rc.contextValue?.requestId, retryAfterSeconds);
          applyRequestErrorStatus(rc);
          record(rc, startedMs);
          return undefined;
        } catch (e) {
          return Promise.reject(e as Error);
        }
      },
    };
    return hooks as GraphQLRequestListener<GraphQLContext>;
  };
  return { requestDidStart: listener as unknown as NonNullable<ApolloServerPlugin<GraphQLContext>['requestDidStart']> };
}

/** The two hooks as they are written: each returns a promise only when it waits or fails. */
interface SyncHooks {
  didResolveOperation(rc: GraphQLRequestContextDidResolveOperation<GraphQLContext>): Promise<void> | undefined;
  willSendResponse(rc: GraphQLRequestContextWillSendResponse<GraphQLContext>): Promise<void> | undefined;
}
