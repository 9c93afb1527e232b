import { Arg, Authorized, Ctx, FieldResolver, Mutation, Query, Resolver, Root } from 'type-graphql';
import { DecimalScalar } from '../../graphql/scalars';
import type { GraphQLContext } from '../../graphql/context';
import { requireCaller } from '../../graphql/auth-checker';
import { FxService } from './fx.service';
import { Corridor, CreateQuoteInput, FeeFundingType, Price, Quote } from './fx.types';

@Resolver(() => Quote)
export class FxResolver {
  constructor(private readonly fx: FxService) {}

  @Authorized()
  @Mutation(() => Quote, {
    description:
      'Any authenticated caller: an FX v2 quote for yourself; use its id in one createTransfer before expiresAt. Not idempotent: every call asks the gateway for a new quote. Errors: BAD_USER_INPUT (e.g. too many decimals, or sourceAmount outside the corridor bounds: extensions.minAmount / maxAmount, see `corridor`), UPSTREAM_REJECTED, UPSTREAM_UNAVAILABLE, RATE_LIMITED.',
  })
  async createQuote(
    @Arg('input', { description: 'The currencies, payment method and amount to quote.' }) input: CreateQuoteInput,
    @Ctx() ctx: GraphQLContext,
  ): Promise<Quote> {
    const caller = requireCaller(ctx);
    return this.fx.createQuote(caller.userId, input);
  }

  @Authorized()
  @Query(() => [Corridor], {
    description:
      'Any authenticated caller: the configured corridors and how much one transfer through each may send (read before quoting). Others follow the default: see `corridor`.',
  })
  corridors(): Corridor[] {
    return this.fx.listCorridors();
  }

  @Authorized()
  @Query(() => Corridor, {
    description: 'Any authenticated caller: the bounds that apply to one corridor (its own rule, else the default).',
  })
  corridor(
    @Arg('sourceCurrency', { description: 'ISO 4217 source currency, e.g. USD.' }) sourceCurrency: string,
    @Arg('destinationCurrency', { description: 'ISO 4217 destination currency, e.g. BRL.' }) destinationCurrency: string,
    @Arg('destinationCountry', () => String, { nullable: true, description: 'ISO 3166-1 alpha-2 destination country, e.g. BR.' })
    destinationCountry?: string | null,
  ): Corridor {
    return this.fx.corridor(sourceCurrency, destinationCurrency, destinationCountry);
  }
}

@Resolver(() => Corridor)
export class CorridorResolver {
  constructor(private readonly fx: FxService) {}

  @FieldResolver(() => Price, {
    description:
      'What sending sendAmount through this corridor costs with one funding type: the fee and the total, as a quote would price them (a calculator; no rate: that needs createQuote). BAD_USER_INPUT outside the corridor bounds.',
  })
  price(
    @Root() corridor: Corridor,
    @Arg('sendAmount', () => DecimalScalar, { description: 'The amount to send, in the source currency.' }) sendAmount: string,
    @Arg('fundingType', () => FeeFundingType, { description: 'CARD or BANK_ACCOUNT.' }) fundingType: FeeFundingType,
  ): Price {
    return this.fx.price(corridor, sendAmount, fundingType);
  }
}
