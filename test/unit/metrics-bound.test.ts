/**
 * Bound metric children (src/shared/metrics.ts): what a hot path increments or observes through `bind(...)` reads
 * exactly as the same calls made with label objects — in `/metrics` text and through `get()` — including after a
 * reset and across reads. The bound histogram writes prom-client's own per-label-set record, so this also fails if an
 * upgrade of prom-client changes that record.
 */
import { Counter, Histogram, Registry } from 'prom-client';
import { bindable, bindableHistogram } from '../../src/shared/metrics';

const buckets = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1];
const values = [0, 0.001, 0.005, 0.0051, 0.02, 0.07, 0.3, 0.99, 1, 2.5, 40];

function pair() {
  const plain = new Registry();
  const bound = new Registry();
  const make = (registry: Registry) => ({
    counter: new Counter({ name: 'c_total', help: 'c', labelNames: ['a', 'b'] as const, registers: [registry] }),
    histogram: new Histogram({ name: 'h_seconds', help: 'h', labelNames: ['a', 'b'] as const, buckets, registers: [registry] }),
  });
  const p = make(plain);
  const b = make(bound);
  return { plain, bound, p, b: { counter: bindable(b.counter), histogram: bindableHistogram(b.histogram) } };
}

test('bound children read like labelled calls: /metrics text and get()', async () => {
  const { plain, bound, p, b } = pair();
  for (const [i, v] of values.entries()) {
    const a = i % 3 === 0 ? 'x' : 'y';
    p.counter.inc({ a, b: 'z' }, i + 1);
    b.counter.bind(a, 'z').inc(i + 1);
    p.histogram.observe({ a, b: 'z' }, v);
    b.histogram.bind(a, 'z').observe(v);
  }
  expect(await bound.metrics()).toBe(await plain.metrics());
  // a second round after a read: folded again, not twice
  p.counter.inc({ a: 'x', b: 'z' });
  b.counter.bind('x', 'z').inc();
  p.histogram.observe({ a: 'x', b: 'z' }, 0.2);
  b.histogram.bind('x', 'z').observe(0.2);
  expect(await bound.metrics()).toBe(await plain.metrics());
  expect(await b.histogram.get()).toEqual(await p.histogram.get());
  expect(await b.counter.get()).toEqual(await p.counter.get());
});

test('after a reset, bound children start again from zero', async () => {
  const { plain, bound, p, b } = pair();
  b.histogram.bind('x', 'z').observe(0.3);
  b.counter.bind('x', 'z').inc();
  await bound.metrics();
  bound.resetMetrics();
  b.histogram.bind('x', 'z').observe(0.02);
  b.counter.bind('x', 'z').inc(2);
  p.histogram.observe({ a: 'x', b: 'z' }, 0.02);
  p.counter.inc({ a: 'x', b: 'z' }, 2);
  expect(await bound.metrics()).toBe(await plain.metrics());
});

test('a bound histogram refuses what prom-client refuses', () => {
  const { b } = pair();
  expect(() => b.histogram.bind('x', 'z').observe(NaN)).toThrow(TypeError);
});
