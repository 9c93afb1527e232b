import { Field, ID, InputType, ObjectType, registerEnumType } from 'type-graphql';
import { IsEmail, IsOptional, IsUUID, Length, ValidateNested } from 'class-validator';
import { AddressInput } from '../../graphql/address.types';

enum LegacyCardCheckStatus {
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

@InputType({ description: 'Legacy card check (no charge).' })
export class CheckCardLegacyInput {
  @Field({ description: 'Your key for this check (1 to 128 characters): repeating it repeats the same check at the gateway.' })
  @Length(1, 128, { message: 'idempotencyKey must be 1 to 128 characters' })
  idempotencyKey!: string;

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

  @Field(() => AddressInput, { nullable: true, description: 'Billing address; without it AVS is NOT_SENT.' })
  @IsOptional()
  @ValidateNested()
  address?: AddressInput;
}

@ObjectType({ description: 'Result of the legacy card check (gateway POST /check-card-account).' })
export class LegacyCardCheck {
  @Field(() => ID, { description: "The gateway's id of the check." })
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
