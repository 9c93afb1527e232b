import type { RawSql } from '../../db/raw-sql';
import { Prisma, type PrismaClient, type SagaStep } from '../../generated/prisma/client';
import type { Clock } from '../../shared/clock';
import type { TransferRow } from './transfer.repository';
import { loadedFromSql, stepColumns, stepFromSql, stepsOf, transferColumns, type Loaded } from './transfer.rows.repository';
import { stepKey, type Settlement, type StepName, type StepOutcome, type StepState } from './transfer.steps';

/**
 * The saga's intent log (saga_steps): one row per (transfer, step), written PENDING before the upstream call
 * and settled after it (SUCCEEDED / FAILED, or left PENDING / UNKNOWN to be re-run with the same key).
 */
export class SagaStepLog {
  constructor(
    private readonly prisma: PrismaClient,
    /** Raw statements outside transactions (db.sql). */
    private readonly sql: RawSql,
    private readonly clock: Clock,
  ) {}

  /** The transfer with its steps, in one query (null: no such transfer). */
  async load(transferId: string): Promise<Loaded | null> {
    const [raw] = await this.sql.query`
      SELECT ${transferColumns('t')}, ${stepsOf('t')} AS _steps FROM transfers t WHERE t.id = ${transferId}`;
    return raw ? loadedFromSql(raw) : null;
  }

  /**
   * Writes the intent row (idempotent: the (transfer, step) row is unique) — with `whileStatusUnchanged`, only if
   * the transfer is still in the status `t` was read in, checked under the transfer's row lock (null otherwise).
   * One statement, which also makes the transfer due at once: should this process die before settling the step, the
   * worker re-runs it once the lease expires. (Only ever earlier; a holder that read the state before cannot defer
   * it: scheduleIfUnchanged checks for unsettled steps.)
   */
  async record(
    t: TransferRow,
    step: StepName,
    request: Record<string, unknown>,
    opts?: { whileStatusUnchanged: true },
    sideWrite?: Prisma.Sql,
  ): Promise<SagaStep | null> {
    const key = stepKey(t, step);
    // another write made in the same statement, whatever comes of the intent (e.g. the previous step's result)
    const sideWriteCte = sideWrite ? Prisma.sql`, a AS (${sideWrite})` : Prisma.empty;
    const now = this.clock.now();
    const req = JSON.stringify(request);
    // the row lock (FOR UPDATE) orders the intent with platform events that decide on the same lock
    const rows = opts?.whileStatusUnchanged
      ? await this.sql.query`
          WITH t AS (SELECT id FROM transfers WHERE id = ${t.id} AND status = ${t.status}::transfer_status FOR UPDATE),
          ins AS (
            INSERT INTO saga_steps (id, transfer_id, step, idempotency_key, state, attempts, request, created_at, updated_at)
            SELECT gen_random_uuid()::text, t.id, ${step}, ${key}, 'PENDING', 0, ${req}::jsonb, ${now}::timestamptz, ${now}::timestamptz FROM t
            ON CONFLICT (transfer_id, step) DO NOTHING
            RETURNING ${stepColumns()}
          ), due AS (
            UPDATE transfers SET next_run_at = LEAST(COALESCE(next_run_at, ${now}::timestamptz), ${now}::timestamptz)
            WHERE id IN (SELECT id FROM t) RETURNING 1
          )${sideWriteCte}
          SELECT ins.*, (SELECT count(*) FROM t)::int AS _locked FROM (SELECT 1) AS one LEFT JOIN ins ON true`
      : await this.sql.query`
          WITH ins AS (
            INSERT INTO saga_steps (id, transfer_id, step, idempotency_key, state, attempts, request, created_at, updated_at)
            VALUES (gen_random_uuid()::text, ${t.id}, ${step}, ${key}, 'PENDING', 0, ${req}::jsonb, ${now}::timestamptz, ${now}::timestamptz)
            ON CONFLICT (transfer_id, step) DO NOTHING
            RETURNING ${stepColumns()}
          ), due AS (
            UPDATE transfers SET next_run_at = LEAST(COALESCE(next_run_at, ${now}::timestamptz), ${now}::timestamptz)
            WHERE id = ${t.id} RETURNING 1
          )${sideWriteCte}
          SELECT ins.*, 1 AS _locked FROM (SELECT 1) AS one LEFT JOIN ins ON true`;
    const raw = rows[0];
    if (opts?.whileStatusUnchanged && !Number(raw?._locked)) return null;
    if (raw?.id != null) {
      const { _locked, ...row } = raw;
      return stepFromSql(row);
    }
    // the intent existed already (written by an earlier attempt)
    return this.prisma.sagaStep.findUniqueOrThrow({ where: { transferId_step: { transferId: t.id, step } } });
  }

  /** Records an attempt's result: the state, what it found (saga_steps.response, kept when absent) and the last error. */
  async settle(s: SagaStep, state: StepState, response?: StepOutcome, lastError?: string): Promise<void> {
    const updated = await this.prisma.sagaStep.update({
      where: { id: s.id },
      data: {
        state,
        attempts: { increment: 1 },
        ...(response ? { response: response satisfies Prisma.InputJsonObject } : {}),
        lastError: lastError ?? null,
        updatedAt: this.clock.now(),
      },
    });
    // the caller's copy follows (the saga carries its steps between decisions)
    Object.assign(s, updated);
  }

  /**
   * settle() as one SQL statement, to be written together with the move it calls for (TransferRepository, ChangeRequest
   * sideWrite); `written()` then brings the caller's copy up to date.
   */
  settlement(s: SagaStep, state: StepState, response?: StepOutcome, lastError?: string): Settlement {
    const now = this.clock.now();
    const resp = response ? Prisma.sql`${JSON.stringify(response)}::jsonb` : Prisma.sql`response`;
    return {
      sql: Prisma.sql`UPDATE saga_steps SET state = ${state}::saga_step_state, attempts = attempts + 1, response = ${resp},
                        last_error = ${lastError ?? null}::text, updated_at = ${now}::timestamptz
                      WHERE id = ${s.id} RETURNING 1`,
      written: () =>
        Object.assign(s, {
          state,
          attempts: s.attempts + 1,
          response: response ?? s.response,
          lastError: lastError ?? null,
          updatedAt: now,
        }),
    };
  }

  /** A settlement written alone. */
  async write(s: Settlement): Promise<void> {
    await this.sql.query`WITH a AS (${s.sql}) SELECT count(*)::int AS n FROM a`;
    s.written();
  }

  /** A funding check interrupted by the transfer's end (e.g. the quote expired while it was being retried) moved no money: FAILED. */
  async abandonCheck(transferId: string, status: string): Promise<void> {
    await this.prisma.sagaStep.updateMany({
      where: { transferId, step: 'check', state: { in: ['PENDING', 'UNKNOWN'] } },
      data: { state: 'FAILED', lastError: `abandoned: transfer ${status}`, updatedAt: this.clock.now() },
    });
  }
}
