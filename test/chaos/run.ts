/**
 * `npm run chaos` — the fault-injection suite, one line per scenario.
 *
 *   CHAOS_SEED=<int>   reproduce a run (printed at the start and with every violation; random otherwise)
 *   CHAOS_LONG=1       the full sizes (200 transfers and ≥ 20 SIGKILLs, 500 transfers with 30 % dropped
 *                      answers, 1,000 concurrent duplicate mutations, Redis stopped 30 s, …)
 *   CHAOS_ONLY=1,3     run only these scenarios
 *   CHAOS_VERBOSE=1    progress lines on stderr
 *
 * Exit code 1 when any scenario found a violation (or crashed); the seed that reproduces it is printed.
 */
import { formatLine, isLong, scenarioSeed, seedFromEnv, type ScenarioResult } from './lib/common';
import { SCENARIOS } from './scenarios';

async function main(): Promise<number> {
  const seed = seedFromEnv();
  const long = isLong();
  const only = (process.env.CHAOS_ONLY ?? '')
    .split(',')
    .map((s) => Number(s.trim()))
    .filter(Boolean);
  const verbose = /^(1|true)$/.test(process.env.CHAOS_VERBOSE ?? '');
  const repro = `CHAOS_SEED=${seed}${long ? ' CHAOS_LONG=1' : ''} npm run chaos`;
  process.stdout.write(`chaos: seed ${seed}, ${long ? 'long' : 'short'} run; reproduce with: ${repro}\n`);
  const results: ScenarioResult[] = [];
  for (const s of SCENARIOS) {
    if (only.length && !only.includes(s.id)) continue;
    const t0 = Date.now();
    let r: ScenarioResult;
    try {
      const out = await s.run({ seed: scenarioSeed(seed, s.id), long, log: (m) => verbose && process.stderr.write(`  [${s.id}] ${m}\n`) });
      r = { ...out, ms: Date.now() - t0 };
    } catch (e) {
      r = {
        id: s.id,
        name: s.name,
        operations: 0,
        faults: 0,
        figures: {},
        violations: [`scenario crashed: ${(e as Error).stack ?? e}`],
        ms: Date.now() - t0,
      };
    }
    results.push(r);
    process.stdout.write(`${formatLine(r)}\n`);
    for (const k of r.known ?? []) process.stdout.write(`    KNOWN BUG (seed ${seed}): ${k}\n`);
    for (const v of r.violations.slice(0, 20)) process.stdout.write(`    VIOLATION (seed ${seed}): ${v}\n`);
    if (r.violations.length > 20) process.stdout.write(`    … and ${r.violations.length - 20} more\n`);
  }
  const bad = results.filter((r) => r.violations.length);
  process.stdout.write(
    bad.length
      ? `chaos: ${bad.length} scenario(s) with violations — reproduce with: ${only.length ? `CHAOS_ONLY=${bad.map((b) => b.id).join(',')} ` : ''}${repro}\n`
      : `chaos: ${results.length} scenarios, 0 violations (seed ${seed})\n`,
  );
  return bad.length ? 1 : 0;
}

main().then(
  (code) => process.exit(code),
  (e: unknown) => {
    console.error(e);
    process.exit(1);
  },
);
