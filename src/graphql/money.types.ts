import { Field, InputType, ObjectType } from 'type-graphql';
import { IsString, Matches } from 'class-validator';
import { DecimalScalar } from './scalars';

@ObjectType({ simpleResolvers: true, description: 'An exact amount of money in a currency.' })
export class Money {
  @Field(() => DecimalScalar, {
    description: 'Exact decimal string with the currency\'s ISO 4217 minor units, e.g. "100.10" USD, "0.00" USD, "1500" JPY.',
  })
  amount!: string;

  @Field({ description: 'ISO 4217 currency code, e.g. "USD".' })
  currency!: string;
}

/** The input twin of Money: wherever an amount of money is given, it is given in this shape. */
@InputType({
  description:
    "An amount of money given to the API: a positive exact decimal with at most the currency's ISO 4217 minor units, and the currency.",
})
export class MoneyInput {
  @Field(() => DecimalScalar, {
    description: 'Positive exact decimal string with at most the currency\'s minor units, e.g. "100.10" USD, "1500" JPY.',
  })
  @IsString() // validation whitelists: a field without a constraint would be dropped
  amount!: string;

  @Field({ description: 'ISO 4217 currency code, e.g. "USD".' })
  @Matches(/^[A-Z]{3}$/, { message: 'currency must be an ISO 4217 code such as "USD"' })
  currency!: string;
}
