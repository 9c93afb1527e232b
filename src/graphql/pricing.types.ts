import { Field, ObjectType } from 'type-graphql';

/** When the money should be available to the recipient: shown by a quote, kept by the transfer and its receipt. */
@ObjectType({
  simpleResolvers: true,
  description:
    'When the money should be available to the recipient (the configured delivery time of the corridor and destination type, from when it was quoted).',
})
export class DeliveryEstimate {
  @Field({ description: 'Not before this time.' }) earliest!: Date;
  @Field({ description: 'At the latest by this time (what an app shows as "arrives by").' }) latest!: Date;
}
