import DataLoader from 'dataloader';
import { prismaRawSql, type RawSql } from '../../db/raw-sql';
import type { Prisma, PrismaClient, SagaStep, TransferEvent, TransferRefusal } from '../../generated/prisma/client';
import { transferEventsAfter } from './transfer.events.repository';

/** How many refused transitions a transfer shows (the most recent). */
export const REFUSALS_SHOWN = 50;

interface EventsPageKey {
  transferId: string;
  /** seq of the last event already seen (0 = from the start). */
  afterSeq: number;
  first: number;
}

interface EventsPage {
  events: TransferEvent[];
  hasNextPage: boolean;
}

/**
 * Per-request loaders. `events` batches every Transfer.events page of one request into ONE query per distinct
 * (after, first) pair — a list of N transfers with their events costs a constant number of queries.
 */
const NO_CACHE = { cache: false } as const;

export class TransferLoaders {
  readonly events: DataLoader<EventsPageKey, EventsPage, string>;
  /** The refused transitions of each transfer, newest first (at most REFUSALS_SHOWN): one query per request. */
  readonly refusals: DataLoader<string, TransferRefusal[]>;
  /** Each transfer's sender person and details (who sends, who receives): one query per request. */
  readonly parties: DataLoader<string, { personId: string; details: Prisma.JsonValue } | null>;
  /** The refund steps (refund:<n>) of each transfer, oldest first: one query per request. */
  readonly refunds: DataLoader<string, SagaStep[]>;

  constructor(prisma: PrismaClient, sql: RawSql) {
    this.parties = new DataLoader(async (ids) => {
      const rows = await prisma.transfer.findMany({ where: { id: { in: [...ids] } }, select: { id: true, personId: true, details: true } });
      const by = new Map(rows.map((r) => [r.id, { personId: r.personId, details: r.details }]));
      return ids.map((id) => by.get(id) ?? null);
    }, NO_CACHE);
    this.refunds = new DataLoader<string, SagaStep[]>(async (ids) => {
      const rows = await prisma.sagaStep.findMany({
        where: { transferId: { in: [...ids] }, step: { startsWith: 'refund:' } },
        orderBy: [{ createdAt: 'asc' }, { id: 'asc' }],
      });
      const by = new Map<string, SagaStep[]>();
      for (const r of rows) by.set(r.transferId, [...(by.get(r.transferId) ?? []), r]);
      return ids.map((id) => by.get(id) ?? []);
    }, NO_CACHE);
    this.refusals = new DataLoader<string, TransferRefusal[]>(async (ids) => {
      const rows = await prisma.transferRefusal.findMany({
        where: { transferId: { in: [...ids] } },
        orderBy: [{ at: 'desc' }, { id: 'desc' }],
      });
      const by = new Map<string, TransferRefusal[]>();
      for (const r of rows) {
        const list = by.get(r.transferId) ?? [];
        if (list.length < REFUSALS_SHOWN) list.push(r);
        by.set(r.transferId, list);
      }
      return ids.map((id) => by.get(id) ?? []);
    }, NO_CACHE);
    this.events = new DataLoader<EventsPageKey, EventsPage, string>(
      async (keys) => {
        const groups = new Map<string, EventsPageKey[]>();
        for (const k of keys) {
          const g = `${k.afterSeq}:${k.first}`;
          groups.set(g, [...(groups.get(g) ?? []), k]);
        }
        const pages = new Map<string, EventsPage>();
        for (const group of groups.values()) {
          const { afterSeq, first } = group[0]!;
          const ids = [...new Set(group.map((k) => k.transferId))];
          const rows = await transferEventsAfter(sql, ids, afterSeq, first);
          const byTransfer = new Map<string, TransferEvent[]>();
          for (const r of rows) byTransfer.set(r.transferId, [...(byTransfer.get(r.transferId) ?? []), r]);
          for (const id of ids) {
            const all = byTransfer.get(id) ?? [];
            pages.set(`${id}:${afterSeq}:${first}`, { events: all.slice(0, first), hasNextPage: all.length > first });
          }
        }
        return keys.map((k) => pages.get(`${k.transferId}:${k.afterSeq}:${k.first}`)!);
      },
      { ...NO_CACHE, cacheKeyFn: (k) => `${k.transferId}:${k.afterSeq}:${k.first}` },
    );
  }
}

/**
 * Loaders live as long as the request's context object (no change to the shared context type needed) — over
 * graphql-ws that is a whole subscription, so they batch the loads of one execution but cache nothing: each event's
 * execution reads afresh (a cached refunds or refusals list would show the first event's forever).
 */
export function transferLoaders(prisma: PrismaClient): (ctx: object) => TransferLoaders {
  const sql = prismaRawSql(prisma);
  const perContext = new WeakMap<object, TransferLoaders>();
  return (ctx) => {
    let l = perContext.get(ctx);
    if (!l) perContext.set(ctx, (l = new TransferLoaders(prisma, sql)));
    return l;
  };
}
