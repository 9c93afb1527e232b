/**
 * The transfer's upstream bodies (transfer.requests.ts) are pure functions of the stored row and details: no
 * database, no clock. Each body is spelled out here once, so a change of the mapping is a visible change of
 * what the gateway receives (a replayed payment must be the same as the first one).
 */
import { Prisma } from '../../src/generated/prisma/client';
import type { TransferDetails } from '../../src/modules/transfer/transfer.columns';
import {
  accountCheck,
  cardCheck,
  newTransferDetails,
  paymentRequest,
  receiveAmountOf,
  tokenPullPaymentRequest,
  type PaymentFields,
} from '../../src/modules/transfer/transfer.requests';

const row: PaymentFields = {
  externalPaymentId: '7b0c6f5e-5d1c-4b8e-9a51-0a4c2b3d4e5f',
  sendAmount: new Prisma.Decimal('100'),
  // the fee is pulled with the amount sent; the recipient gets sendAmount × rate
  feeAmount: new Prisma.Decimal('3.99'),
  sendCurrency: 'USD',
  receiveAmount: new Prisma.Decimal('501.23'),
  receiveCurrency: 'BRL',
  rate: new Prisma.Decimal('5.012300000000'),
};

const sender: TransferDetails['sender'] = {
  customer: {
    firstName: 'Jane',
    lastName: 'Doe',
    email: 'jane@example.com',
    phoneNumber: '+14155550100',
    documentNumber: '123-45-6789',
    documentType: 'SSN',
    countryCode: 'US',
  },
  address: { line1: '1 Main St', city: 'Springfield', region: 'California', regionCode: 'CA', postalCode: '94105', countryCode: 'US' },
};

const details = (over: Partial<TransferDetails> = {}): TransferDetails => ({
  ipAddress: '203.0.113.7',
  sender,
  recipient: {
    customer: { firstName: 'Maria', lastName: 'Silva', email: null, phoneNumber: '+5511912345678' },
    address: {
      line1: 'Rua A 1',
      line2: null,
      city: 'Sao Paulo',
      region: 'Sao Paulo',
      regionCode: 'SP',
      postalCode: '01000-000',
      countryCode: 'BR',
    },
    destination: { type: 'PIX', pixKeyType: 'EMAIL', pixKey: 'maria@example.com' },
  },
  funding: { type: 'CARD', cardToken: '0f8fad5b-d9cb-469f-a165-70867728950e' },
  fxId: 'fx-1',
  quoteExpiresAt: '2026-01-01T00:05:00.000Z',
  ...over,
});

/** Frozen all the way down: the mapping never writes into what it reads. */
const frozen = <T>(v: T): T => {
  if (v && typeof v === 'object') {
    for (const x of Object.values(v)) frozen(x);
    Object.freeze(v);
  }
  return v;
};

const SENDER_PAYMENT_ADDRESS = { stateCode: 'CA', city: 'Springfield', line1: '1 Main St', state: 'California', zipCode: '94105' };

describe('paymentRequest: the authorization of a CARD or BANK_ACCOUNT transfer', () => {
  it('a card payment: amounts in minor units, the exact rate, alpha-3 customers, empty recipient fields left out', () => {
    expect(paymentRequest(row, frozen(details()))).toEqual({
      externalPaymentId: row.externalPaymentId,
      ipAddress: '203.0.113.7',
      capture: false,
      amount: { total: '103.99', currency: 'USD' },
      recipientAmount: { total: '501.23', currency: 'BRL' },
      exchangeRate: '5.0123',
      fxId: 'fx-1',
      sender: {
        customer: {
          firstName: 'Jane',
          lastName: 'Doe',
          phoneNumber: '+14155550100',
          documentNumber: '123-45-6789',
          documentType: 'SSN',
          email: 'jane@example.com',
          countryCodeAlpha3: 'USA',
        },
        customerAddress: SENDER_PAYMENT_ADDRESS,
        source: { type: 'CARD', card: { token: '0f8fad5b-d9cb-469f-a165-70867728950e' } },
      },
      recipient: {
        customer: { firstName: 'Maria', lastName: 'Silva', phoneNumber: '+5511912345678', countryCodeAlpha3: 'BRA' },
        customerAddress: { stateCode: 'SP', city: 'Sao Paulo', line1: 'Rua A 1', state: 'Sao Paulo', zipCode: '01000-000' },
        destination: { type: 'PIX', pix: { keyType: 'EMAIL', key: 'maria@example.com' } },
      },
    });
  });

  it('a bank account pays from the account (type lower-cased, the sender as holder); a wallet receives by wallet id', () => {
    const p = paymentRequest(
      row,
      frozen(
        details({
          funding: {
            type: 'BANK_ACCOUNT',
            bankAccount: { accountType: 'CHECKING', accountNumber: '000123456789', routingNumber: '011000015', countryCode: 'US' },
          },
          recipient: { ...details().recipient, destination: { type: 'WALLET', walletId: 'w-42' } },
        }),
      ),
    );
    expect(p.sender.source).toEqual({
      type: 'BANK_ACCOUNT',
      accountType: 'checking',
      accountNumber: '000123456789',
      routingNumber: '011000015',
      accountHolder: { type: 'personal', firstName: 'Jane', lastName: 'Doe' },
    });
    expect(p.recipient.destination).toEqual({ type: 'WALLET', wallet: { walletId: 'w-42' } });
  });

  it('is the same body on every attempt (a replay is compared with the first)', () => {
    expect(JSON.stringify(paymentRequest(row, details()))).toBe(JSON.stringify(paymentRequest(row, details())));
  });
});

