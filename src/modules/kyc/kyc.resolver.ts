import { Arg, Authorized, Ctx, Mutation, Resolver } from 'type-graphql';
import type { GraphQLContext } from '../../graphql/context';
import { requireCaller } from '../../graphql/auth-checker';
import { KycService } from './kyc.service';
import { PersonInput, PersonResult, type PersonStatus } from './kyc.types';

@Resolver(() => PersonResult)
export class KycResolver {
  constructor(private readonly kyc: KycService) {}

  @Authorized()
  @Mutation(() => PersonResult, {
    description:
      'Any authenticated caller: KYC check of a person without storing it (gateway /person/validate); id is always null. A REJECTED person is an answer, not an error.',
  })
  async validatePerson(@Arg('input', { description: 'The person to check.' }) input: PersonInput): Promise<PersonResult> {
    const r = await this.kyc.validatePerson(input);
    return { ...r, status: r.status as PersonStatus };
  }

  @Authorized()
  @Mutation(() => PersonResult, {
    description:
      'Any authenticated caller: creates the KYC person, owned by the caller; an APPROVED one gets an id to use as createTransfer.personId. A REJECTED person is an answer (no id), not an error. Not idempotent: each call asks the gateway again.',
  })
  async createPerson(
    @Arg('input', { description: 'The person to create.' }) input: PersonInput,
    @Ctx() ctx: GraphQLContext,
  ): Promise<PersonResult> {
    const caller = requireCaller(ctx);
    const r = await this.kyc.createPerson(caller.userId, input);
    return { ...r, status: r.status as PersonStatus };
  }
}
