import type { GraphQLSchema } from 'graphql';
import type { PrismaClient, TransferEvent } from '../../generated/prisma/client';
import type { PubSub } from '../../events/pubsub';
import { isStaff, type Caller } from '../../auth/auth.types';
import { forbidden } from '../../shared/errors';
import { allTransfersTopic, ownerTransfersTopic, transferTopic, type TransferChangedMessage } from './transfer.ports';
import type { TransferRepository, TransferRow } from './transfer.repository';
import type { TransferService } from './transfer.service';
import { isTerminal, type TransferStatus } from './transfer.states';
import type { Transfer } from './transfer.types';
import { toTransfer } from './transfer.view';

/**
 * transferUpdated: the first message is the current state (or, with afterVersion, every version after it);
 * then every change in version order, none skipped. Pub/sub messages only wake the subscriber: what is sent
 * is read from the database (versions > last sent), so a lost message, a Redis outage or a reconnect with
 * afterVersion never leaves a gap. A safety poll (pollMs) covers a missed wake-up. Completes once the
 * transfer is terminal and its last version was sent.
 *
 * Versions between two reads are replayed from the audit trail: status, version and updatedAt are those of
 * that version; the other fields are the current ones.
 */
export class TransferSubscriptions {
  constructor(
    private readonly prisma: PrismaClient,
    private readonly pubsub: PubSub,
    private readonly repo: TransferRepository,
    private readonly transfers: TransferService,
    private readonly pollMs = 5_000,
  ) {}

  /** Authorizes at subscribe time (owner, back-office, admin; else NOT_FOUND), then streams. */
  async subscribe(caller: Caller, transferId: string, afterVersion: number | null | undefined): Promise<AsyncIterable<Transfer>> {
    const t = await this.transfers.getVisible(caller, transferId);
    return this.stream(t.id, afterVersion ?? null);
  }

  /**
   * myTransfers: the current state of a transfer of the list every time it changes (no initial snapshot; read
   * the list with `transfers`, then follow it here). Customers: their own transfers; an `ownerId` other than
   * their own is FORBIDDEN (at subscribe time). Back-office/admin: every transfer, or one owner's with
   * `ownerId`. A version already sent is never sent again (several wake-ups for one change cost one message);
   * delivery is at-most-once per change like the pub/sub behind it (a client that must not miss a version
   * follows that transfer with transferUpdated).
   */
  subscribeList(caller: Caller, ownerId: string | null | undefined): AsyncIterable<Transfer> {
    let owner: string | null;
    if (isStaff(caller)) owner = ownerId ?? null;
    else if (ownerId && ownerId !== caller.userId) throw forbidden("A customer can follow only its own transfers");
    else owner = caller.userId;
    // Subscribed now (not when the client first pulls), so no change after the subscription started is missed.
    const sub = this.pubsub.subscribe<TransferChangedMessage>(owner ? ownerTransfersTopic(owner) : allTransfersTopic);
    const gen = this.listStream(sub, owner);
    const it: AsyncIterableIterator<Transfer> = {
      next: () => gen.next(),
      // A generator that never started runs no finally block: unsubscribe here as well.
      return: async (v?: unknown) => {
        await sub.return?.();
        return gen.return(v as never);
      },
      throw: async (e?: unknown) => {
        await sub.return?.();
        return gen.throw(e);
      },
      [Symbol.asyncIterator]() {
        return this;
      },
    };
    return it;
  }

  private async *listStream(sub: AsyncIterableIterator<TransferChangedMessage>, owner: string | null): AsyncGenerator<Transfer> {
    const sent = new Map<string, number>(); // transferId → last version sent (bounded, oldest forgotten first)
    try {
      for await (const m of sub) {
        if (owner && m.ownerId !== owner) continue;
        if ((sent.get(m.transferId) ?? 0) >= m.version) continue;
        const cur = await this.repo.get(m.transferId);
        if (!cur || (owner && cur.ownerId !== owner)) continue;
        if ((sent.get(cur.id) ?? 0) >= cur.version) continue;
        sent.delete(cur.id);
        sent.set(cur.id, cur.version);
        if (sent.size > 10_000) sent.delete(sent.keys().next().value!);
        yield toTransfer(cur);
      }
    } finally {
      await sub.return?.();
    }
  }

  private async *stream(transferId: string, afterVersion: number | null): AsyncGenerator<Transfer> {
    const sub = this.pubsub.subscribe(transferTopic(transferId));
    let pending: Promise<unknown> | null = null;
    try {
      let last = afterVersion ?? -1;
      if (afterVersion === null) {
        const cur = (await this.repo.get(transferId))!;
        yield toTransfer(cur);
        last = cur.version;
      }
      let wokeAt = performance.now();
      for (;;) {
        const { events, cur: after } = await this.readSince(transferId, last, wokeAt);
        if (events.length) {
          const cur = after!;
          for (const e of events) {
            if (e.seq > cur.version) break; // committed after `cur` was read: next round
            yield e.seq === cur.version ? toTransfer(cur) : { ...toTransfer(cur), status: e.toStatus, version: e.seq, updatedAt: e.at };
            last = e.seq;
          }
          if (isTerminal(cur.status as TransferStatus) && last >= cur.version) return;
          continue;
        }
        // wokeAt: when the wake-up arrived (after the change committed); shared reads must start later
        pending ??= sub.next().then((r) => ((wokeAt = performance.now()), r));
        let timer: NodeJS.Timeout | undefined;
        const woke = await Promise.race([
          pending.then(() => true),
          new Promise<boolean>((r) => {
            timer = setTimeout(() => r(false), this.pollMs);
          }),
        ]);
        clearTimeout(timer);
        if (woke) pending = null;
        else wokeAt = performance.now();
      }
    } finally {
      await sub.return?.();
    }
  }

  /**
   * Events after `last` and the current row, read once for every subscriber of the transfer woken by the same
   * change (issue 9: N subscribers cost two queries per change, not 2·N). A subscriber only joins a read that
   * started after it woke up, so the read always sees the change that woke it.
   */
  private readonly reads = new Map<string, { startedAt: number; result: Promise<{ events: TransferEvent[]; cur: TransferRow | null }> }>();
  private readSince(transferId: string, last: number, wokeAt: number): Promise<{ events: TransferEvent[]; cur: TransferRow | null }> {
    const key = `${transferId}:${last}`;
    const shared = this.reads.get(key);
    if (shared && shared.startedAt >= wokeAt) return shared.result;
    const startedAt = performance.now();
    const result = (async () => {
      const events = await this.prisma.transferEvent.findMany({ where: { transferId, seq: { gt: last } }, orderBy: { seq: 'asc' } });
      return { events, cur: events.length ? await this.repo.get(transferId) : null };
    })();
    const entry = { startedAt, result };
    this.reads.set(key, entry);
    const forget = () => {
      if (this.reads.get(key) === entry) this.reads.delete(key);
    };
    result.then(forget, forget);
    return result;
  }
}

/** The subscribe function of a TypeGraphQL subscription is static: it finds the app's instance through the schema. */
const bySchema = new WeakMap<GraphQLSchema, TransferSubscriptions>();
export function registerTransferSubscriptions(schema: GraphQLSchema, subs: TransferSubscriptions): void {
  bySchema.set(schema, subs);
}
export function transferSubscriptionsFor(schema: GraphQLSchema): TransferSubscriptions {
  const s = bySchema.get(schema);
  if (!s) throw new Error('transfer subscriptions are not registered for this schema');
  return s;
}
