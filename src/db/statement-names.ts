/**
 * Names for PostgreSQL prepared statements (DATABASE_PREPARED_STATEMENTS).
 *
 * Without a name, node-postgres sends every statement as an unnamed one: PostgreSQL parses, analyses and plans its
 * text at every call. The saga's statements are a few dozen texts (CTEs that update a transfer, record its audit
 * event and the delivery's inbox row at once), run thousands of times a minute: parsing and planning them again
 * was about half of PostgreSQL's CPU per transfer. A named statement is parsed once per connection and reused
 * (node-postgres remembers, per connection, which names it has prepared); PostgreSQL then plans it with the
 * parameters' values (custom plans) or, once that is no cheaper, with a generic plan it keeps.
 *
 * A text is named on its second use (a text used once — e.g. an `IN (…)` list of a length seen once — never takes
 * a slot; the candidates are an LRU of 4 × `max` texts), `bff_<n>`, one name per text (node-postgres refuses one name
 * for two texts). Bounded: at most `max` texts of the process are named; any other is sent unnamed, as without this,
 * and `onFull` is called once when a text would have been named but the slots are taken. So each connection holds at
 * most `max` prepared statements, whatever texts the process issues.
 */
import { LRUCache } from 'lru-cache';

/** The default bound: the service issues a few dozen distinct texts in all. */
export const DEFAULT_PREPARED_STATEMENTS = 256;

export type StatementNamer = (query: { sql: string }) => string | undefined;

export function statementNamer(max: number, onFull?: () => void): StatementNamer | undefined {
  if (max <= 0) return undefined;
  const names = new Map<string, string>();
  const seenOnce = new LRUCache<string, true>({ max: 4 * max });
  let full = false;
  return ({ sql }) => {
    const name = names.get(sql);
    if (name !== undefined) return name;
    if (!seenOnce.has(sql)) {
      seenOnce.set(sql, true);
      return undefined;
    }
    if (names.size >= max) {
      if (!full) onFull?.();
      full = true;
      return undefined;
    }
    seenOnce.delete(sql);
    const n = `bff_${names.size + 1}`;
    names.set(sql, n);
    return n;
  };
}
