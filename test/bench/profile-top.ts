/** `node -r ./test/bench/register.cjs test/bench/profile-top.ts <file.cpuprofile> [n]`: top self-time frames. */
import { readFileSync } from 'node:fs';

interface Node {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  hitCount: number;
}
const prof = JSON.parse(readFileSync(process.argv[2]!, 'utf8')) as { nodes: Node[]; samples: number[] };
const total = prof.samples.length;
const self = new Map<string, number>();
const pkg = new Map<string, number>();
for (const n of prof.nodes) {
  const f = n.callFrame;
  const where = f.url.replace(/^.*node_modules\//, '').replace(/^file:\/\/.*\/main\//, '');
  const key = `${f.functionName || '(anonymous)'} ${where}:${f.lineNumber + 1}`;
  self.set(key, (self.get(key) ?? 0) + n.hitCount);
  const p = f.url.includes('node_modules/')
    ? f.url.replace(/^.*node_modules\/((@[^/]+\/)?[^/]+).*$/, '$1')
    : f.url.includes('/dist/')
      ? 'dist (ours)'
      : f.url.startsWith('node:')
        ? 'node core'
        : f.functionName.startsWith('(')
          ? f.functionName
          : 'other';
  pkg.set(p, (pkg.get(p) ?? 0) + n.hitCount);
}
const top = (m: Map<string, number>, n: number) =>
  [...m]
    .sort((a, b) => b[1] - a[1])
    .slice(0, n)
    .map(([k, v]) => `${((v / total) * 100).toFixed(1).padStart(5)}%  ${k}`)
    .join('\n');
console.log(`by package:\n${top(pkg, 15)}\n\ntop frames (self):\n${top(self, Number(process.argv[3] ?? 25))}`);
