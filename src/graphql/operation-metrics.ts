import type { OperationDefinitionNode } from 'graphql';
import type { BoundCounter, BoundHistogram, Metrics } from '../shared/metrics';

const NAME_RE = /^[A-Za-z_][A-Za-z0-9_]{0,63}$/;
const MAX_NAMES = 500;

/**
 * Counts and times every GraphQL request over HTTP by its operation's name and type (`record(operation, failed,
 * startedMs)`, called when the answer is written: graphql.http.ts). A request answered before the edge's gateway saw
 * its operation (it did not parse or validate, it was malformed or sent with a method Apollo refuses — a mutation
 * over GET included —, its caller was refused) counts as `anonymous`, type `unknown`. Names are bounded so clients
 * cannot explode cardinality.
 */
export function operationMetrics(
  metrics: Metrics,
): (operation: OperationDefinitionNode | undefined, failed: boolean, startedMs: number) => void {
  const seen = new Set<string>();
  const label = (name: string | undefined): string => {
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
  // the label set of a parsed operation, worked out once: Apollo keeps one parsed document per distinct text
  const byOperation = new WeakMap<OperationDefinitionNode, Bound>();
  let unknown: Bound | undefined;
  return (operation, failed, startedMs) => {
    let bound: Bound | undefined;
    if (operation) {
      bound = byOperation.get(operation);
      if (!bound) byOperation.set(operation, (bound = bind(label(operation.name?.value), operation.operation)));
    } else bound = unknown ??= bind('anonymous', 'unknown');
    (failed ? bound.error : bound.ok).inc();
    bound.duration.observe((performance.now() - startedMs) / 1000);
  };
}
