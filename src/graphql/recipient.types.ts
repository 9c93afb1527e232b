import { Field, InputType, registerEnumType } from 'type-graphql';
import { IsEmail, IsEnum, IsIn, IsOptional, IsString, Length, Matches, ValidateNested } from 'class-validator';
import { AddressInput } from './address.types';
import { E164, E164_MESSAGE } from '../shared/phone';

/** The recipient of a transfer as apps give it — to createTransfer, and to createRecipient to keep it. */
export enum DestinationType {
  WALLET = 'WALLET',
  PIX = 'PIX',
}
registerEnumType(DestinationType, {
  name: 'DestinationType',
  description: 'Where the recipient receives the money.',
  valuesConfig: {
    WALLET: { description: 'A gateway wallet, by destination.walletId.' },
    PIX: { description: 'A Brazilian PIX key (BRL payouts), by destination.pixKeyType and destination.pixKey.' },
  },
});

const DOC_TYPE_MESSAGE = '$property must be 2 to 32 capital letters or "_", e.g. PASSPORT';

@InputType({ description: 'The recipient person (contact and document optional).' })
export class RecipientCustomerInput {
  @Field({ description: 'First name (1 to 100 characters).' })
  @IsString()
  @Length(1, 100, { message: 'firstName must be 1 to 100 characters' })
  firstName!: string;
  @Field({ description: 'Last name (1 to 100 characters).' })
  @IsString()
  @Length(1, 100, { message: 'lastName must be 1 to 100 characters' })
  lastName!: string;
  @Field({ nullable: true, description: 'E-mail address (optional).' })
  @IsOptional()
  @IsEmail({}, { message: 'email must be an email address such as ana@example.com' })
  email?: string;
  @Field({ nullable: true, description: 'E.164, e.g. +5511912345678 (optional).' })
  @IsOptional()
  @Matches(E164, { message: E164_MESSAGE })
  phoneNumber?: string;
  @Field({ nullable: true, description: 'Number of an identity document (1 to 64 characters, optional).' })
  @IsOptional()
  @IsString()
  @Length(1, 64, { message: 'documentNumber must be 1 to 64 characters' })
  documentNumber?: string;
  @Field({ nullable: true, description: 'Kind of document, e.g. PASSPORT, NATIONAL_ID, CPF (optional).' })
  @IsOptional()
  @Matches(/^[A-Z_]{2,32}$/, { message: DOC_TYPE_MESSAGE })
  documentType?: string;
}

@InputType({ description: 'Where the money goes: a wallet, or a PIX key (BRL).' })
export class DestinationInput {
  @Field(() => DestinationType, { description: 'WALLET or PIX; give the fields of that type.' })
  @IsEnum(DestinationType, { message: 'type must be WALLET or PIX' })
  type!: DestinationType;
  @Field({ nullable: true, description: 'WALLET: the gateway wallet id of the recipient (1 to 128 characters). Required for WALLET.' })
  @IsOptional()
  @IsString()
  @Length(1, 128, { message: 'walletId must be 1 to 128 characters' })
  walletId?: string;
  @Field({ nullable: true, description: 'PIX: the kind of key, CPF, CNPJ, EMAIL, PHONE or EVP (random key). Required for PIX.' })
  @IsOptional()
  @IsIn(['CPF', 'CNPJ', 'EMAIL', 'PHONE', 'EVP'], { message: 'pixKeyType must be CPF, CNPJ, EMAIL, PHONE or EVP' })
  pixKeyType?: string;
  @Field({
    nullable: true,
    description:
      'PIX: the key itself, in the form of its pixKeyType: CPF 11 digits and CNPJ 14 digits (no punctuation), EMAIL an e-mail address (at most 77 characters), PHONE +55 and 10 or 11 digits, EVP the random key (a UUID); another form is BAD_USER_INPUT. Required for PIX. Check it first with resolveAlias.',
  })
  @IsOptional()
  @IsString()
  @Length(1, 77, { message: 'pixKey must be 1 to 77 characters' })
  pixKey?: string;
}

@InputType({ description: 'The recipient: customer + address + destination.' })
export class RecipientInput {
  @Field(() => RecipientCustomerInput, { description: 'The recipient as a person.' }) @ValidateNested() customer!: RecipientCustomerInput;
  @Field(() => AddressInput, { description: "The recipient's address; its countryCode is the corridor's destination country." })
  @ValidateNested()
  address!: AddressInput;
  @Field(() => DestinationInput, { description: 'Where the recipient receives the money.' })
  @ValidateNested()
  destination!: DestinationInput;
}