it('tokenPullPaymentRequest: an ACCOUNT_TOKEN transfer pulls by the linked account token, the send amount only', () => {
  const d = frozen(details({ funding: { type: 'ACCOUNT_TOKEN', accountToken: 'acct-tok-1' } }));
  expect(tokenPullPaymentRequest(row, d)).toEqual({
    externalPaymentId: row.externalPaymentId,
    ipAddress: '203.0.113.7',
    capture: false,
    amount: { total: '103.99', currency: 'USD' },
    sender: { firstName: 'Jane', lastName: 'Doe', paymentMethod: { type: 'BANK_DEPOSIT', accountTokenId: 'acct-tok-1' } },
  });
});

describe('funding checks: the sender as the card / account holder, under the check step key', () => {
  it('cardCheck', () => {
    expect(cardCheck(frozen(details()), `${row.externalPaymentId}:check`)).toEqual({
      externalPaymentId: `${row.externalPaymentId}:check`,
      ipAddress: '203.0.113.7',
      sender: {
        firstName: 'Jane',
        lastName: 'Doe',
        email: 'jane@example.com',
        phoneNumber: '+14155550100',
        documents: [{ document: '123-45-6789', type: 'SSN', countryCode: 'USA' }],
        address: { countryCode: 'USA', stateCode: 'CA', city: 'Springfield', line1: '1 Main St', zipCode: '94105' },
        paymentMethod: { type: 'CARD', cardTokenId: '0f8fad5b-d9cb-469f-a165-70867728950e' },
      },
    });
  });

  it('accountCheck (alpha-2 address, the raw account)', () => {
    const d = frozen(
      details({
        funding: {
          type: 'BANK_ACCOUNT',
          bankAccount: { accountType: 'SAVINGS', accountNumber: '987654321', routingNumber: '011000015', countryCode: 'US' },
        },
      }),
    );
    expect(accountCheck(d, 'k:check')).toEqual({
      externalPaymentId: 'k:check',
      ipAddress: '203.0.113.7',
      sender: {
        firstName: 'Jane',
        lastName: 'Doe',
        email: 'jane@example.com',
        phoneNumber: '+14155550100',
        documents: [{ document: '123-45-6789', type: 'SSN', countryCode: 'USA' }],
        address: { countryCode: 'US', stateCode: 'CA', city: 'Springfield', line1: '1 Main St', zipCode: '94105' },
        paymentMethod: {
          type: 'BANK_ACCOUNT',
          accountType: 'SAVINGS',
          accountNumber: '987654321',
          routingNumber: '011000015',
          countryCode: 'US',
        },
      },
    });
  });
});

describe('createTransfer: the details and the amounts from the person and the quote', () => {
  it('newTransferDetails keeps the sender, the submitted parties, the quote fxId and expiry', () => {
    const d = details();
    expect(
      newTransferDetails({
        clientIp: '198.51.100.9',
        sender,
        recipient: d.recipient,
        funding: d.funding,
        quote: { fxId: 'fx-9', expiresAt: new Date('2026-02-01T10:00:00Z') },
      }),
    ).toEqual({ ...d, ipAddress: '198.51.100.9', fxId: 'fx-9', quoteExpiresAt: '2026-02-01T10:00:00.000Z' });
  });

  it("receiveAmountOf: the quote's destination amount, else the source converted at its rate (the currency's minor units)", () => {
    const dec = (v: string) => new Prisma.Decimal(v);
    expect(
      receiveAmountOf({ sourceAmount: dec('100'), destinationAmount: dec('501.2345'), destinationCurrency: 'BRL', rate: dec('5.0123') }),
    ).toBe('501.23');
    expect(receiveAmountOf({ sourceAmount: dec('100'), destinationAmount: null, destinationCurrency: 'BRL', rate: dec('5.01235') })).toBe(
      '501.24',
    );
    expect(receiveAmountOf({ sourceAmount: dec('10'), destinationAmount: null, destinationCurrency: 'JPY', rate: dec('149.567') })).toBe(
      '1496',
    );
  });
});
