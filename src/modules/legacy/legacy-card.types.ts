import { Field, ID, InputType, ObjectType, registerEnumType } from 'type-graphql';
import { IsEmail, IsIP, IsOptional, IsUUID, Length, Matches, ValidateNested } from 'class-validator';

export enum LegacyCardCheckStatus {
  APPROVED = 'APPROVED',
  REJECTED = 'REJECTED',
  CHALLENGE = 'CHALLENGE',
}
registerEnumType(LegacyCardCheckStatus, {
  name: 'LegacyCardCheckStatus',
  description: 'APPROVED; REJECTED (see reasonCode); CHALLENGE (send the cardholder to redirectUrl for 3-D Secure).',
  valuesConfig: {
    APPROVED: { description: 'The card passed the legacy check.' },
    REJECTED: { description: 'The card did not pass: see reasonCode and the per-check results.' },
    CHALLENGE: { description: 'The issuer wants 3-D Secure: send the cardholder to redirectUrl.' },
  },
});

@InputType({ description: 'Billing address for address verification (AVS).' })
export class LegacyCardAddressInput {
  @Field({ description: 'ISO 3166-1 alpha-3 country, e.g. "USA".' })
  @Matches(/^[A-Z]{3}$/, { message: 'countryCode must be an ISO 3166-1 alpha-3 code in capitals, e.g. "USA"' })
  countryCode!: string;

  @Field({ description: 'State or province code, e.g. "CA".' })
  @Length(1, 10, { message: 'stateCode must be 1 to 10 characters' })
  stateCode!: string;

  @Field({ description: 'City.' })
  @Length(1, 100, { message: 'city must be 1 to 100 characters' })
  city!: string;

  @Field({ description: 'First address line.' })
  @Length(1, 200, { message: 'line1 must be 1 to 200 characters' })
  line1!: string;

  @Field(() => String, { nullable: true, description: 'Second address line.' })
  @IsOptional()
  @Length(1, 200, { message: 'line2 must be 1 to 200 characters' })
  line2?: string;

  @Field({ description: 'Postal code.' })
  @Length(1, 20, { message: 'zipCode must be 1 to 20 characters' })
  zipCode!: string;
}

@InputType({ description: 'Legacy card check (no charge).' })
export class CheckCardLegacyInput {
  @Field({ description: 'Your key for this check (1 to 128 characters): repeating it repeats the same check at the gateway.' })
  @Length(1, 128, { message: 'idempotencyKey must be 1 to 128 characters' })
  idempotencyKey!: string;

  @Field({ description: 'The cardholder device\'s IPv4 or IPv6 address.' })
  @IsIP(undefined, { message: 'ipAddress must be an IPv4 or IPv6 address' })
  ipAddress!: string;

  @Field({ description: 'Card token UUID from the client-side tokenizer (never the card number).' })
  @IsUUID('all', { message: 'cardToken must be the token UUID returned by the card tokenizer' })
  cardToken!: string;

  @Field({ description: 'Cardholder first name, as given to the tokenizer (1 to 35 characters).' })
  @Length(1, 35, { message: 'firstName must be 1 to 35 characters' })
  firstName!: string;

  @Field({ description: 'Cardholder last name, as given to the tokenizer (1 to 35 characters).' })
  @Length(1, 35, { message: 'lastName must be 1 to 35 characters' })
  lastName!: string;

  @Field(() => String, { nullable: true, description: 'Cardholder e-mail address.' })
  @IsOptional()
  @IsEmail({}, { message: 'email must be an e-mail address' })
  email?: string;

  @Field(() => LegacyCardAddressInput, { nullable: true, description: 'Billing address; without it AVS is NOT_SENT.' })
  @IsOptional()
  @ValidateNested()
  address?: LegacyCardAddressInput;
}

@ObjectType({ description: 'Result of the legacy card check (gateway POST /check-card-account).' })
export class LegacyCardCheck {
  @Field(() => ID, { description: 'The gateway\'s id of the check.' })
  paymentId!: string;

  @Field(() => LegacyCardCheckStatus, { description: 'APPROVED, REJECTED or CHALLENGE.' })
  status!: LegacyCardCheckStatus;

  @Field(() => String, { nullable: true, description: 'The 3-D Secure challenge page, when status is CHALLENGE.' })
  redirectUrl!: string | null;

  @Field(() => String, { nullable: true, description: 'Address verification: APPROVED, FAILED, NOT_SENT or N/A.' })
  avsResult!: string | null;

  @Field(() => String, { nullable: true, description: 'Security code verification: APPROVED, FAILED, NOT_SENT or N/A.' })
  cvcResult!: string | null;

  @Field(() => String, { nullable: true, description: 'Cardholder name verification: APPROVED, FAILED or N/A.' })
  cardholderNameResult!: string | null;

  @Field(() => String, { nullable: true, description: 'The gateway\'s reason code, e.g. "00" or "PAY_084".' })
  reasonCode!: string | null;
}
