import { ArgsType, Field, ObjectType } from 'type-graphql';
import { IsOptional, Matches } from 'class-validator';
import { DecimalScalar } from '../../graphql/scalars';

@ArgsType()
export class FxQuoteV1Args {
  @Field(() => String, {
    nullable: true,
    description: 'ISO 4217 code of the currency sent, e.g. "USD". Optional: the gateway picks its default corridor without it.',
  })
  @IsOptional()
  @Matches(/^[A-Z]{3}$/, { message: 'sourceCurrency must be a 3-letter ISO 4217 code in capitals, e.g. "USD"' })
  sourceCurrency?: string;

  @Field(() => String, { nullable: true, description: 'ISO 4217 code of the currency received, e.g. "BRL".' })
  @IsOptional()
  @Matches(/^[A-Z]{3}$/, { message: 'destinationCurrency must be a 3-letter ISO 4217 code in capitals, e.g. "BRL"' })
  destinationCurrency?: string;
}

@ObjectType({
  description:
    'An indicative FX rate (gateway FX v1) for when the payment method is not known yet. To send money, get a quote with createQuote (FX v2).',
})
export class FxQuoteV1 {
  @Field({ description: "The gateway's quote identifier." })
  fxId!: string;

  @Field(() => DecimalScalar, {
    description: 'Units of the destination currency per unit of the source currency (exact decimal string, at most 8 decimals).',
  })
  rate!: string;

  @Field(() => String, { nullable: true, description: 'The source currency asked for, if any.' })
  sourceCurrency!: string | null;

  @Field(() => String, { nullable: true, description: 'The destination currency asked for, if any.' })
  destinationCurrency!: string | null;

  @Field({ description: 'The rate is not valid after this time.' })
  expiresAt!: Date;
}
