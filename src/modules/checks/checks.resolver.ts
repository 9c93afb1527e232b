import { Arg, Authorized, Mutation, Resolver } from 'type-graphql';
import { ChecksService } from './checks.service';
import { BankAccountCheck, CardCheck, CheckBankAccountInput, CheckCardInput, type BankAccountCheckStatus, type CardCheckStatus } from './checks.types';

@Resolver()
export class ChecksResolver {
  constructor(private readonly checks: ChecksService) {}

  @Authorized()
  @Mutation(() => CardCheck, {
    description: 'Any authenticated caller: v2 card check (no charge, nothing stored): verification results or a 3-D Secure challenge URL. A failed check is an answer (FAILED), not an error.',
  })
  async checkCard(@Arg('input', { description: 'The card token and the cardholder.' }) input: CheckCardInput): Promise<CardCheck> {
    const r = await this.checks.checkCard(input);
    return { ...r, status: r.status as CardCheckStatus };
  }

  @Authorized()
  @Mutation(() => BankAccountCheck, {
    description:
      'Any authenticated caller: bank account check (no charge): linked-account token (form A) or raw-details verification (form B). BAD_USER_INPUT when both or neither form is given. DECLINED is an answer, not an error.',
  })
  async checkBankAccount(@Arg('input', { description: 'Either linked, or holder + account + ipAddress.' }) input: CheckBankAccountInput): Promise<BankAccountCheck> {
    const r = await this.checks.checkBankAccount(input);
    return { ...r, status: r.status as BankAccountCheckStatus };
  }
}
