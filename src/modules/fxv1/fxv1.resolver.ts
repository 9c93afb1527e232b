import { Args, Authorized, Query, Resolver } from 'type-graphql';
import type { FxV1Service } from './fxv1.service';
import { FxQuoteV1, FxQuoteV1Args } from './fxv1.types';

@Resolver()
export class FxV1Resolver {
  constructor(private readonly fx: FxV1Service) {}

  @Authorized('customer', 'backoffice', 'admin')
  @Query(() => FxQuoteV1, {
    description: 'An indicative FX rate (gateway FX v1) when the payment method is not known yet. Customers, back-office and admins.',
  })
  fxQuoteV1(@Args() args: FxQuoteV1Args): Promise<FxQuoteV1> {
    return this.fx.quote(args.sourceCurrency, args.destinationCurrency);
  }
}
