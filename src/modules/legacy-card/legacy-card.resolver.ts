import { Arg, Authorized, Ctx, Mutation, Resolver } from 'type-graphql';
import type { GraphQLContext } from '../../graphql/context';
import type { LegacyCardService } from './legacy-card.service';
import { CheckCardLegacyInput, LegacyCardCheck } from './legacy-card.types';

@Resolver()
export class LegacyCardResolver {
  constructor(private readonly cards: LegacyCardService) {}

  @Authorized('customer')
  @Mutation(() => LegacyCardCheck, {
    description:
      'Customers: the legacy card check (no charge), for integrations that still need it. Only when the deployment enables it ' +
      '(CARD_CHECK_LEGACY_ENABLED); otherwise FORBIDDEN — use checkCard.',
  })
  checkCardLegacy(
    @Arg('input', () => CheckCardLegacyInput, { description: 'The card token, the cardholder and your idempotency key.' })
    input: CheckCardLegacyInput,
    @Ctx() ctx: GraphQLContext,
  ): Promise<LegacyCardCheck> {
    return this.cards.check(ctx.caller!, ctx.clientIp, input) as Promise<LegacyCardCheck>;
  }
}
