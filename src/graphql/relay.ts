import type { GraphQLScalarType } from 'graphql';
import { IsInt, IsOptional, IsString, Length, Max, Min } from 'class-validator';
import { ArgsType, type ClassType, Field, Int, ObjectType } from 'type-graphql';
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

/** `first`/`after` of a connection (see pageRequest); args types of lists with filters extend it. */
@ArgsType()
export class PageArgs {
  @Field(() => Int, { nullable: true, description: 'Page size, 1 to 100 (default 20).' })
  @IsOptional()
  @IsInt()
  @Min(1, { message: 'first must be at least 1' })
  @Max(100, { message: 'first must be at most 100' })
  first?: number;

  @Field(() => String, { nullable: true, description: 'Continue after this cursor (a previous page\'s `pageInfo.endCursor`).' })
  @IsOptional()
  @IsString()
  @Length(1, 64, { message: 'after must be a cursor returned by this API' })
  after?: string;
}

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

export interface Edge<T> {
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
  return { edges, pageInfo: { hasNextPage, hasPreviousPage, startCursor: edges[0]?.cursor ?? null, endCursor: edges.at(-1)?.cursor ?? null } };
}

/** Edges and pageInfo from the wanted slice of items, given where it starts and the total count. */
export function connectionFrom<T>(items: T[], offset: number, total: number): CountedConnection<T> {
  const edges = items.map((node, i) => ({ cursor: encodeCursor(offset + i), node }));
  return { ...connectionOf(edges, offset + items.length < total, offset > 0), totalCount: total };
}

/** An edge cursor description that tells what to do with it. */
export const AFTER_CURSOR_HINT = 'Opaque cursor of this edge (pass it as `after` to continue after it).';

/** The GraphQL descriptions (and names) of a connection type and its edge type; see connectionType. */
export interface ConnectionTypeOptions {
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
export function connectionType<T extends object>(node: ClassType<T> | GraphQLScalarType, opts: ConnectionTypeOptions & { totalCount: string }): ClassType<CountedConnection<T>>;
export function connectionType<T extends object>(node: ClassType<T> | GraphQLScalarType, opts: ConnectionTypeOptions & { totalCount?: undefined }): ClassType<Connection<T>>;
export function connectionType<T extends object>(node: ClassType<T> | GraphQLScalarType, opts: ConnectionTypeOptions): ClassType<Connection<T>> {
  const { simpleResolvers } = opts;

  @ObjectType(opts.edge.name, { simpleResolvers, description: opts.edge.description })
  class EdgeType implements Edge<T> {
    @Field(() => String, { description: opts.edge.cursor ?? 'Opaque cursor of this edge.' }) cursor!: string;
    @Field(() => node, { description: opts.edge.node }) node!: T;
  }

  const totalCountField: PropertyDecorator = opts.totalCount === undefined ? () => undefined : Field(() => Int, { description: opts.totalCount });

  @ObjectType(opts.name, { simpleResolvers, description: opts.description })
  class ConnectionType implements Connection<T> {
    @Field(() => [EdgeType], { description: opts.edges }) edges!: EdgeType[];
    @Field(() => PageInfo, { description: opts.pageInfo }) pageInfo!: PageInfo;
    @totalCountField totalCount?: number;
  }

  return ConnectionType;
}
