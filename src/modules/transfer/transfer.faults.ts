/**
 * Test-only crash hook for the saga: SAGA_CRASH_AT=<step>:<before|after> (e.g. "authorize:after") makes the
 * process SIGKILL itself at that boundary — after the intent row is written and before the upstream call
 * ("before"), or after the upstream call returned and before its result is recorded ("after"). Never honoured
 * in production (config refuses it there). Steps: check, authorize, capture, void, cancel (the platform's), refund.
 */

export interface CrashHook {
  at(step: string, phase: 'before' | 'after'): void;
}

export const noCrash: CrashHook = { at: () => undefined };

export function crashHook(spec: string | null, production: boolean): CrashHook {
  if (!spec || production) return noCrash;
  return {
    at(step, phase) {
      if (`${step}:${phase}` === spec) process.kill(process.pid, 'SIGKILL');
    },
  };
}
