/**
 * What the checks module offers other modules: the funding credentials' type, and the pure rules of a check —
 * the holder sent for a sender, the cardholder-name rule, the gateway's check bodies and what a card check's answer means.
 */
import { gatewayCheckAddress, type PostalAddress } from '../../shared/address';
import { alpha3 } from '../../shared/countries';
import { canonicalDigest } from '../../shared/json';
import type {
  AccountCheckRequest,
  CardCheck as GatewayCardCheck,
  CardCheckRequest,
  CheckDocument,
} from '../../upstream/gateway/gateway.types';
import type { Sender } from '../kyc/kyc.ports';

export type { FundingCredentials } from './checks.credentials.repository';

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

const CARD_NAME = /^(?!\s*(mr|mrs|ms|miss|mx|dr|prof|sir|madam|rev)\.?(\s|$))(?!.*\s(jr|sr|ii|iii|iv|phd|md|esq|dds)\.?\s*$).{1,35}$/i;

/**
 * Why a sender's name cannot be a cardholder name for the card networks (at most 35 characters, no prefix such as
 * Mr or Dr, no suffix such as Jr or III), for a BAD_USER_INPUT before the card is checked or charged; or null.
 */
export function cardholderNameProblem(sender: Sender): string | null {
  const bad = (['firstName', 'lastName'] as const).filter((k) => !CARD_NAME.test(sender.customer[k]));
  return bad.length
    ? `personId: the person's ${bad.join(' and ')} cannot be a cardholder name (at most 35 characters, no prefix such as Mr or suffix such as Jr); create the person with the name as on the card`
    : null;
}

/** The card or account holder a check sends for a sender: its name, contact, identity document and address. */
export function holderOf(sender: Sender): AccountHolderArgs {
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

/** The digest of a card holder (who a card check was asked for): a reused check must have been for the same holder. */
export const holderDigest = (holder: unknown): string => canonicalDigest(holder);

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
