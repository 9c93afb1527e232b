/** Small helpers shared by the simulated remittances platform. */
import { createHash, randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';

export const uuid = (): string => randomUUID();

export function sha256Hex(value: string): string {
  return createHash('sha256').update(value, 'utf8').digest('hex');
}

/** Constant-time comparison of a presented secret with a stored sha256 hash. */
export function matchesHash(presented: string, storedHashHex: string): boolean {
  const a = Buffer.from(sha256Hex(presented), 'hex');
  const b = Buffer.from(storedHashHex, 'hex');
  return a.length === b.length && timingSafeEqual(a, b);
}

export function randomSecret(bytes = 32): string {
  return randomBytes(bytes).toString('base64');
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function optionalString(value: unknown): string | null {
  return typeof value === 'string' && value.length > 0 ? value : null;
}

/**
 * setTimeout with bookkeeping so that reset and server close can cancel everything still scheduled.
 * Timers are unref'd: the sandbox server keeps the process alive, a finished test does not hang on them.
 */
export class TimerSet {
  private readonly timers = new Set<NodeJS.Timeout>();

  after(ms: number, fn: () => void): NodeJS.Timeout {
    const t = setTimeout(
      () => {
        this.timers.delete(t);
        fn();
      },
      Math.max(0, ms),
    );
    t.unref();
    this.timers.add(t);
    return t;
  }

  cancel(t: NodeJS.Timeout | null | undefined): void {
    if (!t) return;
    clearTimeout(t);
    this.timers.delete(t);
  }

  clear(): void {
    for (const t of this.timers) clearTimeout(t);
    this.timers.clear();
  }
}
