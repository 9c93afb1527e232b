/**
 * `node -r ./test/bench/register.cjs test/bench/profile-top.ts <file.cpuprofile> [n] [--skip=<s>] [--min-run=<s>] [--inclusive]`:
 * where a server's busy time went under load. Shares are of the busy samples (idle excluded) of the measured runs
 * (see below how they are found). By package, then the top frames by self time, then (with `--inclusive`) by
 * inclusive time: everything a frame and its callees cost.
 */
import { readFileSync } from 'node:fs';

interface Node {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  hitCount: number;
  children?: number[];
}
const args = process.argv.slice(2);
const file = args.find((a) => !a.startsWith('--') && !/^\d+$/.test(a));
if (!file) throw new Error('usage: profile-top.ts <file.cpuprofile> [n] [--skip=<seconds>] [--min-run=<seconds>] [--inclusive]');
const n = Number(args.find((a) => /^\d+$/.test(a)) ?? 25);
const skipArg = args.find((a) => a.startsWith('--skip='));
const inclusive = args.includes('--inclusive');
const prof = JSON.parse(readFileSync(file, 'utf8')) as { nodes: Node[]; samples: number[]; timeDeltas: number[] };

const byId = new Map(prof.nodes.map((x) => [x.id, x]));
const parent = new Map<number, number>();
for (const x of prof.nodes) for (const c of x.children ?? []) parent.set(c, x.id);
const isIdle = (id: number) => byId.get(id)?.callFrame.functionName === '(idle)';

// sample times (µs from the profile's start)
const at: number[] = [];
let t = 0;
for (const d of prof.timeDeltas) at.push((t += d));
// which samples count: `--skip=<s>`: every sample after the first s seconds; default: the seconds in which the
// process was busy more than half the time, in runs of at least `--min-run` (4) consecutive seconds, the first
// run (start-up: module loading, migrations, seeding) excluded — i.e. the measured runs under load
const second = (i: number) => Math.floor(at[i]! / 1e6);
let counted: (i: number) => boolean;
let note: string;
if (skipArg) {
  const fromUs = Number(skipArg.slice('--skip='.length)) * 1e6;
  counted = (i) => at[i]! >= fromUs;
  note = `from ${fromUs / 1e6} s`;
} else {
  const minRun = Number(args.find((a) => a.startsWith('--min-run='))?.slice('--min-run='.length) ?? 4);
  const perSecond = new Map<number, { busy: number; all: number }>();
  prof.samples.forEach((id, i) => {
    const c = perSecond.get(second(i)) ?? { busy: 0, all: 0 };
    c.all++;
    if (!isIdle(id)) c.busy++;
    perSecond.set(second(i), c);
  });
  const last = Math.max(...perSecond.keys());
  const runs: [number, number][] = [];
  for (let s = 0, start = -1; s <= last + 1; s++) {
    const c = perSecond.get(s);
    const busy = !!c && c.busy / c.all > 0.5;
    if (busy && start < 0) start = s;
    if (!busy && start >= 0) {
      runs.push([start, s - 1]);
      start = -1;
    }
  }
  const chosen = runs.slice(runs[0]?.[0] === 0 ? 1 : 0).filter(([a, b]) => b - a + 1 >= minRun);
  const inSeconds = new Set(chosen.flatMap(([a, b]) => Array.from({ length: b - a + 1 }, (_, k) => a + k)));
  counted = (i) => inSeconds.has(second(i));
  note = `seconds ${chosen.map(([a, b]) => `${a}–${b}`).join(', ') || '(none: pass --skip=<s>)'}`;
}

const key = (x: Node) => {
  const f = x.callFrame;
  const where = f.url.replace(/^.*node_modules\//, '').replace(/^file:\/\/.*\/(dist|src)\//, '$1/');
  return `${f.functionName || '(anonymous)'} ${where}:${f.lineNumber + 1}`;
};
const pkgOf = (x: Node) => {
  const f = x.callFrame;
  return f.url.includes('node_modules/')
    ? f.url.replace(/^.*node_modules\/((@[^/]+\/)?[^/]+).*$/, '$1')
    : f.url.includes('/dist/')
      ? 'dist (ours)'
      : f.url.startsWith('node:')
        ? 'node core'
        : f.functionName.startsWith('(')
          ? f.functionName
          : 'other (native, generated)';
};

const self = new Map<string, number>();
const pkg = new Map<string, number>();
const total = new Map<string, number>();
let busy = 0;
let window = 0;
prof.samples.forEach((id, i) => {
  if (!counted(i)) return;
  window++;
  if (isIdle(id)) return;
  busy++;
  const x = byId.get(id)!;
  self.set(key(x), (self.get(key(x)) ?? 0) + 1);
  pkg.set(pkgOf(x), (pkg.get(pkgOf(x)) ?? 0) + 1);
  if (inclusive) {
    const seen = new Set<string>();
    for (let cur: number | undefined = id; cur !== undefined; cur = parent.get(cur)) {
      const k = key(byId.get(cur)!);
      if (seen.has(k)) continue;
      seen.add(k);
      total.set(k, (total.get(k) ?? 0) + 1);
    }
  }
});

const top = (m: Map<string, number>, count: number) =>
  [...m]
    .sort((a, b) => b[1] - a[1])
    .slice(0, count)
    .map(([k, v]) => `${((v / busy) * 100).toFixed(1).padStart(5)}%  ${k}`)
    .join('\n');
console.log(
  `${note}: ${window} samples, ${busy} busy (${((busy / Math.max(1, window)) * 100).toFixed(0)} %); shares of the busy samples\n\n` +
    `by package:\n${top(pkg, 16)}\n\ntop frames (self):\n${top(self, n)}` +
    (inclusive ? `\n\ntop frames (inclusive):\n${top(total, n)}` : ''),
);
