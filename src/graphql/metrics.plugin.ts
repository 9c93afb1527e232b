import type { GraphQLRequestContextWillSendResponse } from '@apollo/server';
import type { OperationDefinitionNode } from 'graphql';
import type { BoundCounter, BoundHistogram, Metrics } from '../shared/metrics';
import type { GraphQLContext } from './context';

const NAME_RE = /^[A-Za-z_][A-Za-z0-9_]{0,63}$/;
const MAX_NAMES = 500;

/**
 * Counts and times every operation by name and type (part of the edge plugin, edge.plugin.ts): `record(rc, startedMs)`
 * when the response is sent. Names are bounded so clients cannot explode cardinality.
 */
export function operationMetrics(metrics: Metrics): (rc: GraphQLRequestContextWillSendResponse<GraphQLContext>, startedMs: number) => void {
  const seen = new Set<string>();
  const label = (name: string | null | undefined): string => {
    if (!name) return 'anonymous';
    if (seen.has(name)) return name;
    if (!NAME_RE.test(name)) return 'invalid';
    if (seen.size >= MAX_NAMES) return 'other';
    seen.add(name);
    return name;
  };
  type Bound = { ok: BoundCounter; error: BoundCounter; duration: BoundHistogram };
  const bind = (operation: string, type: string): Bound => ({
    ok: metrics.graphqlRequests.bind(operation, type, 'ok'),
    error: metrics.graphqlRequests.bind(operation, type, 'error'),
    duration: metrics.graphqlDuration.bind(operation, type),
  });
  // the label set of a parsed operation, worked out once: Apollo keeps one parsed document per distinct text, and
  // once it has resolved the operation, the request's operation name is that operation's own
  const byOperation = new WeakMap<OperationDefinitionNode, Bound>();
  return (rc, startedMs) => {
    let bound: Bound;
    const op = rc.operation;
    if (op) {
      const known = byOperation.get(op);
      if (known) bound = known;
      else byOperation.set(op, (bound = bind(label(op.name?.value), op.operation)));
    } else bound = bind(label(rc.operationName), 'unknown');
    const failed = rc.errors?.length || (rc.response.body.kind === 'single' && rc.response.body.singleResult.errors?.length);
    (failed ? bound.error : bound.ok).inc();
    bound.duration.observe((performance.now() - startedMs) / 1000);
  };
}
