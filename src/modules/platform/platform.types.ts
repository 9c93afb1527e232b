import { ArgsType, Field, InputType, Int, registerEnumType } from 'type-graphql';
import { IsInt, IsObject, IsOptional, IsString, Length, Max, Min, ValidateNested } from 'class-validator';
import { type CountedConnection, connectionType } from '../../graphql/relay';
import { JSONObjectScalar } from '../../graphql/json.scalar';
import { MoneyInput } from '../../graphql/money.types';

export enum PlatformPayoutSchemaKind {
  RECIPIENT = 'recipient',
  ACCOUNT = 'account',
  TRANSACTION = 'transaction',
}
registerEnumType(PlatformPayoutSchemaKind, {
  name: 'PlatformPayoutSchemaKind',
  description: 'Which payout form the remittances platform describes.',
  valuesConfig: {
    RECIPIENT: { description: 'The fields of a payout recipient.' },
    ACCOUNT: { description: "The fields of a recipient's payout account." },
    TRANSACTION: { description: 'The fields of a payout transaction.' },
  },
});

export enum PlatformMetadataWriteMode {
  REPLACE = 'replace',
  MERGE = 'merge',
}
registerEnumType(PlatformMetadataWriteMode, {
  name: 'PlatformMetadataWriteMode',
  description: 'How new FX transaction metadata is written.',
  valuesConfig: {
    REPLACE: { description: 'The given object becomes the whole metadata (PUT; safe to repeat).' },
    MERGE: { description: 'The given keys are merged into the current metadata (PATCH; sent once).' },
  },
});

@InputType({ description: 'A new FX transaction at the remittances platform.' })
export class CreatePlatformFxTransactionInput {
  @Field({
    description:
      'Your unique reference for the transaction, 1 to 128 characters. It is the idempotency key: sending the same reference again answers the transaction created the first time.',
  })
  @IsString()
  @Length(1, 128, { message: 'externalTransactionId must be 1 to 128 characters' })
  externalTransactionId!: string;

  @Field(() => MoneyInput, { nullable: true, description: 'The amount to send, if known now.' })
  @IsOptional()
  @ValidateNested()
  amount?: MoneyInput;

  @Field(() => JSONObjectScalar, { nullable: true, description: 'Free-form metadata stored with the transaction.' })
  @IsOptional()
  @IsObject({ message: 'metadata must be a JSON object' })
  metadata?: Record<string, unknown>;
}

@ArgsType()
export class PlatformFxTransactionsArgs {
  @Field(() => String, { nullable: true, description: 'Only transactions in this platform status, e.g. "Created".' })
  @IsOptional()
  @IsString()
  @Length(1, 64, { message: 'status must be 1 to 64 characters' })
  status?: string;

  @Field(() => String, { nullable: true, description: 'Only the transaction with this external reference.' })
  @IsOptional()
  @IsString()
  @Length(1, 128, { message: 'externalTransactionId must be 1 to 128 characters' })
  externalTransactionId?: string;

  @Field(() => Int, { nullable: true, description: 'Page size, 1 to 100 (default 20).' })
  @IsOptional()
  @IsInt()
  @Min(1, { message: 'first must be between 1 and 100' })
  @Max(100, { message: 'first must be between 1 and 100' })
  first?: number;

  @Field(() => String, { nullable: true, description: 'Cursor after which the page starts (pageInfo.endCursor of the previous page).' })
  @IsOptional()
  @IsString()
  after?: string;
}

export const PlatformFxTransactionConnection = connectionType<Record<string, unknown>>(JSONObjectScalar, {
  name: 'PlatformFxTransactionConnection',
  description: "FX transactions at the remittances platform, in the platform's order (Relay connection).",
  edges: 'The transactions of this page.',
  pageInfo: 'Where this page sits in the whole list.',
  totalCount: 'How many transactions match, over all pages.',
  edge: {
    name: 'PlatformFxTransactionEdge',
    description: 'An edge of a platform FX transaction connection.',
    node: 'The transaction, as the platform describes it (transactionId, externalTransactionId, status, amount, …).',
  },
});
export type PlatformFxTransactionConnection = CountedConnection<Record<string, unknown>>;
