import { Authorized, Ctx, Query, Resolver } from 'type-graphql';
import type { GraphQLContext } from '../../graphql/context';
import { Viewer } from './viewer.types';

@Resolver(() => Viewer)
export class ViewerResolver {
  @Authorized()
  @Query(() => Viewer, {
    description:
      'Any authenticated caller: who is calling, `{ id, role }` from the bearer token. UNAUTHENTICATED when anonymous or the token is invalid or expired.',
  })
  viewer(@Ctx() ctx: GraphQLContext): Viewer {
    return { id: ctx.caller!.userId, role: ctx.caller!.role };
  }
}
