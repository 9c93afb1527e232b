/**
 * The short run of the chaos suite inside `npm test` (CI): the same scenarios as `npm run chaos`
 * (test/chaos/run.ts), CI sizes, seed 7 in CI (CI=true) and random elsewhere unless CHAOS_SEED is set — printed, named in every
 * failure so that `CHAOS_SEED=<seed> npm run chaos` reproduces it. CHAOS_LONG=1 gives the full sizes.
 */
import { formatLine, isLong, scenarioSeed, seedFromEnv } from './lib/common';
import { SCENARIOS } from './scenarios';

const seed = seedFromEnv();
const long = isLong();

beforeAll(() => {
  console.log(`chaos: seed ${seed}; reproduce with CHAOS_SEED=${seed}${long ? ' CHAOS_LONG=1' : ''} npm run chaos`);
});

for (const s of SCENARIOS) {
  test(
    `${s.id}. ${s.name}`,
    async () => {
      const t0 = Date.now();
      const r = { ...(await s.run({ seed: scenarioSeed(seed, s.id), long, log: () => undefined })), ms: 0 };
      r.ms = Date.now() - t0;

      console.log([formatLine(r), ...(r.known ?? []).map((k) => `    KNOWN BUG (seed ${seed}): ${k}`)].join('\n'));
      if (r.violations.length)
        throw new Error(`seed ${seed} (CHAOS_SEED=${seed} CHAOS_ONLY=${s.id} npm run chaos):\n${r.violations.slice(0, 30).join('\n')}`);
    },
    long ? 3_600_000 : 300_000,
  );
}
