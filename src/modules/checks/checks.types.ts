import { Field, ID, InputType, ObjectType, registerEnumType } from 'type-graphql';
import { IsIn, IsISO31661Alpha2, IsOptional, IsString, IsUUID, Length, Matches, MaxLength, ValidateNested } from 'class-validator';

@InputType({
  description:
    "A card check (v2) without charging the card. The cardholder is the KYC'd person: their name, contact, identity document and address are sent (nothing is typed again).",
})
export class CheckCardInput {
  @Field({ description: 'Card token UUID from the client-side tokenizer.' })
  @IsUUID('all', { message: 'cardToken must be the token UUID from the tokenizer' })
  cardToken!: string;
  @Field(() => ID, {
    description:
      "The cardholder: the caller's person from createPerson (status APPROVED, an INDIVIDUAL with name, contact, identification and address). Another caller's person is NOT_FOUND.",
  })
  @IsString()
  @Length(1, 64, { message: 'personId must be the id createPerson answered' })
  personId!: string;
  @Field(() => String, {
    nullable: true,
    description:
      "Where the card issuer's 3-D Secure page sends the cardholder's browser when the challenge is done (your app's page or universal link), if the card asks for one: an https URL on a host this service accepts (THREE_DS_RETURN_URL_HOSTS; outside production also http(s) on a loopback address); anything else is BAD_USER_INPUT before any other check. Optional: without it the page stays on the issuer when done. redirectUrl then carries it.",
  })
  @IsOptional()
  @IsString()
  @MaxLength(2048, { message: 'threeDSReturnUrl must be at most 2048 characters' })
  threeDSReturnUrl?: string | null;
}

export enum CardCheckStatus {
  APPROVED = 'APPROVED',
  CHALLENGE = 'CHALLENGE',
  FAILED = 'FAILED',
}
registerEnumType(CardCheckStatus, {
  name: 'CardCheckStatus',
  description: 'APPROVED, CHALLENGE (3DS needed: open redirectUrl), FAILED (see reasons).',
  valuesConfig: {
    APPROVED: { description: 'The card passed the checks and can fund a transfer.' },
    CHALLENGE: { description: 'The issuer wants 3-D Secure: open redirectUrl for the cardholder, then check again.' },
    FAILED: { description: 'A check failed (security code, address, cardholder name) or the card cannot fund pull payments: see reasons.' },
  },
});

@ObjectType({ description: 'Result of a card check (masked card facts only).' })
export class CardCheck {
  @Field(() => CardCheckStatus, { description: 'The overall result.' }) status!: CardCheckStatus;
  @Field(() => String, { nullable: true, description: 'The 3DS challenge page, when status is CHALLENGE.' }) redirectUrl!: string | null;
  @Field(() => [String], { description: 'Why the check failed, e.g. "cvc FAILED".' }) reasons!: string[];
  @Field({
    description:
      'Address verification (AVS) as the gateway reports it, e.g. APPROVED, FAILED, PARTIAL_MATCH, NOT_SENT, NOT_SUPPORTED (only FAILED fails the check).',
  })
  avs!: string;
  @Field({
    description:
      'Security code (CVC) verification as the gateway reports it, e.g. APPROVED, FAILED, NOT_SENT, NOT_SUPPORTED (only FAILED fails the check).',
  })
  cvc!: string;
  @Field(() => String, {
    nullable: true,
    description:
      'Cardholder name verification (AAV), when the network reports it, e.g. APPROVED, FAILED, PARTIAL_MATCH (only FAILED fails the check).',
  })
  aavCardholderName!: string | null;
  @Field(() => String, { nullable: true, description: "The card's BIN (leading digits that identify the issuer), when known." }) bin!:
    string | null;
  @Field(() => String, { nullable: true, description: 'The last 4 digits of the card, when known.' }) lastFour!: string | null;
  @Field(() => String, { nullable: true, description: "The card issuer's name, when known." }) issuerName!: string | null;
  @Field(() => Boolean, { nullable: true, description: 'Can fund pulls (AFT).' }) canFund!: boolean | null;
  @Field(() => Boolean, { nullable: true, description: 'Can receive payouts (OCT).' }) canReceive!: boolean | null;
}

@InputType({ description: 'Bank-linking widget result (check-account form A).' })
class LinkedAccountInput {
  @Field({ description: 'Public token returned by the bank-linking widget.' })
  @IsString()
  @Length(1, 256, { message: 'accountCheckToken must be the token returned by the bank-linking widget (1 to 256 characters)' })
  accountCheckToken!: string;
  @Field({ description: 'Account id selected in the widget.' })
  @IsString()
  @Length(1, 256, { message: 'accountCheckId must be the account id selected in the bank-linking widget (1 to 256 characters)' })
  accountCheckId!: string;
  @Field({ description: 'ISO 3166-1 alpha-2 country of the account, e.g. "US".' })
  @IsISO31661Alpha2({ message: 'countryCode must be an ISO 3166-1 alpha-2 code such as US' })
  countryCode!: string;
}

