/**
 * Node's process metrics are collected once per process, on a registry of their own: prom-client's collector keeps
 * a GC observer for good that holds the registry it was given, so an instance's own registry must never be it (or
 * every instance built — tests build many — would stay in memory with all its metrics' callbacks reach).
 */
import { Metrics } from '../../src/shared/metrics';

test('/metrics text: the instance’s metrics, then the process’s, which live on no instance registry', async () => {
  const a = new Metrics();
  const b = new Metrics();
  for (const m of [a, b]) {
    expect(m.registry.getSingleMetric('process_cpu_user_seconds_total')).toBeUndefined();
    expect(m.registry.getSingleMetric('nodejs_gc_duration_seconds')).toBeUndefined();
    const text = await m.text();
    expect(text).toContain('graphql_requests_total');
    expect(text).toContain('process_cpu_user_seconds_total');
    expect(text.match(/^# TYPE process_cpu_user_seconds_total /gm)).toHaveLength(1);
  }
});

test('without default metrics: only the instance’s', async () => {
  const text = await new Metrics({ defaultMetrics: false }).text();
  expect(text).toContain('graphql_requests_total');
  expect(text).not.toContain('process_cpu_user_seconds_total');
});
