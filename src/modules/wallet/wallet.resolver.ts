import { Arg, Args, Authorized, Ctx, ID, Mutation, Query, Resolver } from 'type-graphql';
import type { GraphQLContext } from '../../graphql/context';
import { offsetConnection, pageRequest } from '../../graphql/relay';
import type { WalletService } from './wallet.service';
import { CreateWalletInput, StatementConnection, StatementEntryType, Wallet, WalletBalance, WalletStatementArgs } from './wallet.types';

@Resolver(() => Wallet)
export class WalletResolver {
  constructor(private readonly wallets: WalletService) {}

  @Authorized('customer')
  @Mutation(() => Wallet, {
    description:
      'Customers: open a gateway wallet of your own. Not idempotent: each call opens a new wallet. BAD_USER_INPUT when the gateway refuses currency or type.',
  })
  createWallet(
    @Arg('input', () => CreateWalletInput, { description: 'Currency and type of the wallet.' }) input: CreateWalletInput,
    @Ctx() ctx: GraphQLContext,
  ): Promise<Wallet> {
    return this.wallets.create(ctx.caller!, input);
  }

  @Authorized('customer', 'backoffice', 'admin')
  @Query(() => Wallet, { description: 'A wallet: customers see only their own (NOT_FOUND otherwise); back-office and admins any.' })
  wallet(@Arg('id', () => ID, { description: 'The wallet id.' }) id: string, @Ctx() ctx: GraphQLContext): Promise<Wallet> {
    return this.wallets.get(ctx.caller!, id);
  }

  @Authorized('customer', 'backoffice', 'admin')
  @Query(() => WalletBalance, { description: "A wallet's balance: customers only their own; back-office and admins any." })
  walletBalance(
    @Arg('walletId', () => ID, { description: 'The wallet id.' }) walletId: string,
    @Ctx() ctx: GraphQLContext,
  ): Promise<WalletBalance> {
    return this.wallets.balance(ctx.caller!, walletId);
  }

  @Authorized('customer', 'backoffice', 'admin')
  @Query(() => StatementConnection, {
    description:
      "A wallet's movements between two times, oldest first, page by page. Customers only their own; back-office and admins any.",
  })
  async walletStatement(@Args() args: WalletStatementArgs, @Ctx() ctx: GraphQLContext): Promise<StatementConnection> {
    const page = await this.wallets.statement(ctx.caller!, args.walletId, args, pageRequest(args.first, args.after));
    return offsetConnection({ ...page, items: page.items.map((e) => ({ ...e, type: StatementEntryType[e.type] })) });
  }
}
