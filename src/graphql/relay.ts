import type { GraphQLScalarType } from 'graphql';
import { IsInt, IsOptional, IsString, Length, Max, Min } from 'class-validator';
import { ArgsType, type ClassType, Field, Int, ObjectType } from 'type-graphql';
import { inStoredRange } from '../shared/clock';
import { badField } from '../shared/errors';
import type { OffsetPage } from '../shared/page';

/**
 * Relay connections (https://relay.dev/graphql/connections.htm), forward paging only (`first`, `after`), built
 * here at the edge from the services' domain pages. One cursor format, opaque to clients: base64url of
 * `<kind>:<position>`, where the kind says what the position is —
 * - `o`: the item's zero-based offset in the full, stably ordered list (maps onto upstream zero-based pages and
 *   onto SQL OFFSET alike: lists read from upstream APIs, agents, inbox events);
 * - `s`: a sequence number (a transfer's audit trail);
 * - `k`: a keyset position `<ISO time>|<id>` (the transfer history, newest first: stable while rows are added).
 * A cursor of another kind than the list's is BAD_USER_INPUT.
 */
@ObjectType({ simpleResolvers: true, description: 'Where a page of a connection sits in the whole list.' })
class PageInfo {
  @Field({ description: 'True when more items follow the last edge of this page (ask again with `after: endCursor`).' })
  hasNextPage!: boolean;

  @Field({ description: 'True when items precede the first edge of this page.' })
  hasPreviousPage!: boolean;

  @Field(() => String, { nullable: true, description: 'Cursor of the first edge, or null when the page is empty.' })
  startCursor!: string | null;

  @Field(() => String, { nullable: true, description: 'Cursor of the last edge, or null when the page is empty. Pass it as `after`.' })
  endCursor!: string | null;
}

const DEFAULT_PAGE_SIZE = 20;
export const MAX_PAGE_SIZE = 100;

/** `first`/`after` of a connection (see pageRequest); args types of lists with filters extend it. */
@ArgsType()
export class PageArgs {
  @Field(() => Int, { nullable: true, description: 'Page size, 1 to 100 (default 20 unless the field says otherwise).' })
  @IsOptional()
  @IsInt()
  @Min(1, { message: 'first must be at least 1' })
  @Max(100, { message: 'first must be at most 100' })
  first?: number;

  @Field(() => String, {
    nullable: true,
    description: 'Continue after this cursor: pageInfo.endCursor (or an edge cursor) of the same list (BAD_USER_INPUT otherwise).',
  })
  @IsOptional()
  @IsString()
  @Length(1, 128, { message: 'after must be a cursor returned by this API' })
  after?: string;
}

type CursorKind = 'o' | 's' | 'k';
const CURSOR_POSITION: Record<CursorKind, RegExp> = { o: /^\d{1,9}$/, s: /^\d{1,9}$/, k: /^\d{4}-\d\d-\d\dT[\d:.]+Z\|[\w-]{1,64}$/ };

const encodeCursor = (kind: CursorKind, position: string): string => Buffer.from(`${kind}:${position}`).toString('base64url');

function decodeCursor(kind: CursorKind, cursor: string): string {
  const text = Buffer.from(cursor, 'base64url').toString('utf8');
  const position = text.startsWith(`${kind}:`) ? text.slice(2) : null;
  if (position === null || !CURSOR_POSITION[kind].test(position))
    throw badField('after', 'INVALID_FORMAT', '`after` is not a cursor of this list; pass its pageInfo.endCursor or an edge cursor');
  return position;
}

/** Offset and sequence cursors of the first positions, encoded once (every page of every list starts there). */
const MEMO_POSITIONS = 4096;
const memoCursor = (kind: CursorKind) => {
  const memo: string[] = [];
  return (n: number): string =>
    Number.isInteger(n) && n >= 0 && n < MEMO_POSITIONS ? (memo[n] ??= encodeCursor(kind, String(n))) : encodeCursor(kind, String(n));
};

const offsetCursor = memoCursor('o');
const decodeOffset = (cursor: string): number => Number(decodeCursor('o', cursor));
export const seqCursor = memoCursor('s');
/** The sequence number after which a page starts: 0 without a cursor. */
export const decodeSeq = (cursor: string | null | undefined): number => (cursor ? Number(decodeCursor('s', cursor)) : 0);

interface KeysetPosition {
  createdAt: Date;
  id: string;
}
export const keysetCursor = (p: KeysetPosition): string => encodeCursor('k', `${p.createdAt.toISOString()}|${p.id}`);
export function decodeKeyset(cursor: string): KeysetPosition {
  const [at, id] = decodeCursor('k', cursor).split('|') as [string, string];
  const createdAt = new Date(at);
  if (!inStoredRange(createdAt))
    throw badField('after', 'INVALID_FORMAT', '`after` is not a cursor of this list; pass its pageInfo.endCursor or an edge cursor');
  return { createdAt, id };
}

