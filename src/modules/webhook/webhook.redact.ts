/**
 * A webhook payload as back-office may read it: the ids, statuses, event names, times and amounts that say what the
 * event was about are kept; any other text (names, e-mails, documents, phone numbers, addresses, free-form messages)
 * becomes "[redacted]" — a payload is attacker-controlled input and may carry anyone's personal data.
 */
const KEEP = /(^id$|Id$|ID$|^event$|^type$|[sS]tatus$|[aA]t$|^timestamp$|^currency|[cC]urrency$|[aA]mount$|^total$|^reason[cC]ode$|^code$)/;
const MAX_DEPTH = 6;
const MAX_ITEMS = 50;

/** Whose account an event claims to come from is not shown either (another tenant's id in a forged event). */
const HIDE = /tenant/i;

export function redactPayload(value: unknown, key = '', depth = 0): unknown {
  if (value === null || typeof value === 'boolean') return value;
  if (HIDE.test(key)) return '[redacted]';
  if (typeof value === 'number') return KEEP.test(key) ? value : '[redacted]';
  if (typeof value === 'string') return KEEP.test(key) && value.length <= 200 ? value : '[redacted]';
  if (depth >= MAX_DEPTH) return '[redacted]';
  if (Array.isArray(value)) return value.slice(0, MAX_ITEMS).map((v) => redactPayload(v, key, depth + 1));
  if (typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value).slice(0, MAX_ITEMS)) out[k] = redactPayload(v, k, depth + 1);
    return out;
  }
  return '[redacted]';
}
