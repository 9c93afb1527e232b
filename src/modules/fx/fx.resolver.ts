import { Arg, Authorized, Ctx, Mutation, Resolver } from 'type-graphql';
import type { GraphQLContext } from '../../graphql/context';
import { requireCaller } from '../../graphql/auth-checker';
import { FxService } from './fx.service';
import { CreateQuoteInput, Quote } from './fx.types';

@Resolver(() => Quote)
export class FxResolver {
  constructor(private readonly fx: FxService) {}

  @Authorized()
  @Mutation(() => Quote, {
    description:
      'Any authenticated caller: an FX v2 quote for yourself; use its id in one createTransfer before expiresAt. Not idempotent: every call asks the gateway for a new quote. Errors: BAD_USER_INPUT (e.g. too many decimals), UPSTREAM_REJECTED, UPSTREAM_UNAVAILABLE, RATE_LIMITED.',
  })
  async createQuote(@Arg('input', { description: 'The currencies, payment method and amount to quote.' }) input: CreateQuoteInput, @Ctx() ctx: GraphQLContext): Promise<Quote> {
    const caller = requireCaller(ctx);
    return this.fx.createQuote(caller.userId, input);
  }
}
