import type { PrismaClient } from '../../generated/prisma/client';
import type { Caller } from '../../auth/auth.types';
import type { GatewayClient } from '../../upstream/gateway/gateway.client';
import type { Wallet as UpstreamWallet } from '../../upstream/gateway/gateway.types';
import { decimalFromNumber } from '../../shared/decimal';
import { moneyOf } from '../../shared/money';
import { badField, notFound } from '../../shared/errors';
import { windowOfPages, type PageWindow } from '../../shared/page';

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
    const w = await this.gateway.createWallet({
      accountAsset: input.currency,
      ownerId: caller.userId,
      beneficiaryId: input.beneficiaryId ?? caller.userId,
      type: input.type,
    });
    await this.prisma.walletOwner.create({ data: { walletId: w.walletId, ownerId: caller.userId, accountAsset: w.accountAsset } });
    return walletView(w);
  }

  async get(caller: Caller, walletId: string) {
    await this.access(caller, walletId);
    return walletView(await this.gateway.getWallet(walletId));
  }

  async balance(caller: Caller, walletId: string) {
    await this.access(caller, walletId);
    const b = await this.gateway.getWalletBalance(walletId);
    return {
      walletId: b.walletId,
      available: money(b.availableBalance, b.accountAsset),
      held: money(b.heldBalance, b.accountAsset),
      total: money(b.totalBalance, b.accountAsset),
    };
  }

  /** A page of the statement over the gateway's zero-based pages (one or two upstream pages). */
  async statement(caller: Caller, walletId: string, q: { from?: Date; until?: Date }, window: PageWindow) {
    if (q.from && q.until && q.from > q.until) throw badField('from', 'OUT_OF_RANGE', 'from must not be after until');
    const currency = (await this.access(caller, walletId)) ?? (await this.gateway.getWallet(walletId)).accountAsset;
    const from = q.from?.toISOString();
    const until = q.until?.toISOString();
    return windowOfPages(window, (page, size) => this.gateway.getWalletStatement(walletId, { from, until, page, size }), {
      items: (s) => s.entries,
      total: (s) => s.totalEntries,
      item: (e) => ({
        transactionId: e.transactionId,
        externalId: e.externalId ?? null,
        type: e.type,
        amount: money(e.amount, currency),
        description: e.description ?? null,
        balanceAfter: e.balanceAfter === undefined ? null : money(e.balanceAfter, currency),
        createdAt: new Date(e.createdAt),
      }),
    });
  }

  /** Customers: the wallet must be theirs (NOT_FOUND otherwise). Returns the known currency, if recorded. */
  private async access(caller: Caller, walletId: string): Promise<string | null> {
    const row = await this.prisma.walletOwner.findUnique({ where: { walletId } });
    if (caller.role === 'customer' && row?.ownerId !== caller.userId) throw notFound('Wallet');
    return row?.accountAsset ?? null;
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
