import { Args, Authorized, Ctx, FieldResolver, Query, Resolver, Root } from 'type-graphql';
import type { GraphQLContext } from '../../graphql/context';
import { offsetConnection, pageRequest } from '../../graphql/relay';
import type { DirectoryService } from './directory.service';
import { AliasAccount, AliasResolution, Bank, BankArgs, BankConnection, BanksArgs, ResolveAliasArgs } from './directory.types';

@Resolver()
export class DirectoryResolver {
  constructor(private readonly directory: DirectoryService) {}

  @Authorized()
  @Query(() => AliasResolution, {
    description:
      "Look up who receives payments sent to an alias (PIX key, UPI VPA, PayNow mobile, …) on a country's instant payment rail. " +
      'Not found is an answer (AliasNotFound). The directory has a quota: each caller may look up a limited number of aliases ' +
      'per minute (RATE_LIMITED with extensions.retryAfterSeconds beyond it). Any authenticated caller.',
  })
  resolveAlias(@Args() args: ResolveAliasArgs): Promise<typeof AliasResolution> {
    return this.directory.resolveAlias(args.countryCode, args.keyType, args.key) as Promise<typeof AliasResolution>;
  }

  @Authorized()
  @Query(() => Bank, {
    nullable: true,
    description:
      'A bank by its national code, or null when the directory does not know it. Cached for a few minutes. Any authenticated caller.',
  })
  bank(@Args() args: BankArgs, @Ctx() ctx: GraphQLContext): Promise<Bank | null> {
    return this.directory.bank(ctx, args.countryCode, args.bankCode);
  }

  @Authorized()
  @Query(() => BankConnection, {
    description: 'The banks of a country, sorted by name, page by page (Relay connection). Any authenticated caller.',
  })
  banks(@Args() args: BanksArgs): Promise<BankConnection> {
    return this.directory.listBanks(args.countryCode, pageRequest(args.first, args.after)).then(offsetConnection);
  }
}

@Resolver(() => AliasAccount)
export class AliasAccountResolver {
  constructor(private readonly directory: DirectoryService) {}

  @FieldResolver(() => Bank, {
    nullable: true,
    description: 'The receiving bank from the bank directory (batched and cached), or null when unknown there.',
  })
  bank(@Root() account: AliasAccount, @Ctx() ctx: GraphQLContext): Promise<Bank | null> {
    return this.directory.bank(ctx, account.countryCode, account.bankCode);
  }
}
