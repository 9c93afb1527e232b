import { Field, ObjectType } from 'type-graphql';
import { DecimalScalar } from './scalars';

@ObjectType({ simpleResolvers: true, description: 'An exact amount of money in a currency.' })
export class Money {
  @Field(() => DecimalScalar, { description: 'Exact decimal string with the currency\'s ISO 4217 minor units, e.g. "100.10" USD, "0.00" USD, "1500" JPY.' })
  amount!: string;

  @Field({ description: 'ISO 4217 currency code, e.g. "USD".' })
  currency!: string;
}
