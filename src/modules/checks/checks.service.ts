import { randomUUID } from 'node:crypto';
import { badField, badFields, badInput } from '../../shared/errors';
import type { GatewayClient } from '../../upstream/gateway/gateway.client';
import type { AccountTokenCheck, CardCheck as GatewayCardCheck } from '../../upstream/gateway/gateway.types';
import type { SenderLookup } from '../kyc/kyc.ports';
import type { FundingCredentials } from './checks.credentials.repository';
import {
  accountCheckRequest,
  cardCheckRequest,
  cardholderNameProblem,
  evaluateCardCheck,
  holderDigest,
  holderOf,
  type BankCheckArgs,
  type CardCheckArgs,
  type CardCheckView,
} from './checks.ports';
import { returnUrlProblem, withReturnUrl, type ReturnUrlPolicy } from '../../shared/return-url';

/** What the API takes: the holder is always the caller's KYC'd person (never typed again). */
interface CardCheckInput {
  cardToken: string;
  personId: string;
  /** Where the 3-D Secure page sends the browser back (checked against `returnUrls`), if a challenge comes. */
  threeDSReturnUrl?: string | null;
}
interface BankCheckInput {
  linked?: BankCheckArgs['linked'];
  account?: BankCheckArgs['account'];
  personId?: string;
}

interface BankCheckView {
  status: 'APPROVED' | 'DECLINED' | 'VERIFIED';
  accountToken: string | null;
  accountStatus: string | null;
  message: string | null;
  bankAccountName: string | null;
  accountNumberMasked: string | null;
  routingNumberMasked: string | null;
}

/**
 * Card and bank-account checks (no charge). What a check vouched for is bound to the caller (FundingCredentials):
 * the card token, the linked account's token (and the widget's public token that produced it). A
 * credential bound to another customer is refused before the gateway is asked; nothing else is stored.
 */
export class ChecksService {
  constructor(
    private readonly gateway: GatewayClient,
    private readonly credentials: FundingCredentials,
    private readonly senders: SenderLookup,
    /** The 3-D Secure return URLs an app may give (THREE_DS_RETURN_URL_HOSTS). */
    private readonly returnUrls: ReturnUrlPolicy,
  ) {}

  async checkCard(ownerId: string, clientIp: string, input: CardCheckInput): Promise<CardCheckView> {
    const returnUrl = input.threeDSReturnUrl ?? null;
    const returnProblem = returnUrl === null ? null : returnUrlProblem(returnUrl, this.returnUrls);
    if (returnProblem) throw badField('input.threeDSReturnUrl', 'INVALID', returnProblem);
    const sender = await this.senders(ownerId, input.personId);
    const nameProblem = cardholderNameProblem(sender);
    if (nameProblem) throw badField('input.personId', 'INVALID_CARDHOLDER_NAME', nameProblem);
    const args: CardCheckArgs = { cardToken: input.cardToken, sender: holderOf(sender) };
    await this.credentials.assertCheckable('card', args.cardToken, ownerId);
    const r: GatewayCardCheck = await this.gateway.checkCard(cardCheckRequest(args, clientIp, randomUUID()));
    const view = evaluateCardCheck(r);
    if (view.redirectUrl) view.redirectUrl = withReturnUrl(view.redirectUrl, returnUrl);
    // Only a card the gateway accepted (or challenges) is bound: a failed check must not let whoever learnt a token
    // claim it, nor count as a fresh check for funding. An approval (no 3-D Secure) is remembered for this holder: a
    // transfer soon after reuses it instead of checking the card again.
    if (view.status !== 'FAILED')
      await this.credentials.bind(
        'card',
        args.cardToken,
        ownerId,
        view.status === 'APPROVED' ? holderDigest(args.sender) : null,
        view.lastFour,
      );
    return view;
  }

  async checkBankAccount(ownerId: string, clientIp: string, input: BankCheckInput): Promise<BankCheckView> {
    const raw = Boolean(input.personId || input.account);
    if (Boolean(input.linked) === raw) throw badInput('Give either linked (bank-linking widget) or personId + account (raw details)');
    if (input.linked) return this.checkLinkedAccount(ownerId, input.linked);
    if (!input.personId || !input.account)
      throw badFields('personId and account are both required for a raw-details check', [
        ...(input.personId ? [] : [{ path: 'input.personId', code: 'REQUIRED' as const }]),
        ...(input.account ? [] : [{ path: 'input.account', code: 'REQUIRED' as const }]),
      ]);
    if (input.account.countryCode === 'US' && !input.account.routingNumber)
      throw badField('input.account.routingNumber', 'REQUIRED', 'account.routingNumber is required for a US account');
    if (input.account.countryCode !== 'US' && !input.account.bankCode)
      throw badField('input.account.bankCode', 'REQUIRED', 'account.bankCode is required outside the US');
    const args: BankCheckArgs = { holder: holderOf(await this.senders(ownerId, input.personId)), account: input.account };
    const r = await this.gateway.checkBankAccount(accountCheckRequest(args, clientIp, randomUUID()));
    return {
      status: r.status,
      accountToken: null,
      accountStatus: r.accountVerification.accountStatus,
      message: r.accountVerification.message ?? null,
      bankAccountName: null,
      accountNumberMasked: null,
      routingNumberMasked: null,
    };
  }

  /**
   * Form A. The widget's public token is bound like the account token it yields: replaying another customer's
   * widget result is refused before the gateway is asked (it would link their account to the caller).
   */
  private async checkLinkedAccount(ownerId: string, linked: NonNullable<BankCheckArgs['linked']>): Promise<BankCheckView> {
    await this.credentials.assertCheckable('link_token', linked.accountCheckToken, ownerId);
    const r: AccountTokenCheck = await this.gateway.checkBankAccountToken({
      externalPaymentId: randomUUID(),
      sender: { paymentMethod: { type: 'BANK_DEPOSIT', ...linked } },
    });
    const accountToken = r.approved ? r.accountTokenId! : null; // the schema holds approved → accountTokenId
    if (accountToken) {
      await this.credentials.bind('link_token', linked.accountCheckToken, ownerId);
      await this.credentials.bind('account_token', accountToken, ownerId, null, r.accountNumberMasked?.match(/(\d{4})$/)?.[1] ?? null);
    }
    return {
      status: accountToken ? 'VERIFIED' : 'DECLINED',
      accountToken,
      accountStatus: null,
      message: accountToken ? null : 'The bank account could not be linked: link it again with the bank-linking widget',
      bankAccountName: r.bankAccountName ?? null,
      accountNumberMasked: r.accountNumberMasked ?? null,
      routingNumberMasked: r.routingNumberMasked ?? null,
    };
  }
}
