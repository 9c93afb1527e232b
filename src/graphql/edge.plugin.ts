import type { ApolloServerPlugin } from '@apollo/server';
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
  return {
    async requestDidStart() {
      const startedMs = performance.now();
      let retryAfterSeconds: number | null = null;
      return {
        async didResolveOperation({ document, operation, request, contextValue }) {
          let refusal =
            httpInputRefusal(document, operation, request.variables) ??
            rateLimitRefusal(opts.limiter, opts.rules, contextValue.caller, operation, document);
          if (refusal instanceof Promise) refusal = await refusal;
          if (refusal) {
            if (refusal.extensions.code === 'RATE_LIMITED') retryAfterSeconds = refusal.extensions.retryAfterSeconds as number;
            throw refusal;
          }
        },
        async willSendResponse(rc) {
          stampErrors(rc.response, rc.contextValue?.requestId, retryAfterSeconds);
          applyRequestErrorStatus(rc);
          record(rc, startedMs);
        },
      };
    },
  };
}
