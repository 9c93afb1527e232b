import { Field, ObjectType } from 'type-graphql';
import { DecimalScalar } from './scalars';

@ObjectType({ simpleResolvers: true, description: 'An exact amount of money in a currency.' })
export class Money {
  @Field(() => DecimalScalar, { description: 'Exact decimal string, e.g. "100.10".' })
  amount!: string;

  @Field({ description: 'ISO 4217 currency code, e.g. "USD".' })
  currency!: string;
}
