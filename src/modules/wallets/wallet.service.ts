import type { PrismaClient } from '../../generated/prisma/client';
import type { Caller } from '../../auth/auth.types';
import type { GatewayClient } from '../../upstream/gateway/gateway.client';
import type { Wallet as UpstreamWallet } from '../../upstream/gateway/gateway.types';
import { isUpstreamError, toAppError } from '../../upstream/http/upstream.errors';
import { decimalFromNumber } from '../../shared/decimal';
import { moneyOf } from '../../shared/money';
import { badInput, notFound } from '../../shared/errors';
import { connectionFrom, pageRequest, pageWindow } from '../../graphql/relay';

const money = (n: number, currency: string) => moneyOf(decimalFromNumber(n), currency);

/**
 * Gateway wallets. The gateway has no notion of our users, so `wallet_owners` records who created each
 * wallet through us: customers reach only their own (another's id answers NOT_FOUND, like an unknown one);
 * back-office and admins reach any wallet the gateway knows.
 */
export class WalletService {
  constructor(
    private readonly prisma: PrismaClient,
    private readonly gateway: GatewayClient,
  ) {}

  async create(caller: Caller, input: { currency: string; type: string; beneficiaryId?: string }) {
    const w = await this.gateway
      .createWallet({ accountAsset: input.currency, ownerId: caller.userId, beneficiaryId: input.beneficiaryId ?? caller.userId, type: input.type })
      .catch((e: unknown) => {
        if (isUpstreamError(e) && e.kind === 'rejected' && e.status === 400) throw badInput('The gateway refused the wallet: check currency and type');
        throw toAppError(e);
      });
    await this.prisma.walletOwner.create({ data: { walletId: w.walletId, ownerId: caller.userId, accountAsset: w.accountAsset } });
    return walletView(w);
  }

  async get(caller: Caller, walletId: string) {
    await this.access(caller, walletId);
    return walletView(await this.read(() => this.gateway.getWallet(walletId)));
  }

  async balance(caller: Caller, walletId: string) {
    await this.access(caller, walletId);
    const b = await this.read(() => this.gateway.getWalletBalance(walletId));
    return {
      walletId: b.walletId,
      available: money(b.availableBalance, b.accountAsset),
      held: money(b.heldBalance, b.accountAsset),
      total: money(b.totalBalance, b.accountAsset),
    };
  }

  /** Statement as a Relay connection over the gateway's zero-based pages (one or two upstream pages). */
  async statement(caller: Caller, walletId: string, q: { from?: Date; until?: Date; first?: number; after?: string }) {
    if (q.from && q.until && q.from > q.until) throw badInput('from must not be after until');
    const currency = (await this.access(caller, walletId)) ?? (await this.read(() => this.gateway.getWallet(walletId))).accountAsset;
    const { offset, limit } = pageRequest(q.first, q.after);
    const { size, pages, skip } = pageWindow(offset, limit);
    const chunks = [];
    for (const page of pages) {
      const s = await this.read(() =>
        this.gateway.getWalletStatement(walletId, { from: q.from?.toISOString(), until: q.until?.toISOString(), page, size }),
      );
      chunks.push(s);
      if (s.entries.length < size) break;
    }
    const entries = chunks
      .flatMap((c) => c.entries)
      .slice(skip, skip + limit)
      .map((e) => ({
        transactionId: e.transactionId,
        externalId: e.externalId ?? null,
        type: e.type,
        amount: money(e.amount, currency),
        description: e.description ?? null,
        balanceAfter: e.balanceAfter === undefined ? null : money(e.balanceAfter, currency),
        createdAt: new Date(e.createdAt),
      }));
    return connectionFrom(entries as never[], offset, chunks[0]?.totalEntries ?? 0);
  }

  /** Customers: the wallet must be theirs (NOT_FOUND otherwise). Returns the known currency, if recorded. */
  private async access(caller: Caller, walletId: string): Promise<string | null> {
    const row = await this.prisma.walletOwner.findUnique({ where: { walletId } });
    if (caller.role === 'customer' && row?.ownerId !== caller.userId) throw notFound('Wallet');
    return row?.accountAsset ?? null;
  }

  private async read<T>(fn: () => Promise<T>): Promise<T> {
    try {
      return await fn();
    } catch (e) {
      if (isUpstreamError(e) && e.kind === 'not_found') throw notFound('Wallet');
      if (isUpstreamError(e) && e.kind === 'rejected' && e.status === 400) throw badInput('The gateway refused the statement query: check from and until');
      throw toAppError(e);
    }
  }
}

function walletView(w: UpstreamWallet) {
  return {
    id: w.walletId,
    currency: w.accountAsset,
    type: w.type ?? null,
    status: w.status,
    ownerId: w.ownerId ?? null,
    createdAt: w.createdAt ? new Date(w.createdAt) : null,
  };
}
