import { Prisma, type PrismaClient } from '../generated/prisma/client';
import type { RawSql } from './raw-sql';
import type { Clock } from '../shared/clock';
import { AppError } from '../shared/errors';
import { canonicalDigest } from '../shared/json';

interface IdempotencyOptions {
  /** How long a completed record answers replays (≥ 24 h). */
  ttlMs: number;
  /** How long a duplicate waits for the first request to finish before IDEMPOTENCY_IN_PROGRESS. */
  waitMs: number;
  /** An IN_PROGRESS claim older than this is considered abandoned (its process died) and may be taken over. */
  staleAfterMs: number;
  pollMs?: number;
}

interface IdempotencyScope {
  /** The caller (user id). */
  caller: string;
  /** The operation, e.g. "createTransfer". */
  operation: string;
  key: string;
}

/**
 * The hash of a request's arguments: equal arguments hash equally, in any key order and whether a nullable argument
 * is given as null or left out (one request, as GraphQL reads it).
 */
export const requestHash = (args: unknown): string => canonicalDigest(args, true);

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * The completion of a claimed record as part of the caller's own write (IdempotencyService.run): `sql(result)` is an
 * UPDATE (… RETURNING 1) storing the result, to be made in the same statement or transaction as the effect, only if
 * the effect happens (`onlyIf`, an SQL boolean); `written()` once it was committed — the record is then not completed
 * again.
 */
export interface Completion<T> {
  sql(result: T, onlyIf?: Prisma.Sql): Prisma.Sql;
  written(): void;
}

/**
 * Idempotent mutations. Scope = caller + operation + key. The first request claims the key
 * (INSERT … ON CONFLICT DO NOTHING, so concurrent duplicates — in any instance — cannot both win) and runs;
 * its JSON result is stored. A replay with the same arguments gets the stored result; with different
 * arguments IDEMPOTENCY_KEY_REUSED. A duplicate arriving while the first still runs waits (polling the
 * record) up to `waitMs`, then IDEMPOTENCY_IN_PROGRESS. A failed run releases its claim (nothing took effect:
 * the work is transactional or itself idempotent), so the client may retry with the same key — only its own
 * claim (same created_at), never a newer one another request took over after this one's went stale.
 * Records live `ttlMs` (≥ 24 h); `purgeExpired` deletes older ones.
 */
export class IdempotencyService {
  constructor(
    private readonly prisma: PrismaClient,
    /** Raw statements (Database.sql): every mutation's claim, beside Prisma's client. */
    private readonly sql: RawSql,
    private readonly clock: Clock,
    private readonly opts: IdempotencyOptions,
  ) {
    if (opts.ttlMs < 24 * 3600_000) throw new Error('idempotency records must be kept at least 24 h');
  }

  async run<T extends Prisma.InputJsonValue>(scope: IdempotencyScope, args: unknown, fn: (done: Completion<T>) => Promise<T>): Promise<T> {
    const hash = requestHash(args);
    const id = { scope: scope.caller, operation: scope.operation, key: scope.key };
    const deadline = Date.now() + this.opts.waitMs;
    for (;;) {
      const now = this.clock.now();
      const claimed = await this.sql.execute`
        INSERT INTO idempotency_records (scope, operation, key, request_hash, state, created_at, expires_at)
        VALUES (${id.scope}, ${id.operation}, ${id.key}, ${hash}, 'IN_PROGRESS', ${now}, ${new Date(now.getTime() + this.opts.ttlMs)})
        ON CONFLICT (scope, operation, key) DO NOTHING`;
      if (claimed === 1) return this.execute(id, now, hash, fn);

      const rec = await this.prisma.idempotencyRecord.findUnique({ where: { scope_operation_key: id } });
      if (!rec) continue; // released or purged in between: claim again
      if (rec.expiresAt.getTime() <= now.getTime()) {
        await this.prisma.idempotencyRecord.deleteMany({ where: { ...id, expiresAt: rec.expiresAt } });
        continue;
      }
      if (rec.requestHash !== hash)
        throw new AppError('IDEMPOTENCY_KEY_REUSED', 'This idempotencyKey was already used with different arguments; use a new key');
      if (rec.state === 'COMPLETED') return rec.response as T;
      if (now.getTime() - rec.createdAt.getTime() > this.opts.staleAfterMs) {
        // Abandoned claim (its process died): take it over atomically.
        const taken = await this.prisma.idempotencyRecord.updateMany({
          where: { ...id, state: 'IN_PROGRESS', createdAt: rec.createdAt },
          data: { createdAt: now },
        });
        if (taken.count === 1) return this.execute(id, now, hash, fn);
        continue;
      }
      if (Date.now() >= deadline)
        throw new AppError(
          'IDEMPOTENCY_IN_PROGRESS',
          'A request with this idempotencyKey is still being processed; retry shortly with the same key',
        );
      await sleep(this.opts.pollMs ?? 25);
    }
  }

  /**
   * Runs fn under the claim made at `claimedAt` (the record's created_at: set by the INSERT or by a takeover, so it
   * identifies this request's claim). A failure releases only that claim: once it went stale another request may
   * have taken the key over (a newer created_at), and deleting that claim would let a third duplicate run the
   * mutation concurrently with the second. A success is stored even if the claim was taken over meanwhile (the
   * effect happened; the newer claim is the same request — same hash — and gets the same answer), never over a
   * stored answer or another request's record.
   */
  private async execute<T extends Prisma.InputJsonValue>(
    id: { scope: string; operation: string; key: string },
    claimedAt: Date,
    hash: string,
    fn: (done: Completion<T>) => Promise<T>,
  ): Promise<T> {
    let result: T;
    let completed = false;
    const done: Completion<T> = {
      sql: (r, onlyIf) => Prisma.sql`
        UPDATE idempotency_records SET state = 'COMPLETED', response = ${JSON.stringify(r)}::jsonb
        WHERE scope = ${id.scope} AND operation = ${id.operation} AND key = ${id.key} AND state = 'IN_PROGRESS'
          AND request_hash = ${hash} ${onlyIf ? Prisma.sql`AND ${onlyIf}` : Prisma.empty}
        RETURNING 1`,
      written: () => (completed = true),
    };
    try {
      result = await fn(done);
    } catch (e) {
      await this.prisma.idempotencyRecord
        .deleteMany({ where: { ...id, state: 'IN_PROGRESS', createdAt: claimedAt } })
        .catch(() => undefined);
      throw e;
    }
    if (completed) return result;
    await this.prisma.idempotencyRecord.updateMany({
      where: { ...id, state: 'IN_PROGRESS', requestHash: hash },
      data: { state: 'COMPLETED', response: result },
    });
    return result;
  }

  async purgeExpired(): Promise<number> {
    const r = await this.prisma.idempotencyRecord.deleteMany({ where: { expiresAt: { lt: this.clock.now() } } });
    return r.count;
  }
}
