import {
  GraphQLError,
  NoSchemaIntrospectionCustomRule,
  type DocumentNode,
  type OperationDefinitionNode,
  type ValidationRule,
} from 'graphql';
import type { Caller } from '../auth/auth.types';
import type { Config } from '../config';
import { invalidTextError } from './input-text';
import { queryLimits } from './limits';
import { rateLimitRefusal, type RateLimitRules } from './rate-limits';
import type { RateLimiter } from '../shared/rate-limit';

/** One operation as either transport hands it over, parsed and validated. */
interface OperationRequest {
  document: DocumentNode;
  /** The operation to run (null: none matched the operation name; execution answers that). */
  operation: OperationDefinitionNode | null | undefined;
  variables: unknown;
  caller: Caller | null;
  transport: 'http' | 'ws';
}

/**
 * What decides whether an operation may run, the same for HTTP and graphql-ws: production must behave alike on every
 * transport, so both take their parser options, validation rules and refusals from here, never from copies of
 * their own.
 */
export interface Admission {
  /** graphql-js's parser limits (the token limit). */
  parseOptions: { maxTokens: number };
  /**
   * Run after graphql-js's specified rules: the query limits (depth, aliases, directives, cost) and, where
   * introspection is off (production), graphql-js's rule refusing `__schema` and `__type`.
   */
  validationRules: ValidationRule[];
  /**
   * What may not run, checked after validation and before anything executes: a subscription over HTTP, invalid text
   * in the document or the variables, then the caller's rate limits and upstream budget (a promise while a shared
   * store answers). null: run it.
   */
  refuse(req: OperationRequest): GraphQLError | null | Promise<GraphQLError | null>;
}

export function createAdmission(opts: {
  config: Pick<Config, 'limits' | 'production' | 'introspection'>;
  rateLimiter: RateLimiter;
  rules: RateLimitRules;
}): Admission {
  const limits = queryLimits(opts.config);
  return {
    parseOptions: limits.parseOptions,
    validationRules: [...limits.validationRules, ...(opts.config.introspection ? [] : [NoSchemaIntrospectionCustomRule])],
    refuse(req) {
      if (req.transport === 'http' && req.operation?.operation === 'subscription')
        return new GraphQLError('Subscriptions are served over the websocket at /graphql (graphql-transport-ws), not over HTTP', {
          extensions: { code: 'SUBSCRIPTION_OVER_HTTP', http: { status: 400 } },
        });
      return (
        invalidTextError(req.document, req.variables) ??
        rateLimitRefusal(opts.rateLimiter, opts.rules, req.caller, req.operation, req.document)
      );
    },
  };
}
