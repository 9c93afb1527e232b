/** Time is injected everywhere so expiry, refresh and watchdogs are tested by moving time, not sleeping. */
export interface Clock {
  /** Milliseconds since the epoch. */
  nowMs(): number;
  now(): Date;
}

export const systemClock: Clock = {
  nowMs: () => Date.now(),
  now: () => new Date(),
};

/** A clock tests move by hand. */
export class ManualClock implements Clock {
  constructor(private ms = Date.parse('2026-01-01T00:00:00Z')) {}
  nowMs(): number {
    return this.ms;
  }
  now(): Date {
    return new Date(this.ms);
  }
  advance(ms: number): void {
    this.ms += ms;
  }
  set(date: Date | number): void {
    this.ms = typeof date === 'number' ? date : date.getTime();
  }
}

/**
 * Whether an instant is one the database stores and compares: a real date in the years 1–9999 UTC (PostgreSQL has
 * no year 0, and JavaScript dates reach far beyond 9999). Instants a client sends (filters, cursors) are checked with
 * it before they reach a query.
 */
export function inStoredRange(d: Date): boolean {
  const year = d.getUTCFullYear();
  return !Number.isNaN(d.getTime()) && year >= 1 && year <= 9999;
}
