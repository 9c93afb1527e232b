import { Arg, Authorized, Ctx, Mutation, Resolver } from 'type-graphql';
import type { GraphQLContext } from '../../graphql/context';
import { requireCaller } from '../../graphql/auth-checker';
import { ChecksService } from './checks.service';
import {
  BankAccountCheck,
  CardCheck,
  CheckBankAccountInput,
  CheckCardInput,
  type BankAccountCheckStatus,
  type CardCheckStatus,
} from './checks.types';

@Resolver()
export class ChecksResolver {
  constructor(private readonly checks: ChecksService) {}

  @Authorized()
  @Mutation(() => CardCheck, {
    description:
      "Any authenticated caller: v2 card check (no charge; the customer's IP is taken from the request): verification results or a 3-D Secure challenge URL. A failed check is an answer (FAILED), not an error. The card token becomes the caller's: only they can check it again or fund transfers with it (within CARD_CHECK_MAX_AGE_S of their latest check); a token another customer checked is NOT_FOUND.",
  })
  async checkCard(
    @Arg('input', { description: "The card token and the cardholder (the caller's KYC'd person)." }) input: CheckCardInput,
    @Ctx() ctx: GraphQLContext,
  ): Promise<CardCheck> {
    const r = await this.checks.checkCard(requireCaller(ctx).userId, ctx.clientIp, input);
    return { ...r, status: r.status as CardCheckStatus };
  }

  @Authorized()
  @Mutation(() => BankAccountCheck, {
    description:
      "Any authenticated caller: bank account check (no charge): linked-account token (form A) or raw-details verification (form B). BAD_USER_INPUT when both or neither form is given. DECLINED is an answer, not an error. A linked account's accountToken (and the widget result) becomes the caller's; a widget result another customer used is NOT_FOUND. A linked account funds no transfer (ACCOUNT_TOKEN funding is not offered; use BANK_ACCOUNT).",
  })
  async checkBankAccount(
    @Arg('input', { description: "Either linked, or personId + account (the customer's IP is taken from the request)." })
    input: CheckBankAccountInput,
    @Ctx() ctx: GraphQLContext,
  ): Promise<BankAccountCheck> {
    const r = await this.checks.checkBankAccount(requireCaller(ctx).userId, ctx.clientIp, input);
    return { ...r, status: r.status as BankAccountCheckStatus };
  }
}
