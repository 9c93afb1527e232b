import { Field, ObjectType } from 'type-graphql';
import { badInput } from '../shared/errors';

/**
 * Relay connections (https://relay.dev/graphql/connections.htm), forward paging only (`first`, `after`).
 * Cursors are opaque to clients; inside they are base64url of `o:<offset>` (the item's zero-based position in
 * the full, stably ordered list), which maps onto upstream zero-based pages (see pageWindow) and onto SQL
 * OFFSET alike.
 */
@ObjectType({ simpleResolvers: true, description: 'Where a page of a connection sits in the whole list.' })
export class PageInfo {
  @Field({ description: 'True when more items follow the last edge of this page (ask again with `after: endCursor`).' })
  hasNextPage!: boolean;

  @Field({ description: 'True when items precede the first edge of this page.' })
  hasPreviousPage!: boolean;

  @Field(() => String, { nullable: true, description: 'Cursor of the first edge, or null when the page is empty.' })
  startCursor!: string | null;

  @Field(() => String, { nullable: true, description: 'Cursor of the last edge, or null when the page is empty. Pass it as `after`.' })
  endCursor!: string | null;
}

export const DEFAULT_PAGE_SIZE = 20;
export const MAX_PAGE_SIZE = 100;

export const encodeCursor = (offset: number): string => Buffer.from(`o:${offset}`).toString('base64url');

export function decodeCursor(cursor: string): number {
  const m = /^o:(\d{1,9})$/.exec(Buffer.from(cursor, 'base64url').toString('utf8'));
  if (!m) throw badInput('`after` is not a cursor returned by this API; pass a pageInfo.endCursor or an edge cursor');
  return Number(m[1]);
}

/** `first`/`after` → the zero-based offset of the first wanted item and how many are wanted. */
export function pageRequest(first: number | null | undefined, after: string | null | undefined): { offset: number; limit: number } {
  const limit = first ?? DEFAULT_PAGE_SIZE;
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_PAGE_SIZE)
    throw badInput(`\`first\` must be between 1 and ${MAX_PAGE_SIZE}`);
  return { offset: after ? decodeCursor(after) + 1 : 0, limit };
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

/** Edges and pageInfo from the wanted slice of items, given where it starts and the total count. */
export function connectionFrom<T>(items: T[], offset: number, total: number): { edges: { cursor: string; node: T }[]; pageInfo: PageInfo; totalCount: number } {
  const edges = items.map((node, i) => ({ cursor: encodeCursor(offset + i), node }));
  return {
    edges,
    totalCount: total,
    pageInfo: {
      hasNextPage: offset + items.length < total,
      hasPreviousPage: offset > 0,
      startCursor: edges[0]?.cursor ?? null,
      endCursor: edges.at(-1)?.cursor ?? null,
    },
  };
}
