import { Arg, Args, Authorized, Ctx, ID, Mutation, Query, Resolver } from 'type-graphql';
import type { GraphQLContext } from '../../graphql/context';
import { offsetConnection, PageArgs, pageRequest } from '../../graphql/relay';
import type { AdminService } from './admin.service';
import { AgentConnection, CreateAgentInput, CreatedAgent, PayerBalance, PlatformDocumentConnection } from './admin.types';

@Resolver()
export class AdminResolver {
  constructor(private readonly admin: AdminService) {}

  @Authorized('backoffice', 'admin')
  @Query(() => [PayerBalance], { description: 'Back-office and admins: what each payout provider holds for us, per currency.' })
  payerBalances(): Promise<PayerBalance[]> {
    return this.admin.payerBalances();
  }

  @Authorized('admin')
  @Mutation(() => CreatedAgent, {
    description: 'Admins: create an agent at the remittances platform. Its API key is in this response only; it starts PENDING_APPROVAL.',
  })
  createAgent(
    @Arg('input', () => CreateAgentInput, { description: 'The agent to create.' }) input: CreateAgentInput,
    @Ctx() ctx: GraphQLContext,
  ): Promise<CreatedAgent> {
    return this.admin.createAgent(ctx.caller!, input);
  }

  @Authorized('backoffice', 'admin')
  @Query(() => AgentConnection, {
    description:
      'Back-office and admins: the agents created through this service (never their API keys), newest first, with the status the platform last reported.',
  })
  async agents(@Args() args: PageArgs): Promise<AgentConnection> {
    return offsetConnection(await this.admin.agents(pageRequest(args.first, args.after)));
  }

  @Authorized('backoffice', 'admin')
  @Query(() => PlatformDocumentConnection, {
    description:
      "Back-office and admins: a platform person's documents with their latest verification result (document events), latest change first. Empty for an unknown person.",
  })
  async documents(
    @Arg('personId', () => ID, { description: 'The platform person (participant).' }) personId: string,
    @Args() args: PageArgs,
  ): Promise<PlatformDocumentConnection> {
    return offsetConnection(await this.admin.documents(personId, pageRequest(args.first, args.after)));
  }
}
