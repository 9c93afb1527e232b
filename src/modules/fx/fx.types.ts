import { Field, ID, InputType, Int, ObjectType, registerEnumType } from 'type-graphql';
import { IsEnum, IsISO31661Alpha2, IsISO4217CurrencyCode, IsOptional } from 'class-validator';
import { DecimalScalar } from '../../graphql/scalars';
import { Money } from '../../graphql/money.types';
import { DeliveryEstimate } from '../../graphql/pricing.types';
import { DestinationType } from '../../graphql/recipient.types';
import type { DeliveryDestination, FeeFunding } from '../../shared/pricing';
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

export enum FeeFundingType {
  CARD = 'CARD',
  BANK_ACCOUNT = 'BANK_ACCOUNT',
}
registerEnumType(FeeFundingType, {
  name: 'FeeFundingType',
  description: 'The funding a fee is set for (a quote’s paymentMethod and a transfer’s funding.type map to one).',
  valuesConfig: {
    CARD: { description: 'Cards: paymentMethod CARD, CREDIT_CARD, DEBIT_CARD or AFT; funding.type CARD.' },
    BANK_ACCOUNT: { description: 'Bank accounts: paymentMethod BANK_ACCOUNT or ACH; funding.type BANK_ACCOUNT.' },
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

  @Field(() => DestinationType, {
    nullable: true,
    description:
      'Where the recipient will receive (WALLET or PIX): the delivery estimate is that destination’s, and a transfer with another destination is refused. Absent: the widest estimate over the destination types.',
  })
  @IsOptional()
  @IsEnum(DestinationType, { message: 'destinationType must be WALLET or PIX' })
  destinationType?: DeliveryDestination;
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

  @Field(() => Money, {
    nullable: true,
    description:
      'What the service charges for the transfer, in the source currency (TRANSFER_FEES for the corridor and payment method); null without sourceAmount.',
  })
  fee!: Money | null;

  @Field(() => Money, {
    nullable: true,
    description:
      'What the sender pays in all: source + fee, exactly (the amount taken from the card or account); null without sourceAmount.',
  })
  total!: Money | null;

  @Field(() => DeliveryEstimate, { description: 'When the money should be available to the recipient; a transfer keeps it.' })
  deliveryEstimate!: DeliveryEstimate;

  @Field(() => DestinationType, { nullable: true, description: 'The destination type the quote was asked for, if any.' })
  destinationType!: string | null;

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

  @Field(() => [CorridorFee], { description: 'What a transfer through this corridor is charged, per funding type.' })
  fees!: CorridorFee[];

  @Field({
    description:
      'How a fee is rounded to the source currency’s minor units: HALF_UP, HALF_EVEN, UP (never less than the exact fee) or DOWN.',
  })
  feeRounding!: string;

  @Field(() => [DeliveryTime], { description: 'How long a payout through this corridor takes, per destination type.' })
  deliveryTimes!: DeliveryTime[];
}

@ObjectType({
  simpleResolvers: true,
  description: 'A corridor’s fee for one funding type: fee = fixed + amount × percent / 100, rounded once (Corridor.feeRounding).',
})
export class CorridorFee {
  @Field(() => FeeFundingType, { description: 'The funding it applies to.' }) fundingType!: FeeFunding;
  @Field(() => Money, { description: 'The fixed part, in the source currency.' }) fixed!: Money;
  @Field(() => DecimalScalar, { description: 'The percentage of the amount sent, e.g. "1.5" for 1.5 %.' }) percent!: string;
}

@ObjectType({ simpleResolvers: true, description: 'How long a payout takes to one destination type, from when the transfer is quoted.' })
export class DeliveryTime {
  @Field(() => DestinationType, { description: 'WALLET or PIX.' }) destinationType!: DeliveryDestination;
  @Field(() => Int, { description: 'Not sooner than this many seconds.' }) minSeconds!: number;
  @Field(() => Int, { description: 'At the latest after this many seconds.' }) maxSeconds!: number;
}

@ObjectType({ simpleResolvers: true, description: 'What sending an amount costs (Corridor.price): no quote, no rate.' })
export class Price {
  @Field(() => FeeFundingType, { description: 'The funding it was priced for.' }) fundingType!: FeeFunding;
  @Field(() => Money, { description: 'The fee, in the source currency.' }) fee!: Money;
  @Field(() => Money, { description: 'amount + fee: what the sender would pay in all.' }) total!: Money;
}
