import { Arg, Args, Authorized, Ctx, Mutation, Query, Resolver } from 'type-graphql';
import type { GraphQLContext } from '../../graphql/context';
import { requireCaller } from '../../graphql/auth-checker';
import { connectionOf, decodeKeyset, keysetCursor, PageArgs, pageSize } from '../../graphql/relay';
import { KycService } from './kyc.service';
import { PersonConnection, PersonInput, PersonResult, type PersonStatus } from './kyc.types';

@Resolver(() => PersonResult)
export class KycResolver {
  constructor(private readonly kyc: KycService) {}

  @Authorized()
  @Query(() => PersonConnection, {
    description:
      'Any authenticated caller: the caller\'s own KYC persons (createPerson), newest first, with their KYC status — an app shows "verified" from it without keeping a copy. Relay connection (`first` 1 to 100, default 20).',
  })
  async persons(@Args() page: PageArgs, @Ctx() ctx: GraphQLContext): Promise<PersonConnection> {
    const size = pageSize(page.first);
    const after = page.after ? decodeKeyset(page.after) : null;
    const r = await this.kyc.listPersons(requireCaller(ctx).userId, after, size);
    const edges = r.rows.map((p) => ({
      cursor: keysetCursor(p),
      node: { ...p, status: p.status as PersonStatus, canSend: p.requirements.length === 0 },
    }));
    return connectionOf(edges, r.hasNextPage, Boolean(after));
  }

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
