/**
 * `npm run bench`: runs the seven benchmarks (7: back-office search at BENCH_SEARCH_ROWS transfers, test/bench/search.ts), prints the table, writes bench-results.json (BENCH_OUTPUT).
 *
 *   BENCH_DURATION_S=10 BENCH_WARMUP_S=3 BENCH_ROUNDS=3 BENCH_CONNECTIONS=100
 *   BENCH_SUBSCRIBERS=1000 (or --subscribers=10000)  BENCH_SAGA_TRANSFERS=300  BENCH_LATENCY_USERS=20  BENCH_ONLY=1,2,3,4,5,6
 *   BENCH_DATABASE=pglite (skip PostgreSQL even when it answers)  BENCH_NO_PIN=1 (no taskset)
 */
import { writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { defaultOptions, formatTable, postgresUrl, runBenchmarks } from './bench';
import { formatSearchTable, searchBenchmark } from './search';
import { ROOT } from './rpc';

async function main() {
  const o = defaultOptions();
  for (const a of process.argv.slice(2)) {
    const [k, v] = a.replace(/^--/, '').split('=');
    if (k === 'subscribers') o.subscribers = Number(v ?? 10_000);
    else if (k === 'duration') o.durationS = Number(v);
    else if (k === 'only') o.only = (v ?? '').split(',').map(Number).filter(Boolean);
    else if (k === 'rounds') o.rounds = Number(v);
    else throw new Error(`unknown option ${a} (--subscribers=N --duration=S --rounds=N --only=1,2,…)`);
  }
  const t0 = Date.now();
  const report = await runBenchmarks({ ...o, only: o.only.filter((n) => n !== 7) });
  const search = o.only.includes(7) ? await searchBenchmark({ postgresUrl: await postgresUrl() }) : null;
  const table = formatTable(report) + (search ? `\n\n${formatSearchTable(search)}` : '');
  const out = process.env.BENCH_OUTPUT ?? path.join(ROOT, 'bench-results.json');
  writeFileSync(out, `${JSON.stringify({ ...report, search, table }, null, 2)}\n`);
  const la = (x: number[]) => x.map((v) => v.toFixed(2)).join(' ');
  process.stdout.write(
    `\n${table}\n\nmachine: ${report.machine.cpu}, ${report.machine.cores} cores, ${report.machine.memoryGiB} GiB, Node ${report.machine.node}; ${report.pinning.note}\n` +
      `database: ${report.database}\nload average (1/5/15 min): before ${la(report.load.before)}, after ${la(report.load.after)}; uptime: ${os.uptime().toFixed(0)} s\n` +
      `${(Date.now() - t0) / 1000} s in all; results in ${path.relative(process.cwd(), out) || out}\n`,
  );
}

main().then(
  () => process.exit(0),
  (e: unknown) => {
    console.error(e);
    process.exit(1);
  },
);
