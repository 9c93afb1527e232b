import { ArgsType, Field, ObjectType, createUnionType } from 'type-graphql';
import { IsIn, IsISO31661Alpha2, IsString, Length, Matches } from 'class-validator';
import { AFTER_CURSOR_HINT, type CountedConnection, connectionType, PageArgs } from '../../graphql/relay';

import { ALIAS_RAILS as ALIAS_KEY_TYPES } from './directory.service';

const ALIAS_COUNTRIES = Object.keys(ALIAS_KEY_TYPES);

@ObjectType({ simpleResolvers: true, description: "A bank of the gateway's bank directory." })
export class Bank {
  @Field({ description: 'National bank code (ABA routing number in the US, COMPE code in Brazil, …).' })
  bankCode!: string;

  @Field({ description: "The bank's name." })
  name!: string;

  @Field({ description: 'ISO 3166-1 alpha-2 country of the bank.' })
  countryCode!: string;

  @Field(() => String, { nullable: true, description: 'SWIFT/BIC code, when the directory knows it.' })
  swift!: string | null;
}

export const BankConnection = connectionType(Bank, {
  name: 'BankConnection',
  description: 'A page of banks of one country, sorted by name (Relay connection).',
  edges: 'The banks of this page.',
  pageInfo: 'Where this page sits in the whole list.',
  totalCount: 'How many banks the directory lists for the country.',
  edge: { name: 'BankEdge', description: 'An edge of a bank connection.', cursor: AFTER_CURSOR_HINT, node: 'The bank.' },
  simpleResolvers: true,
});
export type BankConnection = CountedConnection<Bank>;

@ArgsType()
export class BankArgs {
  @Field({ description: 'ISO 3166-1 alpha-2 country of the bank, e.g. "BR".' })
  @IsISO31661Alpha2({ message: 'countryCode must be an ISO 3166-1 alpha-2 code such as BR' })
  countryCode!: string;

  @Field({ description: 'National bank code, e.g. "001" (Brazil) or a 9-digit ABA routing number (US).' })
  @IsString()
  @Length(1, 34, { message: 'bankCode must be 1 to 34 characters' })
  bankCode!: string;
}

@ArgsType()
export class BanksArgs extends PageArgs {
  @Field({ description: 'ISO 3166-1 alpha-2 country of the banks, e.g. "BR".' })
  @IsISO31661Alpha2({ message: 'countryCode must be an ISO 3166-1 alpha-2 code such as BR' })
  countryCode!: string;
}

@ArgsType()
export class ResolveAliasArgs {
  @Field({ description: `ISO 3166-1 alpha-2 country of the instant payment rail: ${ALIAS_COUNTRIES.join(', ')}.` })
  @IsIn(ALIAS_COUNTRIES, { message: `countryCode must be one of ${ALIAS_COUNTRIES.join(', ')} (ISO 3166-1 alpha-2)` })
  countryCode!: string;

  @Field({
    description:
      'Kind of key: ' +
      Object.entries(ALIAS_KEY_TYPES)
        .map(([c, k]) => `${c}: ${k.join(', ')}`)
        .join('; ') +
      '.',
  })
  @IsString()
  @Matches(/^[A-Z_]{2,20}$/, { message: 'keyType must be one of the key types of the country, e.g. CPF or EMAIL' })
  keyType!: string;

  @Field({ description: 'The alias itself (CPF, phone number, e-mail, …). Never echoed back nor logged.' })
  @IsString()
  @Length(1, 256, { message: 'key must be 1 to 256 characters' })
  key!: string;
}

@ObjectType({ description: 'The account an alias points to. Numbers are masked.' })
export class AliasAccount {
  @Field({ description: 'National code of the receiving bank.' })
  bankCode!: string;

  @Field(() => String, { nullable: true, description: 'Name of the receiving bank, as the rail reports it.' })
  bankName!: string | null;

  @Field(() => String, { nullable: true, description: 'e.g. CHECKING, SAVINGS.' })
  accountType!: string | null;

  @Field({ description: 'Account number with all but the last 4 characters masked, e.g. "******5678".' })
  accountNumberMasked!: string;

  @Field(() => String, { nullable: true, description: 'Branch code, when the rail uses one.' })
  branchCode!: string | null;

  /** ISO alpha-2 of the rail, for the bank look-up (not exposed). */
  countryCode!: string;
}

enum AliasHolderType {
  INDIVIDUAL = 'INDIVIDUAL',
  BUSINESS = 'BUSINESS',
}

@ObjectType({ description: 'Who holds the account, masked: enough for the sender to confirm, not to identify.' })
class AliasHolder {
  @Field({ description: 'Individuals: first name and the initial of the last name ("Maria S."); businesses: the registered name.' })
  displayName!: string;

  @Field(() => String, { nullable: true, description: 'Kind of document, e.g. CPF, CNPJ.' })
  documentType!: string | null;

  @Field(() => String, { nullable: true, description: 'Document number with all but the last 2 digits masked.' })
  documentMasked!: string | null;

  @Field(() => String, { nullable: true, description: 'INDIVIDUAL or BUSINESS, when known.' })
  type!: AliasHolderType | null;
}

@ObjectType({ description: 'The alias is registered: the account and holder it points to.' })
class AliasFound {
  @Field({ description: 'Always true.' })
  found!: true;

  @Field({ description: 'ISO 3166-1 alpha-2 country of the rail, e.g. "BR".' })
  countryCode!: string;

  @Field({ description: 'Name of the instant payment rail, e.g. PIX, UPI.' })
  system!: string;

  @Field({ description: 'The key type that was looked up.' })
  keyType!: string;

  @Field(() => AliasAccount, { description: 'The receiving account (masked).' })
  account!: AliasAccount;

  @Field(() => AliasHolder, { description: 'The account holder (masked).' })
  holder!: AliasHolder;
}

@ObjectType({ description: 'No account is registered for the alias. A normal answer, not an error.' })
class AliasNotFound {
  @Field({ description: 'Always false.' })
  found!: false;

  @Field({ description: 'ISO 3166-1 alpha-2 country of the rail, e.g. "BR".' })
  countryCode!: string;

  @Field({ description: 'Name of the instant payment rail, e.g. PIX.' })
  system!: string;

  @Field({ description: 'The key type that was looked up.' })
  keyType!: string;

  @Field({ description: 'What to tell the user.' })
  message!: string;
}

export const AliasResolution = createUnionType({
  name: 'AliasResolution',
  description: 'The answer of the alias directory: AliasFound or AliasNotFound (check `found` or `__typename`).',
  types: () => [AliasFound, AliasNotFound] as const,
  resolveType: (value) => ((value as { found: boolean }).found ? AliasFound : AliasNotFound),
});
