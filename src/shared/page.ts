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
function pageWindow(offset: number, limit: number): { size: number; pages: number[]; skip: number } {
  const first = Math.floor(offset / limit);
  const skip = offset - first * limit;
  return { size: limit, pages: skip === 0 ? [first] : [first, first + 1], skip };
}

/**
 * A window of an upstream list served in fixed, zero-based pages: the page holding `offset`, then the next one only
 * when the window spans two and the first was full; the wanted slice of it, each item turned by `read.item`. Not
 * async: a window of one page (most requests) is one `then` on the upstream call.
 */
export function windowOfPages<P, U, T>(
  { offset, limit }: PageWindow,
  fetch: (page: number, size: number) => Promise<P>,
  read: { items: (p: P) => U[]; total: (p: P) => number; item: (u: U) => T },
): Promise<OffsetPage<T>> {
  const { size, pages, skip } = pageWindow(offset, limit);
  const result = (first: P, items: U[]): OffsetPage<T> => ({
    items: items.slice(skip, skip + limit).map(read.item),
    offset,
    total: read.total(first),
  });
  return fetch(pages[0]!, size).then((first) => {
    const items = read.items(first);
    if (pages.length === 1 || items.length < size) return result(first, items);
    return fetch(pages[1]!, size).then((second) => result(first, items.concat(read.items(second))));
  });
}
