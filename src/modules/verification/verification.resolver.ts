import { Arg, Args, Authorized, Ctx, ID, Mutation, Query, Resolver } from 'type-graphql';
import type { GraphQLContext } from '../../graphql/context';
import type { VerificationService } from './verification.service';
import {
  CreateVerificationInput,
  PersonRequirements,
  PersonRequirementsArgs,
  StartVerificationSessionInput,
  Verification,
  VerificationSession,
} from './verification.types';

@Resolver()
export class VerificationResolver {
  constructor(private readonly kyc: VerificationService) {}

  @Authorized()
  @Query(() => PersonRequirements, {
    description: 'Which person fields a country requires (build the KYC form from it). Any authenticated caller.',
  })
  personRequirements(@Args() args: PersonRequirementsArgs): Promise<PersonRequirements> {
    return this.kyc.personRequirements(args.countryCode);
  }

  @Authorized('customer')
  @Mutation(() => VerificationSession, {
    description:
      'Customers: start an identity-verification session for yourself; open its `url` in the app. The session is tied to your user id.',
  })
  startVerificationSession(
    @Arg('input', () => StartVerificationSessionInput, { nullable: true, description: 'Optional settings.' })
    input: StartVerificationSessionInput | null,
    @Ctx() ctx: GraphQLContext,
  ): Promise<VerificationSession> {
    return this.kyc.startSession(ctx.caller!, input?.redirectUrl);
  }

  @Authorized('customer', 'backoffice', 'admin')
  @Query(() => VerificationSession, {
    description: 'A verification session: customers see only their own (NOT_FOUND otherwise); back-office and admins any.',
  })
  verificationSession(
    @Arg('id', () => ID, { description: 'The session id.' }) id: string,
    @Ctx() ctx: GraphQLContext,
  ): Promise<VerificationSession> {
    return this.kyc.getSession(ctx.caller!, id);
  }

  @Authorized('customer', 'backoffice', 'admin')
  @Query(() => Verification, {
    description:
      'One verification and its decision: customers see only those they ran (NOT_FOUND otherwise, without asking the verification API); back-office and admins any.',
  })
  verification(
    @Arg('id', () => ID, { description: 'The verification id (createVerification answered it).' }) id: string,
    @Ctx() ctx: GraphQLContext,
  ): Promise<Verification> {
    return this.kyc.getVerification(ctx.caller!, id);
  }

  @Authorized('customer')
  @Mutation(() => Verification, { description: "Customers: run a verification in one of your sessions (NOT_FOUND for anyone else's)." })
  createVerification(
    @Arg('input', () => CreateVerificationInput, { description: 'The session and the kind of verification.' })
    input: CreateVerificationInput,
    @Ctx() ctx: GraphQLContext,
  ): Promise<Verification> {
    return this.kyc.createVerification(ctx.caller!, input.sessionId, input.type);
  }
}
