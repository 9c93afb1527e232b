import { ArgsType, Field, ID, InputType, ObjectType, registerEnumType } from 'type-graphql';
import { IsEnum, IsOptional, IsString, Length, Matches } from 'class-validator';
import { Money } from '../../graphql/money.types';
import { type CountedConnection, connectionType, PageArgs } from '../../graphql/relay';

enum WalletType {
  PERSONAL = 'PERSONAL',
  BUSINESS = 'BUSINESS',
}
registerEnumType(WalletType, {
  name: 'WalletType',
  description: 'Kind of gateway wallet.',
  valuesConfig: {
    PERSONAL: { description: 'A wallet of a private person.' },
    BUSINESS: { description: 'A wallet of a business.' },
  },
});

export enum StatementEntryType {
  CREDIT = 'CREDIT',
  DEBIT = 'DEBIT',
}
registerEnumType(StatementEntryType, {
  name: 'StatementEntryType',
  description: 'Money in (CREDIT) or out (DEBIT).',
  valuesConfig: {
    CREDIT: { description: 'Money into the wallet.' },
    DEBIT: { description: 'Money out of the wallet.' },
  },
});

@InputType({ description: 'A new wallet for the caller.' })
export class CreateWalletInput {
  @Field({ description: 'Currency or asset the wallet holds, e.g. "USD" (2 to 10 capital letters or digits).' })
  @Matches(/^[A-Z0-9]{2,10}$/, { message: 'currency must be 2 to 10 capital letters or digits, e.g. "USD"' })
  currency!: string;

  @Field(() => WalletType, { defaultValue: WalletType.PERSONAL, description: 'PERSONAL (default) or BUSINESS.' })
  @IsEnum(WalletType, { message: 'type must be PERSONAL or BUSINESS' })
  type!: WalletType;

  @Field(() => String, { nullable: true, description: 'Who benefits from the wallet at the gateway; defaults to the caller.' })
  @IsOptional()
  @IsString()
  @Length(1, 128, { message: 'beneficiaryId must be 1 to 128 characters' })
  beneficiaryId?: string;
}

@ObjectType({ description: 'A wallet at the payments gateway.' })
export class Wallet {
  @Field(() => ID, { description: "The gateway's wallet id." })
  id!: string;

  @Field({ description: 'Currency or asset held, e.g. "USD".' })
  currency!: string;

  @Field(() => String, { nullable: true, description: 'PERSONAL or BUSINESS.' })
  type!: string | null;

  @Field({ description: 'e.g. ACTIVE.' })
  status!: string;

  @Field(() => String, { nullable: true, description: 'The owner (a user id) the gateway has for it.' })
  ownerId!: string | null;

  @Field(() => Date, { nullable: true, description: 'When it was created.' })
  createdAt!: Date | null;
}

@ObjectType({ description: 'How much a wallet holds.' })
export class WalletBalance {
  @Field(() => ID, { description: 'The wallet.' })
  walletId!: string;

  @Field(() => Money, { description: 'Funds available now.' })
  available!: Money;

  @Field(() => Money, { description: 'Funds reserved by pending holds.' })
  held!: Money;

  @Field(() => Money, { description: 'Available plus held.' })
  total!: Money;
}

@ObjectType({ description: 'One movement of a wallet.' })
class StatementEntry {
  @Field(() => ID, { description: "The gateway's transaction id." })
  transactionId!: string;

  @Field(() => String, { nullable: true, description: 'The external id of the payment that caused it.' })
  externalId!: string | null;

  @Field(() => StatementEntryType, { description: 'CREDIT or DEBIT.' })
  type!: StatementEntryType;

  @Field(() => Money, { description: 'The amount moved (positive).' })
  amount!: Money;

  @Field(() => String, { nullable: true, description: 'What it was.' })
  description!: string | null;

  @Field(() => Money, { nullable: true, description: 'Available balance after it.' })
  balanceAfter!: Money | null;

  @Field({ description: 'When it happened.' })
  createdAt!: Date;
}

export const StatementConnection = connectionType(StatementEntry, {
  name: 'StatementConnection',
  description: "A wallet's movements, oldest first (Relay connection).",
  edges: 'The entries of this page.',
  pageInfo: 'Where this page sits.',
  totalCount: 'How many entries match the date filter in all.',
  edge: { name: 'StatementEntryEdge', description: 'An edge of a statement connection.', node: 'The entry.' },
});
export type StatementConnection = CountedConnection<StatementEntry>;

@ArgsType()
export class WalletStatementArgs extends PageArgs {
  @Field(() => ID, { description: 'The wallet.' })
  @Length(1, 128, { message: 'walletId must be the id of one of your wallets' })
  walletId!: string;

  @Field(() => Date, { nullable: true, description: 'Only entries at or after this time.' })
  @IsOptional()
  from?: Date;

  @Field(() => Date, { nullable: true, description: 'Only entries at or before this time.' })
  @IsOptional()
  until?: Date;
}
