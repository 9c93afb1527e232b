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