/** A page size: `first` within 1…MAX_PAGE_SIZE, or the list's default. */
export const pageSize = (first: number | undefined | null, dflt = DEFAULT_PAGE_SIZE): number =>
  Math.max(1, Math.min(first ?? dflt, MAX_PAGE_SIZE));

/** `first`/`after` → the zero-based offset of the first wanted item and how many are wanted. */
export function pageRequest(first: number | null | undefined, after: string | null | undefined): { offset: number; limit: number } {
  const limit = first ?? DEFAULT_PAGE_SIZE;
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_PAGE_SIZE)
    throw badField('first', 'OUT_OF_RANGE', `\`first\` must be between 1 and ${MAX_PAGE_SIZE}`);
  return { offset: after ? decodeOffset(after) + 1 : 0, limit };
}

interface Edge<T> {
  cursor: string;
  node: T;
}

export interface Connection<T> {
  edges: Edge<T>[];
  pageInfo: PageInfo;
}

export interface CountedConnection<T> extends Connection<T> {
  totalCount: number;
}

/** A page from its edges: pageInfo's cursors are those of the first and last edge. */
export function connectionOf<T>(edges: Edge<T>[], hasNextPage: boolean, hasPreviousPage: boolean): Connection<T> {
  return {
    edges,
    pageInfo: { hasNextPage, hasPreviousPage, startCursor: edges[0]?.cursor ?? null, endCursor: edges.at(-1)?.cursor ?? null },
  };
}

/** Edges and pageInfo from the wanted slice of items, given where it starts and the total count. */
function connectionFrom<T>(items: T[], offset: number, total: number): CountedConnection<T> {
  const edges = items.map((node, i) => ({ cursor: offsetCursor(offset + i), node }));
  return { ...connectionOf(edges, offset + items.length < total, offset > 0), totalCount: total };
}

/** The connection of a service's offset page. */
export const offsetConnection = <T>(page: OffsetPage<T>): CountedConnection<T> => connectionFrom(page.items, page.offset, page.total);

/** An edge cursor description that tells what to do with it. */
export const AFTER_CURSOR_HINT = 'Opaque cursor of this edge (pass it as `after` to continue after it).';

/** The GraphQL descriptions (and names) of a connection type and its edge type; see connectionType. */
interface ConnectionTypeOptions {
  /** GraphQL name of the connection type, e.g. AgentConnection. */
  name: string;
  description: string;
  /** Description of the `edges` field. */
  edges: string;
  /** Description of the `pageInfo` field. */
  pageInfo: string;
  /** Description of the `totalCount` field; without it the connection has no totalCount. */
  totalCount?: string;
  edge: {
    /** GraphQL name of the edge type, e.g. AgentEdge. */
    name: string;
    description: string;
    /** Description of the `cursor` field (default: 'Opaque cursor of this edge.'). */
    cursor?: string;
    /** Description of the `node` field. */
    node: string;
  };
  /** TypeGraphQL simpleResolvers for both types (plain data fields read straight off the object). */
  simpleResolvers?: boolean;
}

/**
 * The Relay connection type of a node type, with its edge type (TypeGraphQL generic types through a class
 * factory): `edges: [<Edge>!]!`, `pageInfo: PageInfo!`, and `totalCount: Int!` when its description is given;
 * the edge has `cursor: String!` and `node: <node>!`. Declare it with a type of the same name:
 *   export const AgentConnection = connectionType(Agent, { name: 'AgentConnection', … });
 *   export type AgentConnection = CountedConnection<Agent>;
 */
export function connectionType<T extends object>(
  node: ClassType<T> | GraphQLScalarType,
  opts: ConnectionTypeOptions & { totalCount: string },
): ClassType<CountedConnection<T>>;
export function connectionType<T extends object>(
  node: ClassType<T> | GraphQLScalarType,
  opts: ConnectionTypeOptions & { totalCount?: undefined },
): ClassType<Connection<T>>;
export function connectionType<T extends object>(
  node: ClassType<T> | GraphQLScalarType,
  opts: ConnectionTypeOptions,
): ClassType<Connection<T>> {
  const { simpleResolvers } = opts;

  @ObjectType(opts.edge.name, { simpleResolvers, description: opts.edge.description })
  class EdgeType implements Edge<T> {
    @Field(() => String, { description: opts.edge.cursor ?? 'Opaque cursor of this edge.' }) cursor!: string;
    @Field(() => node, { description: opts.edge.node }) node!: T;
  }

  const totalCountField: PropertyDecorator =
    opts.totalCount === undefined ? () => undefined : Field(() => Int, { description: opts.totalCount });

  @ObjectType(opts.name, { simpleResolvers, description: opts.description })
  class ConnectionType implements Connection<T> {
    @Field(() => [EdgeType], { description: opts.edges }) edges!: EdgeType[];
    @Field(() => PageInfo, { description: opts.pageInfo }) pageInfo!: PageInfo;
    @totalCountField totalCount?: number;
  }

  return ConnectionType;
}
