/**
 * The parsers of the transfer tables' JSON columns (transfer.columns.ts): what each accepts (what the writers
 * store, including the optional fields a client left null), what it refuses (a ColumnError naming the column
 * and the path, never the value: transfers.details is PII). No database.
 */
import { Prisma } from '../../src/generated/prisma/client';
import {
  authorizationOutcome,
  checkOutcome,
  ColumnError,
  eventDetail,
  moneyStepRequest,
  nextAction,
  NO_NEXT_ACTION,
  paymentStatus,
  transferDetails,
} from '../../src/modules/transfer/transfer.columns';

const stored = (v: unknown): Prisma.JsonValue => JSON.parse(JSON.stringify(v)) as Prisma.JsonValue;

const DETAILS = {
  ipAddress: '203.0.113.7',
  sender: {
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
  },
  recipient: {
    customer: { firstName: 'Maria', lastName: 'Silva', email: null },
    address: { line1: 'Rua A 1', line2: null, city: 'Sao Paulo', region: 'Sao Paulo', postalCode: '01000-000', countryCode: 'BR' },
    destination: { type: 'PIX', pixKeyType: 'EMAIL', pixKey: 'maria@example.com', walletId: null },
  },
  funding: { type: 'CARD', cardToken: '0f8fad5b-d9cb-469f-a165-70867728950e', bankAccount: null },
  fxId: 'fx-1',
  quoteExpiresAt: '2026-01-01T00:05:00.000Z',
};

const refusal = (fn: () => unknown): string => {
  try {
    fn();
  } catch (e) {
    expect(e).toBeInstanceOf(ColumnError);
    return (e as Error).message;
  }
  throw new Error('accepted');
};

describe('transfers.details', () => {
  it('returns what createTransfer stored, as it is (null optionals included)', () => {
    const json = stored(DETAILS);
    const d = transferDetails(json);
    expect(d).toBe(json);
    expect(d.funding.type).toBe('CARD');
    expect(d.recipient.customer.email).toBeNull();
  });

  it('accepts every funding type and both destinations', () => {
    expect(transferDetails(stored({ ...DETAILS, funding: { type: 'ACCOUNT_TOKEN', accountToken: 'tok' } })).funding.accountToken).toBe(
      'tok',
    );
    const bank = {
      type: 'BANK_ACCOUNT',
      bankAccount: { accountType: 'CHECKING', accountNumber: '1234', routingNumber: '011000015', countryCode: 'US' },
    };
    expect(transferDetails(stored({ ...DETAILS, funding: bank })).funding.bankAccount?.routingNumber).toBe('011000015');
    const wallet = { ...DETAILS.recipient, destination: { type: 'WALLET', walletId: 'w-1' } };
    expect(transferDetails(stored({ ...DETAILS, recipient: wallet })).recipient.destination.walletId).toBe('w-1');
  });

  it('refuses a value of another shape, naming the path and never the value', () => {
    expect(refusal(() => transferDetails(stored({})))).toBe('transfers.details: ipAddress is not a string');
    expect(refusal(() => transferDetails(null))).toBe('transfers.details: the value is not an object');
    const noCountry = { ...DETAILS, sender: { ...DETAILS.sender, customer: { ...DETAILS.sender.customer, countryCode: 1 } } };
    expect(refusal(() => transferDetails(stored(noCountry)))).toBe('transfers.details: sender.customer.countryCode is not a string');
    const crypto = { ...DETAILS, funding: { type: 'CRYPTO' } };
    expect(refusal(() => transferDetails(stored(crypto)))).toBe(
      'transfers.details: funding.type is not one of CARD, BANK_ACCOUNT, ACCOUNT_TOKEN',
    );
    const badAddress = { ...DETAILS, recipient: { ...DETAILS.recipient, address: { ...DETAILS.recipient.address, line2: 7 } } };
    expect(refusal(() => transferDetails(stored(badAddress)))).toBe('transfers.details: recipient.address.line2 is not a string or absent');
    const badAccount = { ...DETAILS, funding: { type: 'BANK_ACCOUNT', bankAccount: { accountType: 'CHECKING' } } };
    const m = refusal(() => transferDetails(stored(badAccount)));
    expect(m).toBe('transfers.details: funding.bankAccount.accountNumber is not a string');
    expect(m).not.toContain('CHECKING');
  });
});

