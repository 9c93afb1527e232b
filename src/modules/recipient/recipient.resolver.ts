import { Arg, Args, Authorized, Ctx, ID, Mutation, Query, Resolver } from 'type-graphql';
import type { GraphQLContext } from '../../graphql/context';
import { requireCaller } from '../../graphql/auth-checker';
import { connectionOf, decodeKeyset, keysetCursor, PageArgs, pageSize } from '../../graphql/relay';
import { RecipientInput } from '../../graphql/recipient.types';
import type { RecipientService } from './recipient.service';
import { Recipient, RecipientConnection } from './recipient.types';

@Resolver(() => Recipient)
export class RecipientResolver {
  constructor(private readonly service: RecipientService) {}

  @Authorized()
  @Mutation(() => Recipient, {
    description:
      "Any authenticated caller, for themselves: saves a recipient to send to again (createTransfer with recipientId). Checked as strictly as createTransfer's recipient, before anything else; a PIX key is then looked up in the alias directory: one it does not know is BAD_USER_INPUT (extensions.reason PIX_KEY_NOT_FOUND), and the holder's masked name is kept (holderName). Counts against the alias look-up quota (RATE_LIMITED beyond it). At most 200 saved recipients per caller. Not idempotent: each call saves another recipient.",
  })
  createRecipient(
    @Arg('input', () => RecipientInput, { description: 'The recipient: as createTransfer takes it inline.' }) input: RecipientInput,
    @Ctx() ctx: GraphQLContext,
  ): Promise<Recipient> {
    return this.service.create(requireCaller(ctx).userId, input);
  }

  @Authorized()
  @Query(() => RecipientConnection, {
    description:
      "Any authenticated caller: the caller's own saved recipients, newest first (Relay connection: `first` 1 to 100, default 20). Never another caller's.",
  })
  async recipients(@Args() page: PageArgs, @Ctx() ctx: GraphQLContext): Promise<RecipientConnection> {
    const size = pageSize(page.first);
    const after = page.after ? decodeKeyset(page.after) : null;
    const r = await this.service.list(requireCaller(ctx).userId, after, size);
    return connectionOf(
      r.rows.map((x) => ({ cursor: keysetCursor(x), node: x })),
      r.hasNextPage,
      Boolean(after),
    );
  }

  @Authorized()
  @Mutation(() => Boolean, {
    description:
      "Any authenticated caller: deletes one of the caller's saved recipients (true). Another caller's, an unknown or a malformed id is NOT_FOUND. Transfers made from it keep their own copy of the recipient.",
  })
  async deleteRecipient(
    @Arg('id', () => ID, { description: 'The saved recipient (Recipient.id).' }) id: string,
    @Ctx() ctx: GraphQLContext,
  ): Promise<boolean> {
    await this.service.delete(requireCaller(ctx).userId, id);
    return true;
  }
}
