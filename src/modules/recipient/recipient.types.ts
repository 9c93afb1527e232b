import { Field, ID, ObjectType } from 'type-graphql';
import { AFTER_CURSOR_HINT, type Connection, connectionType } from '../../graphql/relay';
import { DestinationType } from '../../graphql/recipient.types';

@ObjectType({
  simpleResolvers: true,
  description:
    'A recipient the caller saved (createRecipient) to send to again with createTransfer(recipientId). Shown masked: never the whole PIX key, wallet id or document.',
})
export class Recipient {
  @Field(() => ID, { description: 'Pass it as createTransfer.recipientId.' }) id!: string;
  @Field({ description: 'First and last name.' }) name!: string;
  @Field(() => DestinationType, { description: 'WALLET or PIX.' }) destinationType!: string;
  @Field({
    description:
      'Where the money goes, masked for display: a PIX e-mail as m•••@example.com, other PIX keys and wallet ids by their last four characters (•••• 1234).',
  })
  destination!: string;
  @Field({
    description: "The recipient's country (ISO 3166-1 alpha-2, from its address): quote with it as destinationCountry.",
  })
  countryCode!: string;
  @Field(() => String, {
    nullable: true,
    description:
      'PIX: who holds the key, as the alias directory named it when the recipient was saved — an individual masked ("Maria S."), a business by its registered name — for the sender to confirm. Null for a wallet.',
  })
  holderName!: string | null;
  @Field({ description: 'When it was saved.' }) createdAt!: Date;
}

export const RecipientConnection = connectionType(Recipient, {
  name: 'RecipientConnection',
  description: "A page of the caller's saved recipients, newest first (Relay connection).",
  edges: 'The recipients of this page.',
  pageInfo: 'Where this page sits in the whole list.',
  edge: { name: 'RecipientEdge', description: 'An edge of a recipient connection.', cursor: AFTER_CURSOR_HINT, node: 'The recipient.' },
  simpleResolvers: true,
});
export type RecipientConnection = Connection<Recipient>;
