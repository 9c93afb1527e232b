/**
 * docs/operations.md lists every metric family the service registers (name, type, labels): this test fails when a
 * metric is registered without a row there, a row's type or labels differ from the registration, or a row names a
 * metric that no longer exists. Metrics are built the way the service builds them — the `Metrics` registry
 * (src/shared/metrics.ts), plus the token cache's family, registered on it on demand — and every metric is created
 * in src/shared/metrics.ts only (`new Counter|Gauge|Histogram|Summary` anywhere else fails). No database.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { Registry } from 'prom-client';
import { Metrics, tokenCacheCounter } from '../../src/shared/metrics';

const root = join(__dirname, '..', '..');
const doc = readFileSync(join(root, 'docs', 'operations.md'), 'utf8');

interface Row {
  type: string;
  labels: string[];
}

/** The table between `<!-- metrics:begin -->` and `<!-- metrics:end -->`: `| \`name\` | type | \`a\`, \`b\` (or —) | meaning |`. */
function documentedMetrics(): Map<string, Row> {
  const m = /<!-- metrics:begin -->\n([\s\S]*?)\n<!-- metrics:end -->/.exec(doc);
  if (!m) throw new Error('docs/operations.md has no <!-- metrics:begin/end --> table');
  const rows = new Map<string, Row>();
  for (const line of m[1]!.split('\n')) {
    const cells = /^\| `([a-z_:]+)` \| (\w+) \| ([^|]*) \|/.exec(line);
    if (!cells) continue;
    const labels = cells[3]!.trim() === '—' ? [] : [...cells[3]!.matchAll(/`([a-z_]+)`/g)].map((l) => l[1]!);
    if (rows.has(cells[1]!)) throw new Error(`${cells[1]} is documented twice`);
    rows.set(cells[1]!, { type: cells[2]!, labels });
  }
  return rows;
}

/** Every family of a service instance's registry, built as src/app.ts builds it (without Node's default metrics). */
function registeredMetrics(): Map<string, Row> {
  const metrics = new Metrics({ defaultMetrics: false });
  tokenCacheCounter(metrics.registry);
  return familiesOf(metrics.registry);
}

function familiesOf(registry: Registry): Map<string, Row> {
  const out = new Map<string, Row>();
  for (const metric of registry.getMetricsAsArray()) {
    const m = metric as unknown as { name: string; type: string; labelNames?: readonly string[] };
    out.set(m.name, { type: m.type, labels: [...(m.labelNames ?? [])] });
  }
  return out;
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) return name === 'generated' ? [] : sourceFiles(p);
    return p.endsWith('.ts') ? [p] : [];
  });
}

test('every registered metric family is documented with its type and labels', () => {
  const documented = documentedMetrics();
  const registered = registeredMetrics();
  expect(registered.size).toBeGreaterThan(10);
  const problems: string[] = [];
  for (const [name, r] of registered) {
    const d = documented.get(name);
    if (!d) problems.push(`${name}: registered, not in docs/operations.md`);
    else if (d.type !== r.type || d.labels.join(',') !== r.labels.join(','))
      problems.push(`${name}: documented ${d.type} {${d.labels.join(',')}}, registered ${r.type} {${r.labels.join(',')}}`);
  }
  for (const name of documented.keys()) if (!registered.has(name)) problems.push(`${name}: documented, not registered`);
  expect(problems).toEqual([]);
});

test('metrics are created only in src/shared/metrics.ts, each of them documented', () => {
  const documented = documentedMetrics();
  const created: string[] = [];
  const elsewhere: string[] = [];
  for (const file of sourceFiles(join(root, 'src'))) {
    const text = readFileSync(file, 'utf8');
    if (!file.endsWith(join('shared', 'metrics.ts')) && /new (?:client\.)?(?:Counter|Gauge|Histogram|Summary)\b/.test(text))
      elsewhere.push(file);
    for (const m of text.matchAll(/new (?:Counter|Gauge|Histogram|Summary)(?:<[^>]*>)?\(\{\s*name:\s*'([a-z_:]+)'/g)) created.push(m[1]!);
  }
  expect(elsewhere).toEqual([]);
  expect(created.length).toBeGreaterThan(10);
  expect(created.filter((n) => !documented.has(n))).toEqual([]);
});

test("Node's default process metrics are the process_* and nodejs_* families the document names", async () => {
  const ours = registeredMetrics();
  // what GET /metrics serves with the default metrics on: every family named by a `# TYPE` line
  const text = await new Metrics({ defaultMetrics: true }).text();
  const all = new Set([...text.matchAll(/^# TYPE (\S+) /gm)].map((m) => m[1]!));
  const defaults = [...all].filter((n) => !ours.has(n));
  expect(defaults.length).toBeGreaterThan(0);
  expect(defaults.filter((n) => !/^(process|nodejs)_/.test(n))).toEqual([]);
  expect(doc).toContain('`process_*`');
  expect(doc).toContain('`nodejs_*`');
});
