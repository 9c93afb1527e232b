/**
 * The Node lines the service supports are the current LTS (24) and the previous one (22), in every place that names
 * one: `engines`, the Docker image and the Node `.ci/run` runs the suite on.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

const root = join(__dirname, '..', '..');
const read = (p: string) => readFileSync(join(root, p), 'utf8');

/** Whether a version satisfies `engines.node` as written here: `^22.13.0 || >=24.0.0`-style ranges only. */
function satisfies(range: string, version: string): boolean {
  const v = version.split('.').map(Number) as [number, number, number];
  const cmp = (a: number[], b: number[]) => a[0]! - b[0]! || a[1]! - b[1]! || a[2]! - b[2]!;
  return range.split('||').some((part) => {
    const m = /^\s*(\^|>=)(\d+)\.(\d+)\.(\d+)\s*$/.exec(part);
    if (!m) throw new Error(`engines.node: unexpected range ${part}`);
    const base = [Number(m[2]), Number(m[3]), Number(m[4])];
    return m[1] === '>=' ? cmp(v, base) >= 0 : v[0] === base[0] && cmp(v, base) >= 0;
  });
}

test('engines: Node 22 (from 22.13) and 24, not the end-of-life 20', () => {
  const range = (JSON.parse(read('package.json')) as { engines: { node: string } }).engines.node;
  for (const ok of ['22.13.0', '22.23.0', '24.0.0', '24.21.0']) expect([ok, satisfies(range, ok)]).toEqual([ok, true]);
  for (const no of ['20.18.1', '20.20.2', '22.12.0', '18.20.0']) expect([no, satisfies(range, no)]).toEqual([no, false]);
});

test('the Docker image and CI run on Node 24', () => {
  expect(read('docker/Dockerfile')).toMatch(/^ARG NODE_VERSION=24(\.\d+)*$/m);
  expect(read('.ci/run')).toContain('NODE_MAJOR=${CI_NODE_MAJOR:-24}');
});