@InputType({ description: 'A bank account.' })
class BankAccountInput {
  @Field({ description: 'e.g. BANK_ACCOUNT, ACH', defaultValue: 'BANK_ACCOUNT' })
  @Matches(/^[A-Z_]{2,32}$/, { message: 'type must be 2 to 32 capital letters or "_", e.g. BANK_ACCOUNT or ACH' })
  type!: string;
  @Field({ description: 'SAVINGS, CHECKING, BUSINESS_CHECKING or BUSINESS_SAVING.' })
  @IsIn(['SAVINGS', 'CHECKING', 'BUSINESS_CHECKING', 'BUSINESS_SAVING'], {
    message: 'accountType must be SAVINGS, CHECKING, BUSINESS_CHECKING or BUSINESS_SAVING',
  })
  accountType!: string;
  @Field({ description: 'Account number: 4 to 34 letters or digits, no spaces. Never echoed back.' })
  @Matches(/^[A-Za-z0-9]{4,34}$/, { message: 'accountNumber must be 4 to 34 letters or digits' })
  accountNumber!: string;
  @Field({ nullable: true, description: 'ABA routing number, 9 digits: required for a US account.' })
  @IsOptional()
  @Matches(/^\d{9}$/, { message: 'routingNumber must be a 9-digit ABA routing number' })
  routingNumber?: string;
  @Field({ nullable: true, description: 'National bank code (1 to 32 characters): required outside the US.' })
  @IsOptional()
  @IsString()
  @Length(1, 32, { message: 'bankCode must be 1 to 32 characters' })
  bankCode?: string;
  @Field({ description: 'ISO 3166-1 alpha-2 country of the account, e.g. "US".' })
  @IsISO31661Alpha2({ message: 'countryCode must be an ISO 3166-1 alpha-2 code such as US' })
  countryCode!: string;
}

@InputType({
  description:
    "Bank account check: either `linked` (bank-linking widget) or `personId` + `account` (raw details; the holder is the KYC'd person).",
})
export class CheckBankAccountInput {
  @Field(() => LinkedAccountInput, { nullable: true, description: 'Form A: the bank-linking widget result. Give it alone.' })
  @IsOptional()
  @ValidateNested()
  linked?: LinkedAccountInput;
  @Field(() => ID, {
    nullable: true,
    description:
      "Form B: the account holder, the caller's APPROVED person from createPerson (with account). Another caller's person is NOT_FOUND.",
  })
  @IsOptional()
  @IsString()
  @Length(1, 64, { message: 'personId must be the id createPerson answered' })
  personId?: string;
  @Field(() => BankAccountInput, { nullable: true, description: 'Form B: the raw account details (with personId).' })
  @IsOptional()
  @ValidateNested()
  account?: BankAccountInput;
}

export enum BankAccountCheckStatus {
  APPROVED = 'APPROVED',
  DECLINED = 'DECLINED',
  VERIFIED = 'VERIFIED',
}
registerEnumType(BankAccountCheckStatus, {
  name: 'BankAccountCheckStatus',
  description: 'The result of a bank account check: VERIFIED or DECLINED for a linked account, APPROVED or DECLINED for raw details.',
  valuesConfig: {
    APPROVED: { description: 'Raw details: the gateway accepted the account (see accountStatus).' },
    DECLINED: { description: 'The account was not accepted (see message); a linked account: the widget result could not be linked.' },
    VERIFIED: {
      description:
        "Linked account: verified and the caller's (accountToken). A linked account does not fund transfers (ACCOUNT_TOKEN funding is not offered): fund with the account's raw details (BANK_ACCOUNT).",
    },
  },
});

@ObjectType({ description: 'Result of a bank account check (masked facts only).' })
export class BankAccountCheck {
  @Field(() => BankAccountCheckStatus, { description: 'The overall result.' }) status!: BankAccountCheckStatus;
  @Field(() => String, {
    nullable: true,
    description: "The linked account's token (VERIFIED). ACCOUNT_TOKEN funding is not offered: it funds no transfer.",
  })
  accountToken!: string | null;
  @Field(() => String, { nullable: true, description: 'VALID or INVALID (raw details).' }) accountStatus!: string | null;
  @Field(() => String, {
    nullable: true,
    description: "Why it was declined: the gateway's explanation (raw details), when it gives one; for a linked account, ours.",
  })
  message!: string | null;
  @Field(() => String, { nullable: true, description: 'The account name the bank reports (linked accounts).' }) bankAccountName!:
    string | null;
  @Field(() => String, { nullable: true, description: 'The account number with all but the last digits masked (linked accounts).' })
  accountNumberMasked!: string | null;
  @Field(() => String, { nullable: true, description: 'The routing number with all but the last digits masked (linked accounts).' })
  routingNumberMasked!: string | null;
}
