/**
 * Pages as services see them (no GraphQL): which slice is wanted, and the slice with where it sits. The GraphQL
 * edge turns `first`/`after` into a PageWindow and an OffsetPage into a Relay connection (graphql/relay.ts).
 */
export interface PageWindow {
  /** Zero-based position of the first wanted item. */
  offset: number;
  /** How many items are wanted. */
  limit: number;
}

export interface OffsetPage<T> {
  items: T[];
  offset: number;
  /** How many items the whole list has. */
  total: number;
}

/**
 * The upstream pages (zero-based, fixed size = limit) covering items [offset, offset + limit): one page when
 * the offset is aligned, two otherwise.
 */
export function pageWindow(offset: number, limit: number): { size: number; pages: number[]; skip: number } {
  const first = Math.floor(offset / limit);
  const skip = offset - first * limit;
  return { size: limit, pages: skip === 0 ? [first] : [first, first + 1], skip };
}
