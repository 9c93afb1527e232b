import type { GraphQLSchema } from 'graphql';
import type { PrismaClient, TransferEvent } from '../../generated/prisma/client';
import type { PubSub } from '../../events/pubsub';
import { isStaff, type Caller } from '../../auth/auth.types';
import { badField, forbidden } from '../../shared/errors';
import { allTransfersTopic, ownerTransfersTopic, transferTopic, type TransferChangedMessage } from './transfer.ports';
import type { TransferRepository, TransferRow } from './transfer.repository';
import type { TransferService } from './transfer.service';
import { isTerminal, type TransferStatus } from './transfer.states';
import type { Transfer } from './transfer.types';
import { shownAt } from './transfer.shown';
import { WakeUps } from './transfer.wakeups';
import { toTransfer } from './transfer.view';

/** myTransfers(changedSince): how many changed transfers a subscription replays at most before going live. */
export const LIST_REPLAY_LIMIT = 500;

/**
 * transferUpdated: the first message is the current state (or, with afterVersion, every version after it);
 * then every version in order, none skipped. A version is a change an app shows (transfer.shown.ts);
 * facts recorded for the audit trail only send nothing. Pub/sub messages only wake the subscriber: what is sent
 * is read from the database (versions > last sent), so a lost message, a Redis outage or a reconnect with
 * afterVersion never leaves a gap. A safety poll (pollMs) covers a missed wake-up. Completes once the
 * transfer is terminal and its last version was sent — at once when it already was at subscribe time (after
 * the current state, or after the versions following afterVersion, if any).
 *
 * Versions between two reads are replayed from the audit trail: what was shown at that version (SHOWN), its
 * version and updatedAt; the other fields are the current ones.
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
    // Subscribed before the row is read: whatever commits after the read wakes this stream up, so the row is
    // the first message as it is and no catch-up read follows it (one query per subscriber fewer).
    const sub = this.pubsub.subscribe(transferTopic(transferId));
    let t: TransferRow;
    try {
      t = await this.transfers.getVisible(caller, transferId, (id) => this.rowReads.get(id));
    } catch (e) {
      await sub.return?.();
      throw e;
    }
    if (afterVersion != null && afterVersion > t.version) {
      // a version this transfer never had (e.g. another transfer's): waiting for it would silently skip versions
      await sub.return?.();
      throw badField(
        'afterVersion',
        'OUT_OF_RANGE',
        `afterVersion is beyond the transfer's current version (${t.version}): pass the last version you received of this transfer`,
      );
    }
    return untilStarted(sub, this.stream(t.id, afterVersion ?? null, t, sub));
  }

  /** Rows read for subscribe: a reconnect storm of N subscribers of one transfer costs a few queries, not N. */
  private readonly rowReads = new BatchedReads<TransferRow | null>((id) => this.repo.get(id));

  /**
   * myTransfers: the current state of a transfer of the list every time it changes (no initial snapshot; read
   * the list with `transfers`, then follow it here). Customers: their own transfers; an `ownerId` other than
   * their own is FORBIDDEN (at subscribe time). Back-office/admin: every transfer, or one owner's with
   * `ownerId`. A version already sent is never sent again (several wake-ups for one change cost one message);
   * delivery is at-most-once per change like the pub/sub behind it (a client that must not miss a version
   * follows that transfer with transferUpdated).
   *
   * `changedSince` closes the gap between reading the list and subscribing (or a reconnect): first every
   * transfer of the list updated at or after it, oldest change first, in its current state; then live changes.
   * At most LIST_REPLAY_LIMIT: beyond, BAD_USER_INPUT (re-read the list with `transfers`, subscribe again).
   */
  async subscribeList(caller: Caller, ownerId: string | null | undefined, changedSince?: Date | null): Promise<AsyncIterable<Transfer>> {
    let owner: string | null;
    if (isStaff(caller)) owner = ownerId ?? null;
    else if (ownerId && ownerId !== caller.userId) throw forbidden('A customer can follow only its own transfers');
    else owner = caller.userId;
    // Subscribed now (not when the client first pulls), so no change after the subscription started is missed.
    const sub = this.pubsub.subscribe<TransferChangedMessage>(owner ? ownerTransfersTopic(owner) : allTransfersTopic);
    let replay: TransferRow[] = [];
    if (changedSince) {
      try {
        // read after subscribing: a change committed meanwhile is in this read or arrives live (deduped by version)
        replay = await this.repo.changedSince(owner, changedSince, LIST_REPLAY_LIMIT + 1);
        if (replay.length > LIST_REPLAY_LIMIT)
          throw badField(
            'changedSince',
            'OUT_OF_RANGE',
            `More than ${LIST_REPLAY_LIMIT} transfers changed since changedSince: read them with the transfers query, then subscribe with a later changedSince`,
          );
      } catch (e) {
        await sub.return?.();
        throw e;
      }
    }
    return untilStarted(sub, this.listStream(sub, owner, replay));
  }

  private async *listStream(
    sub: AsyncIterableIterator<TransferChangedMessage>,
    owner: string | null,
    replay: TransferRow[],
  ): AsyncGenerator<Transfer> {
    const sent = new Map<string, number>(); // transferId → last version sent (bounded, oldest forgotten first)
    try {
      for (const r of replay) {
        sent.set(r.id, r.version);
        yield toTransfer(r);
      }
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

  /** `current`: the row read after `sub` was subscribed; the first message unless afterVersion is given. */
  private async *stream(
    transferId: string,
    afterVersion: number | null,
    current: TransferRow,
    sub: AsyncIterableIterator<unknown>,
  ): AsyncGenerator<Transfer> {
    const wakeUps = new WakeUps(sub, this.pollMs);
    try {
      let last = afterVersion ?? -1;
      if (afterVersion === null) {
        yield rowView(current);
        last = current.version;
      }
      // terminal and nothing after `last`: nothing will ever follow
      if (isTerminal(current.status as TransferStatus) && last >= current.version) return;
      // versions after afterVersion: replay from the audit trail first; else only a wake-up calls for a read
      let mustRead = last < current.version;
      for (;;) {
        const { events, cur: after } = mustRead ? await this.readSince(transferId, last, wakeUps.wokeAt) : { events: [], cur: null };
        mustRead = true;
        if (events.length) {
          const cur = after!;
          for (const e of events) {
            const version = e.version!;
            if (version > cur.version) break; // committed after `cur` was read: next round
            yield versionView(cur, e, version);
            last = version;
          }
          if (isTerminal(cur.status as TransferStatus) && last >= cur.version) return;
          continue;
        }
        // unsubscribed (the client completed, or the service is closing): the stream ends
        if ((await wakeUps.wait()) === 'closed') return;
      }
    } finally {
      wakeUps.stop();
      await sub.return?.();
    }
  }

  /**
   * Events of the versions after `last` and the current row, read once for every subscriber of the transfer woken by the same
   * change (N subscribers cost two queries per change, not 2·N), and shared by their safety polls too.
   * A subscriber only gets a read that started after it woke up, so the read always sees the change that woke it.
   */
  private readonly reads = new BatchedReads<{ events: TransferEvent[]; cur: TransferRow | null }>(async (key) => {
    const sep = key.lastIndexOf(':');
    const transferId = key.slice(0, sep);
    const last = Number(key.slice(sep + 1));
    const events = await this.prisma.transferEvent.findMany({ where: { transferId, version: { gt: last } }, orderBy: { version: 'asc' } });
    return { events, cur: events.length ? await this.repo.get(transferId) : null };
  });
  private readSince(transferId: string, last: number, wokeAt: number): Promise<{ events: TransferEvent[]; cur: TransferRow | null }> {
    return this.reads.get(`${transferId}:${last}`, wokeAt);
  }
}

/**
 * What a shared read yields for one of its events, built once: every subscriber that joined the read gets the
 * same object, so graphql-ws executes and serialises it once for all of them (src/graphql/ws-fanout.ts).
 * Kept as long as the read's rows are (the event row is the key: it belongs to exactly one read, whose
 * `cur` it is combined with).
 */
const views = new WeakMap<TransferEvent | TransferRow, Transfer>();
function versionView(cur: TransferRow, e: TransferEvent, version: number): Transfer {
  if (version === cur.version) return rowView(cur);
  let v = views.get(e);
  if (!v) views.set(e, (v = toTransfer(shownAt(cur, e, version))));
  return v;
}
/** The view of a row read once for several subscribers (the first message of those sharing a row read, too). */
function rowView(row: TransferRow): Transfer {
  let v = views.get(row);
  if (!v) views.set(row, (v = toTransfer(row)));
  return v;
}

/**
 * The stream, unsubscribing `sub` also when it is closed before it started (a generator that never started
 * runs no finally block).
 */
function untilStarted<T>(sub: AsyncIterableIterator<unknown>, gen: AsyncGenerator<T>): AsyncIterableIterator<T> {
  const it: AsyncIterableIterator<T> = {
    next: () => gen.next(),
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

/**
 * Reads shared between callers, each caller getting a read that started after it arrived (`arrivedAt`, default
 * now): it joins the read in flight if that one started since, else the next read, which starts when the one
 * in flight ends (at most two reads per key at a time, however many callers: N subscribers of one transfer
 * polling or reconnecting at scattered instants cost a few queries, not N).
 */
export class BatchedReads<T> {
  private readonly state = new Map<string, { startedAt: number; running: Promise<T>; next: Promise<T> | null }>();
  constructor(private readonly read: (key: string) => Promise<T>) {}

  get(key: string, arrivedAt = performance.now()): Promise<T> {
    const s = this.state.get(key);
    if (!s) return this.start(key);
    if (s.startedAt >= arrivedAt) return s.running;
    const settled = () => undefined;
    return (s.next ??= s.running.then(settled, settled).then(() => this.start(key)));
  }

  private start(key: string): Promise<T> {
    const entry: { startedAt: number; running: Promise<T>; next: Promise<T> | null } = {
      startedAt: performance.now(),
      running: this.read(key),
      next: null,
    };
    this.state.set(key, entry);
    // runs before the `next` chain (registered first): forget the key unless someone waits for the next read
    const done = () => {
      if (this.state.get(key) === entry && entry.next === null) this.state.delete(key);
    };
    entry.running.then(done, done);
    return entry.running;
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
