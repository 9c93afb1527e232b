import type { GraphQLRequestContextWillSendResponse } from '@apollo/server';
import type { Metrics } from '../shared/metrics';
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
  return (rc, startedMs) => {
    const operation = label(rc.operationName ?? rc.operation?.name?.value);
    const type = rc.operation?.operation ?? 'unknown';
    const outcome = rc.errors?.length
      ? 'error'
      : rc.response.body.kind === 'single' && rc.response.body.singleResult.errors?.length
        ? 'error'
        : 'ok';
    metrics.graphqlRequests.bind(operation, type, outcome).inc();
    metrics.graphqlDuration.bind(operation, type).observe((performance.now() - startedMs) / 1000);
  };
}
