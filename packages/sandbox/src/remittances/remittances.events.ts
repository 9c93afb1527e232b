/** Event names the simulated platform emits (current generation) and how subscriptions match them. */

export const EVENT_NAMES = [
  'TransactionStatusChanged',
  'TransactionComplianceStatusChangedEvent',
  'TransactionPayoutStatusChanged',
  'DocumentUpdatedEvents',
  'AgentUpdatedEvents',
] as const;
export type EventName = (typeof EVENT_NAMES)[number];

const KNOWN = new Set(EVENT_NAMES.map((n) => n.toLowerCase()));

/** Names match case-insensitively, so the legacy spellings documentUpdatedEvents/agentUpdatedEvents are valid too. */
export function isKnownEventName(name: string): boolean {
  return KNOWN.has(name.toLowerCase());
}

/** The spelling a subscription registered for `event`, or null when it does not subscribe to it. */
export function registeredSpelling(events: readonly string[], event: EventName): string | null {
  const wanted = event.toLowerCase();
  return events.find((e) => e.toLowerCase() === wanted) ?? null;
}
