import type { ApolloServerPlugin } from '@apollo/server';
import type { Metrics } from '../shared/metrics';

const NAME_RE = /^[A-Za-z_][A-Za-z0-9_]{0,63}$/;
const MAX_NAMES = 500;

/** Counts and times every operation by name and type. Names are bounded so clients cannot explode cardinality. */
export function metricsPlugin(metrics: Metrics): ApolloServerPlugin {
  const seen = new Set<string>();
  const label = (name: string | null | undefined): string => {
    if (!name) return 'anonymous';
    if (!NAME_RE.test(name)) return 'invalid';
    if (seen.has(name)) return name;
    if (seen.size >= MAX_NAMES) return 'other';
    seen.add(name);
    return name;
  };
  return {
    async requestDidStart() {
      const started = process.hrtime.bigint();
      return {
        async willSendResponse(rc) {
          const operation = label(rc.operationName ?? rc.operation?.name?.value);
          const type = rc.operation?.operation ?? 'unknown';
          const outcome = rc.errors?.length
            ? 'error'
            : rc.response.body.kind === 'single' && rc.response.body.singleResult.errors?.length
              ? 'error'
              : 'ok';
          const seconds = Number(process.hrtime.bigint() - started) / 1e9;
          metrics.graphqlRequests.inc({ operation, type, outcome });
          metrics.graphqlDuration.observe({ operation, type }, seconds);
        },
      };
    },
  };
}