describe('transfers.next_action', () => {
  it('null is none; a challenge has its type and redirect (absent redirect: null)', () => {
    expect(nextAction(null)).toBeNull();
    expect(nextAction(stored({ type: 'THREE_DS_CHALLENGE', redirectUrl: 'https://acs.example/3ds' }))).toEqual({
      type: 'THREE_DS_CHALLENGE',
      redirectUrl: 'https://acs.example/3ds',
    });
    expect(nextAction(stored({ type: 'THREE_DS_CHALLENGE' }))).toEqual({ type: 'THREE_DS_CHALLENGE', redirectUrl: null });
  });

  it('refuses an action without a type', () => {
    expect(refusal(() => nextAction(stored({ redirectUrl: 'x' })))).toBe('transfers.next_action: type is not a string');
  });

  it('is cleared with JSON null (what clearing it has always written)', () => {
    expect(NO_NEXT_ACTION).toBe(Prisma.JsonNull);
  });
});

describe('saga_steps.request of a capture or void', () => {
  it('reads what the intents write; absent fields are null', () => {
    expect(moneyStepRequest(stored({ amount: '10.00', requestedBy: 'staff-1', idempotencyKey: 'cap-1' }))).toEqual({
      amount: '10.00',
      target: null,
      failureCode: null,
      requestedBy: 'staff-1',
      idempotencyKey: 'cap-1',
    });
    expect(moneyStepRequest(stored({ amount: null, requestedBy: 'compliance Approved' })).amount).toBeNull();
    expect(moneyStepRequest(stored({ target: 'EXPIRED', failureCode: 'CAPTURE_WINDOW_EXPIRED', cause: 'timer' }))).toEqual({
      amount: null,
      target: 'EXPIRED',
      failureCode: 'CAPTURE_WINDOW_EXPIRED',
      requestedBy: null,
      idempotencyKey: null,
    });
    expect(moneyStepRequest(null)).toEqual({ amount: null, target: null, failureCode: null, requestedBy: null, idempotencyKey: null });
  });

  it('refuses a target that is not a transfer status', () => {
    expect(refusal(() => moneyStepRequest(stored({ target: 'GONE' })))).toMatch(/^saga_steps\.request: target is not one of PENDING, /);
  });
});

describe('saga_steps.response', () => {
  it('check: the outcome, or null when none was recorded', () => {
    expect(checkOutcome(stored({ outcome: 'CHALLENGE', reasons: [], lastFour: '4242' }))).toBe('CHALLENGE');
    expect(checkOutcome(null)).toBeNull();
    expect(checkOutcome(stored({}))).toBeNull();
  });

  it('authorize: the settled outcome, checked field by field', () => {
    const out = { paymentId: 'p-1', status: 'AUTHORIZED', approved: true, message: null };
    expect(authorizationOutcome(stored(out))).toEqual(out);
    expect(authorizationOutcome(stored({ paymentId: 'p-1', status: 'DECLINED', approved: false }))).toEqual({
      paymentId: 'p-1',
      status: 'DECLINED',
      approved: false,
      message: null,
    });
    expect(refusal(() => authorizationOutcome(stored({ paymentId: 'p-1', status: 'AUTHORIZED', approved: 'yes' })))).toBe(
      'saga_steps.response (authorize): approved is not a boolean',
    );
    expect(refusal(() => authorizationOutcome(null))).toBe('saga_steps.response (authorize): the value is not an object');
  });

  it('capture / void: the payment status found, or null', () => {
    expect(paymentStatus(stored({ status: 'CAPTURED' }))).toBe('CAPTURED');
    expect(paymentStatus(null)).toBeNull();
  });
});

describe('transfer_events', () => {
  it('detail: the action and a mutation key when they are strings (the detail is free-form)', () => {
    expect(eventDetail(stored({ action: 'resumeTransfer', idempotencyKey: 'k-12345678' }))).toEqual({
      action: 'resumeTransfer',
      idempotencyKey: 'k-12345678',
      value: null,
    });
    expect(eventDetail(stored({ action: 'platform status', value: 'PaymentCaptured' }))).toEqual({
      action: 'platform status',
      idempotencyKey: null,
      value: 'PaymentCaptured',
    });
    expect(eventDetail(stored({ action: 3, value: 4 }))).toEqual({ action: null, idempotencyKey: null, value: null });
    expect(eventDetail(null)).toEqual({ action: null, idempotencyKey: null, value: null });
  });
});
