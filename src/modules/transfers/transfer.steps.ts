import type { Prisma, PrismaClient, SagaStep } from '../../generated/prisma/client';
import type { Clock } from '../../shared/clock';
import type { AuthorizationOutcome, CheckOutcome, PaymentState } from './transfer.columns';
import type { TransferRepository, TransferRow } from './transfer.repository';

export type StepName = 'check' | 'authorize' | 'capture' | 'void';
export type StepState = 'SUCCEEDED' | 'FAILED' | 'UNKNOWN' | 'PENDING';

/** The Idempotency-Key a step sends upstream: the authorization's is the payment's own id, the others derive from it. */
export const stepKey = (t: Pick<TransferRow, 'externalPaymentId'>, step: StepName) =>
  step === 'authorize' ? t.externalPaymentId : `${t.externalPaymentId}:${step}`;

/**
 * The saga's intent log (saga_steps): one row per (transfer, step), written PENDING before the upstream call
 * and settled after it (SUCCEEDED / FAILED, or left PENDING / UNKNOWN to be re-run with the same key).
 */
export class SagaStepLog {
  constructor(
    private readonly prisma: PrismaClient,
    private readonly repo: TransferRepository,
    private readonly clock: Clock,
  ) {}

  /** The transfer's steps by name. */
  async of(transferId: string): Promise<Map<string, SagaStep>> {
    return new Map((await this.prisma.sagaStep.findMany({ where: { transferId } })).map((s) => [s.step, s]));
  }

  /**
   * Writes the intent row (idempotent: the (transfer, step) row is unique) — with `whileStatusUnchanged`, only if
   * the transfer is still in the status `t` was read in, checked under the transfer's row lock (null otherwise).
   */
  async record(
    t: TransferRow,
    step: StepName,
    request: Record<string, unknown>,
    opts?: { whileStatusUnchanged: true },
  ): Promise<SagaStep | null> {
    const key = stepKey(t, step);
    const now = this.clock.now();
    const insert = (db: Pick<PrismaClient, '$executeRaw'>) => db.$executeRaw`
      INSERT INTO saga_steps (id, transfer_id, step, idempotency_key, state, attempts, request, created_at, updated_at)
      VALUES (gen_random_uuid()::text, ${t.id}, ${step}, ${key}, 'PENDING', 0, ${JSON.stringify(request)}::jsonb, ${now}, ${now})
      ON CONFLICT (transfer_id, step) DO NOTHING`;
    if (!opts?.whileStatusUnchanged) await insert(this.prisma);
    else {
      const written = await this.prisma.$transaction(async (tx) => {
        const [row] = await tx.$queryRaw<{ status: string }[]>`SELECT status FROM transfers WHERE id = ${t.id} FOR UPDATE`;
        if (row?.status !== t.status) return false;
        await insert(tx);
        return true;
      });
      if (!written) return null;
    }
    // Due at once: should this process die before settling the step, the worker re-runs it once the lease expires.
    // (Only ever earlier; a holder that read the state before cannot defer it: scheduleIfUnchanged checks for it.)
    await this.repo.dueBy(t.id, now);
    return this.prisma.sagaStep.findUniqueOrThrow({ where: { transferId_step: { transferId: t.id, step } } });
  }

  /** Records an attempt's result: the state, what it found (saga_steps.response, kept when absent) and the last error. */
  async settle(
    s: SagaStep,
    state: StepState,
    response?: CheckOutcome | AuthorizationOutcome | PaymentState,
    lastError?: string,
  ): Promise<void> {
    await this.prisma.sagaStep.update({
      where: { id: s.id },
      data: {
        state,
        attempts: { increment: 1 },
        ...(response ? { response: response satisfies Prisma.InputJsonObject } : {}),
        lastError: lastError ?? null,
        updatedAt: this.clock.now(),
      },
    });
  }

  /** A funding check interrupted by the transfer's end (e.g. the quote expired while it was being retried) moved no money: FAILED. */
  async abandonCheck(transferId: string, status: string): Promise<void> {
    await this.prisma.sagaStep.updateMany({
      where: { transferId, step: 'check', state: { in: ['PENDING', 'UNKNOWN'] } },
      data: { state: 'FAILED', lastError: `abandoned: transfer ${status}`, updatedAt: this.clock.now() },
    });
  }
}
