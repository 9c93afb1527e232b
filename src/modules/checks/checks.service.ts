import { randomUUID } from 'node:crypto';
import { badInput } from '../../shared/errors';
import type { GatewayClient } from '../../upstream/gateway/gateway.client';
import type { AccountCheckRequest, AccountTokenCheck, CardCheck as GatewayCardCheck, CardCheckRequest, CheckDocument } from '../../upstream/gateway/gateway.types';
import { gatewayCheckAddress, type PostalAddress } from '../../shared/address';
import { toAppError } from '../../upstream/http/upstream.errors';
import type { FundingCredentials } from './checks.credentials';
import { alpha3 } from './countries';

export interface DocumentArgs { number: string; type: string; countryCode: string }
export interface CardHolderArgs {
  firstName: string;
  lastName: string;
  email: string;
  phoneNumber: string;
  birthDate?: string;
  documents: DocumentArgs[];
  address?: PostalAddress;
}
export interface CardCheckArgs { cardToken: string; sender: CardHolderArgs }

export interface CardCheckView {
  status: 'APPROVED' | 'CHALLENGE' | 'FAILED';
  redirectUrl: string | null;
  reasons: string[];
  avs: string;
  cvc: string;
  aavCardholderName: string | null;
  bin: string | null;
  lastFour: string | null;
  issuerName: string | null;
  canFund: boolean | null;
  canReceive: boolean | null;
}

export interface BankCheckArgs {
  linked?: { accountCheckToken: string; accountCheckId: string; countryCode: string };
  holder?: { firstName: string; lastName: string; email: string; phoneNumber: string; documents: DocumentArgs[]; address: PostalAddress };
  account?: { type: string; accountType: string; accountNumber: string; routingNumber?: string; bankCode?: string; countryCode: string };
}

export interface BankCheckView {
  status: 'APPROVED' | 'DECLINED' | 'VERIFIED';
  accountToken: string | null;
  accountStatus: string | null;
  message: string | null;
  bankAccountName: string | null;
  accountNumberMasked: string | null;
  routingNumberMasked: string | null;
}

/** Gateway documents/addresses in alpha-3, as the card check and form B want. */
export const gatewayDocuments = (docs: DocumentArgs[]): CheckDocument[] =>
  docs.map((d) => ({ document: d.number, type: d.type, countryCode: alpha3(d.countryCode) }));

/** The v2 card check body; `clientIp` is the customer's address as the service saw the request. */
export function cardCheckRequest(args: CardCheckArgs, clientIp: string, externalPaymentId?: string): CardCheckRequest {
  const s = args.sender;
  return {
    ...(externalPaymentId ? { externalPaymentId } : {}),
    ipAddress: clientIp,
    sender: {
      firstName: s.firstName,
      lastName: s.lastName,
      email: s.email,
      phoneNumber: s.phoneNumber,
      ...(s.birthDate ? { birthDate: s.birthDate } : {}),
      documents: gatewayDocuments(s.documents),
      ...(s.address ? { address: gatewayCheckAddress(s.address, 'alpha3') } : {}),
      paymentMethod: { type: 'CARD', cardTokenId: args.cardToken },
    },
  };
}

/**
 * What a v2 card check means for funding a transfer. Policy (decision): FAILED on any FAILED result (avs,
 * cvc, cardholder name) or when the card cannot fund pulls (aftStatus.capable false); NOT_SUPPORTED,
 * NOT_SENT and PARTIAL_MATCH pass (the issuer or network lacks the check, or it is a near match).
 */
export function evaluateCardCheck(r: GatewayCardCheck): CardCheckView {
  const reasons: string[] = [];
  if (!r.redirectAcsUrl) {
    if (r.verificationResults.cvc === 'FAILED') reasons.push('cvc FAILED');
    if (r.verificationResults.avs === 'FAILED') reasons.push('avs FAILED');
    if (r.verificationResults.aavCardholderName === 'FAILED') reasons.push('cardholder name FAILED');
    if (r.aftStatus && !r.aftStatus.capable) reasons.push('card cannot fund pull payments');
  }
  return {
    status: r.redirectAcsUrl ? 'CHALLENGE' : reasons.length ? 'FAILED' : 'APPROVED',
    redirectUrl: r.redirectAcsUrl || null,
    reasons,
    avs: r.verificationResults.avs,
    cvc: r.verificationResults.cvc,
    aavCardholderName: r.verificationResults.aavCardholderName ?? null,
    bin: r.card?.bin ?? null,
    lastFour: r.card?.lastFour ?? null,
    issuerName: r.card?.issuerName ?? null,
    canFund: r.aftStatus?.capable ?? null,
    canReceive: r.octStatus?.capable ?? null,
  };
}

