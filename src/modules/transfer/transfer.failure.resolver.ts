import { Ctx, FieldResolver, Resolver, Root } from 'type-graphql';
import type { GraphQLContext } from '../../graphql/context';
import { requireCaller } from '../../graphql/auth-checker';
import { isStaff } from '../../auth/auth.types';
import { transferFailureMessage } from '../../shared/messages';
import { Failure } from './transfer.types';

/** A transfer failure's words: the customer's, in the request's language, and the recorded detail for staff. */
@Resolver(() => Failure)
export class FailureResolver {
  @FieldResolver(() => String, {
    description:
      "What happened and what to do, for the customer, in the request's language (Accept-Language; over graphql-ws the connection's). May change: branch on code.",
  })
  message(@Root() f: Failure, @Ctx() ctx: GraphQLContext): string {
    return transferFailureMessage(f.code, ctx.language);
  }

  // The role is checked in the body: Failure uses simpleResolvers, which must not carry @Authorized fields.
  @FieldResolver(() => String, {
    nullable: true,
    description:
      "Back-office and admins: what the service recorded when it happened, for people who investigate (English; e.g. the reasons of a failed card check, the gateway's decline message); with code OTHER, the recorded code first. Null for customers.",
  })
  detail(@Root() f: Failure, @Ctx() ctx: GraphQLContext): string | null {
    if (!isStaff(requireCaller(ctx))) return null;
    if (f.recordedCode !== f.code) return f.recordedMessage ? `${f.recordedCode}: ${f.recordedMessage}` : f.recordedCode;
    return f.recordedMessage;
  }
}
