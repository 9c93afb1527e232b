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
 * Bounded: the first `max` distinct texts of the process get a name (`bff_<n>`, one per text: node-postgres
 * refuses one name for two texts); any later text is sent unnamed, as before, and not remembered. So each
 * connection holds at most `max` prepared statements, whatever texts the process issues.
 */
/** The default bound: the service issues a few dozen distinct texts in all. */
export const DEFAULT_PREPARED_STATEMENTS = 256;

export type StatementNamer = (query: { sql: string }) => string | undefined;

export function statementNamer(max: number): StatementNamer | undefined {
  if (max <= 0) return undefined;
  const names = new Map<string, string>();
  return ({ sql }) => {
    let name = names.get(sql);
    if (name === undefined && names.size < max) names.set(sql, (name = `bff_${names.size + 1}`));
    return name;
  };
}
