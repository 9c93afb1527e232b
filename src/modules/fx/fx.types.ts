import { Field, ID, InputType, ObjectType, registerEnumType } from 'type-graphql';
import { IsEnum, IsISO31661Alpha2, IsISO4217CurrencyCode, IsOptional } from 'class-validator';
import { DecimalScalar } from '../../graphql/scalars';
import { Money } from '../../graphql/money.types';
import { PAYMENT_METHODS, type PaymentMethod as GatewayPaymentMethod } from '../../upstream/gateway/gateway.types';

const PaymentMethod = Object.fromEntries(PAYMENT_METHODS.map((m) => [m, m])) as { [K in GatewayPaymentMethod]: K };
registerEnumType(PaymentMethod, {
  name: 'PaymentMethod',
  description: 'The payment method the gateway prices an FX v2 quote for (it can change the rate).',
  valuesConfig: {
    CARD: { description: 'A card of unspecified kind.' },
    CREDIT_CARD: { description: 'A credit card.' },
    DEBIT_CARD: { description: 'A debit card.' },
    ACH: { description: 'A US ACH bank transfer.' },
    BANK_ACCOUNT: { description: 'A bank account (raw details or a linked account).' },
    WALLET: { description: 'A gateway wallet.' },
    AFT: { description: 'A card account funding transaction (pull from a card).' },
    CASH: { description: 'Cash.' },
    CHECK: { description: 'A paper check.' },
    MONEY_ORDER: { description: 'A money order.' },
    OTHER: { description: 'Any other method.' },
    VENDORA_PAY: { description: 'VendorA Pay, a third-party wallet the gateway accepts.' },
    VENDORB_PAY: { description: 'VendorB Pay, a third-party wallet the gateway accepts.' },
  },
});

@InputType({ description: 'An FX v2 quote request.' })
export class CreateQuoteInput {
  @Field({ description: 'ISO 4217 code of the currency sent, e.g. "USD".' })
  @IsISO4217CurrencyCode({ message: 'sourceCurrency must be an ISO 4217 currency code such as USD' })
  sourceCurrency!: string;

  @Field({ description: 'ISO 4217 code of the currency received, e.g. "BRL".' })
  @IsISO4217CurrencyCode({ message: 'destinationCurrency must be an ISO 4217 currency code such as BRL' })
  destinationCurrency!: string;

  @Field(() => PaymentMethod, {
    description: 'How the sender will pay (use the funding type of the transfer: CARD for CARD, BANK_ACCOUNT for bank funding).',
  })
  @IsEnum(PaymentMethod, { message: 'paymentMethod must be one of the PaymentMethod values, e.g. CARD or BANK_ACCOUNT' })
  paymentMethod!: GatewayPaymentMethod;

  @Field(() => DecimalScalar, {
    nullable: true,
    description:
      'Amount sent, in sourceCurrency: a Decimal string greater than 0 with no more decimals than the currency has (e.g. "100.10" for USD). Required for a quote used by a transfer.',
  })
  @IsOptional()
  sourceAmount?: string;

  @Field({ nullable: true, description: 'ISO 3166-1 alpha-2 destination country: narrows the rate to a corridor.' })
  @IsOptional()
  @IsISO31661Alpha2({ message: 'destinationCountry must be an ISO 3166-1 alpha-2 code such as BR' })
  destinationCountry?: string;
}

@ObjectType({ description: 'An FX quote: single use, owned by the caller who asked for it, valid until expiresAt.' })
export class Quote {
  @Field(() => ID, { description: 'The quote id: pass it as createTransfer.quoteId.' })
  id!: string;

  @Field({ description: "The gateway's quote id (locks the rate in the payment)." })
  fxId!: string;

  @Field(() => DecimalScalar, { description: 'Units of the destination currency per unit of the source currency (exact decimal string).' })
  rate!: string;

  @Field(() => Money, {
    nullable: true,
    description: 'What the sender pays, in the source currency; null when the quote was asked without sourceAmount.',
  })
  source!: Money | null;

  @Field(() => Money, {
    nullable: true,
    description: 'What the recipient gets, in the destination currency; null when the quote was asked without sourceAmount.',
  })
  destination!: Money | null;

  @Field(() => PaymentMethod, { description: 'The payment method the rate was priced for.' })
  paymentMethod!: string;

  @Field({ description: 'The quote cannot be used after this time (createTransfer answers QUOTE_EXPIRED): get a new one.' })
  expiresAt!: Date;
}

@ObjectType({
  description:
    'A corridor (source currency → destination currency, optionally one destination country) and how much one transfer through it may send.',
})
export class Corridor {
  @Field({ description: 'ISO 4217 source currency.' })
  sourceCurrency!: string;

  @Field({ description: 'ISO 4217 destination currency.' })
  destinationCurrency!: string;

  @Field(() => String, { nullable: true, description: 'ISO 3166-1 alpha-2 destination country the rule is for; null: any.' })
  destinationCountry!: string | null;

  @Field(() => Money, {
    description:
      'The least one transfer may send, in the source currency (createQuote and createTransfer refuse less with BAD_USER_INPUT, extensions.minAmount).',
  })
  minAmount!: Money;

  @Field(() => Money, {
    description: 'The most one transfer may send, in the source currency (more: BAD_USER_INPUT, extensions.maxAmount).',
  })
  maxAmount!: Money;
}