export function accountCheckRequest(args: BankCheckArgs, clientIp: string, externalPaymentId: string): AccountCheckRequest {
  const h = args.holder!;
  const a = args.account!;
  return {
    externalPaymentId,
    ipAddress: clientIp,
    sender: {
      firstName: h.firstName,
      lastName: h.lastName,
      email: h.email,
      phoneNumber: h.phoneNumber,
      documents: gatewayDocuments(h.documents),
      address: gatewayCheckAddress(h.address, 'alpha2'),
      paymentMethod: {
        type: a.type,
        accountType: a.accountType as AccountCheckRequest['sender']['paymentMethod']['accountType'],
        accountNumber: a.accountNumber,
        ...(a.routingNumber ? { routingNumber: a.routingNumber } : {}),
        ...(a.bankCode ? { bankCode: a.bankCode } : {}),
        countryCode: a.countryCode,
      },
    },
  };
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
  ) {}

  async checkCard(ownerId: string, clientIp: string, args: CardCheckArgs): Promise<CardCheckView> {
    await this.credentials.assertCheckable('card', args.cardToken, ownerId);
    let r: GatewayCardCheck;
    try {
      r = await this.gateway.checkCard(cardCheckRequest(args, clientIp, randomUUID()));
    } catch (e) {
      throw toAppError(e);
    }
    const view = evaluateCardCheck(r);
    // Only a card the gateway accepted (or challenges) is bound: a failed check must not let whoever learnt a token
    // claim it, nor count as a fresh check for funding.
    if (view.status !== 'FAILED') await this.credentials.bind('card', args.cardToken, ownerId);
    return view;
  }

  async checkBankAccount(ownerId: string, clientIp: string, args: BankCheckArgs): Promise<BankCheckView> {
    const raw = Boolean(args.holder || args.account);
    if (Boolean(args.linked) === raw) throw badInput('Give either linked (bank-linking widget) or holder + account (raw details)');
    if (args.linked) return this.checkLinkedAccount(ownerId, args.linked);
    if (!args.holder || !args.account) throw badInput('holder and account are both required for a raw-details check');
    if (args.account.countryCode === 'US' && !args.account.routingNumber) throw badInput('routingNumber is required for a US account');
    if (args.account.countryCode !== 'US' && !args.account.bankCode) throw badInput('bankCode is required outside the US');
    try {
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
    } catch (e) {
      throw toAppError(e);
    }
  }

  /**
   * Form A. The widget's public token is bound like the account token it yields: replaying another customer's
   * widget result is refused before the gateway is asked (it would link their account to the caller).
   */
  private async checkLinkedAccount(ownerId: string, linked: NonNullable<BankCheckArgs['linked']>): Promise<BankCheckView> {
    await this.credentials.assertCheckable('link_token', linked.accountCheckToken, ownerId);
    let r: AccountTokenCheck;
    try {
      r = await this.gateway.checkBankAccountToken({ externalPaymentId: randomUUID(), sender: { paymentMethod: { type: 'BANK_DEPOSIT', ...linked } } });
    } catch (e) {
      throw toAppError(e);
    }
    if (r.approved) {
      await this.credentials.bind('link_token', linked.accountCheckToken, ownerId);
      await this.credentials.bind('account_token', r.accountTokenId, ownerId);
    }
    return {
      status: r.approved ? 'VERIFIED' : 'DECLINED',
      accountToken: r.approved ? r.accountTokenId : null,
      accountStatus: null,
      message: null,
      bankAccountName: r.bankAccountName ?? null,
      accountNumberMasked: r.accountNumberMasked ?? null,
      routingNumberMasked: r.routingNumberMasked ?? null,
    };
  }
}
