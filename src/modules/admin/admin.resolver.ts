import { Arg, Args, Authorized, Ctx, Mutation, Query, Resolver } from 'type-graphql';
import type { GraphQLContext } from '../../graphql/context';
import { PageArgs } from '../../graphql/relay';
import type { AdminService } from './admin.service';
import { AgentConnection, CreateAgentInput, CreatedAgent, PayerBalance } from './admin.types';

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
  createAgent(@Arg('input', () => CreateAgentInput, { description: 'The agent to create.' }) input: CreateAgentInput, @Ctx() ctx: GraphQLContext): Promise<CreatedAgent> {
    return this.admin.createAgent(ctx.caller!, input);
  }

  @Authorized('backoffice', 'admin')
  @Query(() => AgentConnection, { description: 'Back-office and admins: the agents created through this service (never their API keys), newest first.' })
  agents(@Args() args: PageArgs): Promise<AgentConnection> {
    return this.admin.agents(args.first, args.after);
  }
}
