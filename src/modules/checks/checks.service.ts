import { randomUUID } from 'node:crypto';
import { badField, badFields, badInput } from '../../shared/errors';
import type { GatewayClient } from '../../upstream/gateway/gateway.client';
import type {
  AccountCheckRequest,
  AccountTokenCheck,
  CardCheck as GatewayCardCheck,
  CardCheckRequest,
  CheckDocument,
} from '../../upstream/gateway/gateway.types';
import { gatewayCheckAddress, type PostalAddress } from '../../shared/address';
import { holderDigest, type FundingCredentials } from './checks.credentials';
import { alpha3 } from '../../shared/countries';
import { returnUrlProblem, withReturnUrl, type ReturnUrlPolicy } from '../../shared/return-url';

interface DocumentArgs {
  number: string;
  type: string;
  countryCode: string;
}
interface CardHolderArgs {
  firstName: string;
  lastName: string;
  email: string;
  phoneNumber: string;
  birthDate?: string;
  documents: DocumentArgs[];
  address?: PostalAddress;
}
export interface CardCheckArgs {
  cardToken: string;
  sender: CardHolderArgs;
}

interface CardCheckView {
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

interface AccountHolderArgs {
  firstName: string;
  lastName: string;
  email: string;
  phoneNumber: string;
  documents: DocumentArgs[];
  address: PostalAddress;
}
export interface BankCheckArgs {
  linked?: { accountCheckToken: string; accountCheckId: string; countryCode: string };
  holder?: AccountHolderArgs;
  account?: { type: string; accountType: string; accountNumber: string; routingNumber?: string; bankCode?: string; countryCode: string };
}

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

/** The sender of a KYC'd person, as a check names the card or account holder. */
interface SenderParty {
  customer: {
    firstName: string;
    lastName: string;
    email: string;
    phoneNumber: string;
    documentNumber: string;
    documentType: string;
    countryCode: string;
  };
  address: PostalAddress;
}
/** Finds the caller's APPROVED person as a sender (NOT_FOUND for another caller's, BAD_USER_INPUT when it cannot send). */
export type SenderLookup = (ownerId: string, personId: string) => Promise<SenderParty>;

const CARD_NAME = /^(?!\s*(mr|mrs|ms|miss|mx|dr|prof|sir|madam|rev)\.?(\s|$))(?!.*\s(jr|sr|ii|iii|iv|phd|md|esq|dds)\.?\s*$).{1,35}$/i;

/**
 * Why a sender's name cannot be a cardholder name for the card networks (at most 35 characters, no prefix such as
 * Mr or Dr, no suffix such as Jr or III), for a BAD_USER_INPUT before the card is checked or charged; or null.
 */
export function cardholderNameProblem(sender: SenderParty): string | null {
  const bad = (['firstName', 'lastName'] as const).filter((k) => !CARD_NAME.test(sender.customer[k]));
  return bad.length
    ? `personId: the person's ${bad.join(' and ')} cannot be a cardholder name (at most 35 characters, no prefix such as Mr or suffix such as Jr); create the person with the name as on the card`
    : null;
}

/** The card or account holder a check sends for a sender: its name, contact, identity document and address. */
export function holderOf(sender: SenderParty): AccountHolderArgs {
  const c = sender.customer;
  return {
    firstName: c.firstName,
    lastName: c.lastName,
    email: c.email,
    phoneNumber: c.phoneNumber,
    documents: [{ number: c.documentNumber, type: c.documentType, countryCode: c.countryCode }],
    address: sender.address,
  };
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

/** Gateway documents/addresses in alpha-3, as the card check and form B want. */
const gatewayDocuments = (docs: DocumentArgs[]): CheckDocument[] =>
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
