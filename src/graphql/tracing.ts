/**
 * Spans for GraphQL: one per operation (an Apollo plugin over HTTP, `traceWsOperation` over graphql-ws) and
 * one per root field resolver (`traceRootFields`, wrapped into the built schema once). Upstream attempts and
 * SQL statements made by a resolver become children of its root-field span, so one operation is one trace.
 * While tracing is off (`tracingActive()`) the plugin and the root-field wrappers are not installed at all (the
 * service decides at start), and `traceWsOperation` only checks.
 *
 * Attributes: operation type and name, root field names, the request id, error codes. Never the document
 * (literals may hold PII), variables or results.
 */
import type { ApolloServerPlugin } from '@apollo/server';
import { defaultFieldResolver, Kind, type ExecutionArgs, type GraphQLSchema, type OperationDefinitionNode } from 'graphql';
import type { Span } from '@opentelemetry/api';
import { context, errorForSpan, propagation, SpanKind, SpanStatusCode, trace, tracer, tracingActive, withSpan } from '../shared/tracing';
import type { GraphQLContext } from './context';

/** The operation span of each GraphQL context (HTTP: not the active span, the plugin cannot wrap execution). */
const operationSpans = new WeakMap<object, Span>();

const headerGetter = {
  get: (carrier: Map<string, string>, key: string) => carrier.get(key),
  keys: (carrier: Map<string, string>) => [...carrier.keys()],
};

function operationName(op: OperationDefinitionNode | undefined, given: string | null | undefined): string {
  if (!op) return 'graphql';
  const name = given ?? op.name?.value;
  if (name) return `${op.operation} ${name}`;
  const first = op.selectionSet.selections.find((s) => s.kind === Kind.FIELD);
  return first && first.kind === Kind.FIELD ? `${op.operation} ${first.name.value}` : op.operation;
}

/** Apollo plugin: a SERVER span per HTTP GraphQL request (parent: an incoming W3C `traceparent`, if any). */
export function tracingPlugin(): ApolloServerPlugin<GraphQLContext> {
  return {
    async requestDidStart({ request, contextValue }) {
      if (!tracingActive()) return;
      const parent = request.http
        ? propagation.extract(context.active(), request.http.headers as unknown as Map<string, string>, headerGetter)
        : context.active();
      const span = tracer().startSpan('graphql', { kind: SpanKind.SERVER, attributes: { 'request.id': contextValue.requestId } }, parent);
      operationSpans.set(contextValue, span);
      return {
        async didResolveOperation({ operation, operationName: given }) {
          span.updateName(operationName(operation, given));
          if (operation) span.setAttribute('graphql.operation.type', operation.operation);
          const name = given ?? operation?.name?.value;
          if (name) span.setAttribute('graphql.operation.name', name);
        },
        async didEncounterErrors({ errors }) {
          span.setStatus({ code: SpanStatusCode.ERROR });
          const codes = [...new Set(errors.map((e) => String(e.extensions?.code ?? 'INTERNAL_SERVER_ERROR')))];
          span.setAttribute('graphql.error.codes', codes);
        },
        async willSendResponse() {
          span.end();
        },
      };
    },
  };
}

/**
 * graphql-ws: runs one operation's execute/subscribe inside an active SERVER span (the subscription's span
 * covers its set-up, not its lifetime).
 */
export function traceWsOperation<T>(args: ExecutionArgs, run: () => T): T | Promise<Awaited<T>> {
  if (!tracingActive()) return run();
  const op = args.document.definitions.find(
    (d): d is OperationDefinitionNode =>
      d.kind === Kind.OPERATION_DEFINITION && (!args.operationName || d.name?.value === args.operationName),
  );
  const requestId = (args.contextValue as Partial<GraphQLContext> | undefined)?.requestId;
  return withSpan<Awaited<T>>(
    operationName(op, args.operationName),
    {
      'graphql.transport': 'graphql-ws',
      ...(op ? { 'graphql.operation.type': op.operation } : {}),
      ...((args.operationName ?? op?.name?.value) ? { 'graphql.operation.name': (args.operationName ?? op?.name?.value)! } : {}),
      ...(requestId ? { 'request.id': requestId } : {}),
    },
    (() => Promise.resolve(run())) as unknown as () => Promise<Awaited<T>>,
    SpanKind.SERVER,
  );
}

/**
 * Wraps every Query and Mutation field's resolver in a span (child of the operation's span) that is the
 * active span while the resolver runs. Subscription fields are left alone (their resolver runs per event).
 */
export function traceRootFields(schema: GraphQLSchema): void {
  for (const type of [schema.getQueryType(), schema.getMutationType()]) {
    if (!type) continue;
    for (const field of Object.values(type.getFields())) {
      const resolve = field.resolve ?? defaultFieldResolver;
      field.resolve = (source, args, ctx, info) => {
        if (!tracingActive()) return resolve(source, args, ctx, info);
        const op = ctx && typeof ctx === 'object' ? operationSpans.get(ctx) : undefined;
        const parent = op ? trace.setSpan(context.active(), op) : context.active();
        const span = tracer().startSpan(
          `${info.parentType.name}.${info.fieldName}`,
          {
            attributes: {
              'graphql.field.name': info.fieldName,
              'graphql.field.type': info.parentType.name,
              'graphql.field.path': String(info.path.key),
            },
          },
          parent,
        );
        const fail = (e: unknown) => {
          span.recordException(errorForSpan(e));
          span.setStatus({ code: SpanStatusCode.ERROR });
        };
        try {
          const result = context.with(trace.setSpan(parent, span), () => resolve(source, args, ctx, info));
          if (result && typeof (result as PromiseLike<unknown>).then === 'function') {
            return Promise.resolve(result).then(
              (v) => (span.end(), v),
              (e: unknown) => {
                fail(e);
                span.end();
                throw e;
              },
            );
          }
          span.end();
          return result;
        } catch (e) {
          fail(e);
          span.end();
          throw e;
        }
      };
    }
  }
}
