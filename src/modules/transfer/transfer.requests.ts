/**
 * What a transfer asks of the upstreams, as pure functions of what is stored: the transfer row's amounts and
 * ids, its details (the sender built from the KYC'd person, the recipient, the funding, the quote's fxId) —
 * and, at creation, the details themselves from the person's sender and the quote. No I/O: every body is
 * rebuilt identically on every attempt (the gateway checks a replayed payment against the first one).
 */
import type { Prisma, Quote } from '../../generated/prisma/client';

type Decimal = Prisma.Decimal;
import { gatewayPaymentAddress } from '../../shared/address';
import { dec, formatAmount, convert } from '../../shared/money';
import type {
  AccountCheckRequest,
  CardCheckRequest,
  PaymentCustomer,
  PullPushPaymentRequest,
  TokenPullPaymentRequest,
} from '../../upstream/gateway/gateway.types';
import { accountCheckRequest, cardCheckRequest, holderOf, type BankCheckArgs, type CardCheckArgs } from '../checks/checks.ports';
import { alpha3 } from '../../shared/countries';
import type { Sender } from '../kyc/kyc.ports';
import type { TransferDetails } from './transfer.columns';
import type { TransferRow } from './transfer.repository';

/** The transfer row's fields a payment is built from. */
export type PaymentFields = Pick<
  TransferRow,
  'externalPaymentId' | 'sendAmount' | 'feeAmount' | 'sendCurrency' | 'receiveAmount' | 'receiveCurrency' | 'rate'
>;

/**
 * What the sender pays and the gateway pulls: sendAmount + fee, exactly (the recipient gets sendAmount × rate; the
 * fee stays with the service). What is captured, refunded and cancelled is counted against it.
 */
export const totalOf = (t: Pick<TransferRow, 'sendAmount' | 'feeAmount'>): Decimal => t.sendAmount.plus(t.feeAmount);

// ── createTransfer ─────────────────────────────────────────────────────────────────────────────────

/** The details a new transfer keeps (transfers.details): the sender from the person, the rest as submitted, the quote's fxId. */
export function newTransferDetails(a: {
  clientIp: string;
  sender: Sender;
  recipient: TransferDetails['recipient'];
  funding: TransferDetails['funding'];
  quote: Pick<Quote, 'fxId' | 'expiresAt'>;
  threeDSReturnUrl?: string | null;
}): TransferDetails {
  return {
    ipAddress: a.clientIp,
    sender: a.sender,
    recipient: a.recipient,
    funding: a.funding,
    fxId: a.quote.fxId,
    quoteExpiresAt: a.quote.expiresAt.toISOString(),
    ...(a.threeDSReturnUrl ? { threeDSReturnUrl: a.threeDSReturnUrl } : {}),
  };
}

/** What the recipient gets: the quote's destination amount, or the source amount converted at its rate. */
export function receiveAmountOf(
  quote: Pick<Quote, 'destinationAmount' | 'destinationCurrency' | 'rate'> & { sourceAmount: NonNullable<Quote['sourceAmount']> },
): string {
  return quote.destinationAmount !== null
    ? formatAmount(quote.destinationAmount, quote.destinationCurrency)
    : convert(quote.sourceAmount, quote.rate, quote.destinationCurrency);
}

// ── funding check ──────────────────────────────────────────────────────────────────────────────────

/** The card check of a CARD transfer (the sender as the card holder), under the check step's idempotency key. */
export function cardCheck(d: TransferDetails, key: string): CardCheckRequest {
  const args: CardCheckArgs = { cardToken: d.funding.cardToken!, sender: holderOf(d.sender) };
  return cardCheckRequest(args, d.ipAddress, key);
}

/** The account check of a BANK_ACCOUNT transfer (the sender as the account holder), under the check step's key. */
export function accountCheck(d: TransferDetails, key: string): AccountCheckRequest {
  const b = d.funding.bankAccount!;
  const args: BankCheckArgs = {
    holder: holderOf(d.sender),
    account: {
      type: 'BANK_ACCOUNT',
      accountType: b.accountType,
      accountNumber: b.accountNumber,
      routingNumber: b.routingNumber,
      countryCode: b.countryCode,
    },
  };
  return accountCheckRequest(args, d.ipAddress, key);
}

// ── authorization ──────────────────────────────────────────────────────────────────────────────────

/** The PULLPUSH payment of a CARD or BANK_ACCOUNT transfer, authorized only (captured later). */
export function paymentRequest(t: PaymentFields, d: TransferDetails): PullPushPaymentRequest & { capture: false } {
  const customer = (c: TransferDetails['recipient']['customer'], countryCode: string): PaymentCustomer => ({
    firstName: c.firstName,
    lastName: c.lastName,
    phoneNumber: c.phoneNumber ?? '',
    documentNumber: c.documentNumber ?? '',
    documentType: c.documentType ?? '',
    email: c.email ?? '',
    countryCodeAlpha3: alpha3(countryCode),
  });
  const strip = <T extends object>(o: T): T => Object.fromEntries(Object.entries(o).filter(([, v]) => v !== '' && v !== undefined)) as T;
  const address = gatewayPaymentAddress;
  const s = d.sender.customer;
  const f = d.funding;
  const dest = d.recipient.destination;
  return {
    externalPaymentId: t.externalPaymentId,
    ipAddress: d.ipAddress,
    capture: false,
    amount: { total: formatAmount(totalOf(t), t.sendCurrency), currency: t.sendCurrency },
    recipientAmount: { total: formatAmount(t.receiveAmount, t.receiveCurrency), currency: t.receiveCurrency },
    exchangeRate: dec(t.rate).toFixed(),
    fxId: d.fxId,
    sender: {
      customer: customer(s, s.countryCode),
      customerAddress: address(d.sender.address),
      source:
        f.type === 'CARD'
          ? { type: 'CARD', card: { token: f.cardToken! } }
          : {
              type: 'BANK_ACCOUNT',
              accountType: f.bankAccount!.accountType.toLowerCase(),
              accountNumber: f.bankAccount!.accountNumber,
              routingNumber: f.bankAccount!.routingNumber,
              accountHolder: { type: 'personal', firstName: s.firstName, lastName: s.lastName },
            },
    },
    recipient: {
      customer: strip(customer(d.recipient.customer, d.recipient.address.countryCode)),
      customerAddress: address(d.recipient.address),
      destination:
        dest.type === 'WALLET'
          ? { type: 'WALLET', wallet: { walletId: dest.walletId! } }
          : { type: 'PIX', pix: { keyType: dest.pixKeyType!, key: dest.pixKey! } },
    },
  };
}

/** The PULL payment of an ACCOUNT_TOKEN transfer (the linked account's token), authorized only. */
export function tokenPullPaymentRequest(t: PaymentFields, d: TransferDetails): TokenPullPaymentRequest & { capture: false } {
  return {
    externalPaymentId: t.externalPaymentId,
    ipAddress: d.ipAddress,
    capture: false,
    amount: { total: formatAmount(totalOf(t), t.sendCurrency), currency: t.sendCurrency },
    sender: {
      firstName: d.sender.customer.firstName,
      lastName: d.sender.customer.lastName,
      paymentMethod: { type: 'BANK_DEPOSIT', accountTokenId: d.funding.accountToken! },
    },
  };
}
