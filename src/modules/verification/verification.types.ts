import { ArgsType, Field, ID, InputType, ObjectType, registerEnumType } from 'type-graphql';
import { IsEnum, IsOptional, IsUrl, Length, Matches } from 'class-validator';

@ArgsType()
export class PersonRequirementsArgs {
  @Field({ description: 'ISO 3166-1 alpha-2 country whose rules apply, e.g. "BR".' })
  @Matches(/^[A-Z]{2}$/, { message: 'countryCode must be an ISO 3166-1 alpha-2 code in capitals, e.g. "BR"' })
  countryCode!: string;
}

@ObjectType({ description: 'What the gateway requires of a person of one type (individual or business) in a country.' })
class PersonTypeRequirements {
  @Field(() => [String], { description: 'Dotted paths of the required fields of PersonInput, e.g. "address.postalCode".' })
  requiredFields!: string[];

  @Field(() => [String], { description: 'Accepted identification types, e.g. CPF, SSN (empty when any).' })
  identificationTypes!: string[];

  @Field(() => String, {
    nullable: true,
    description: 'Regular expression the identification number must match, when the country has one.',
  })
  identificationPattern!: string | null;

  @Field(() => String, { nullable: true, description: 'Regular expression the postal code must match, when the country has one.' })
  postalCodePattern!: string | null;

  @Field(() => String, {
    nullable: true,
    description: 'Regular expression address.regionCode must match (address.region when no code is given), when the country has one.',
  })
  regionCodePattern!: string | null;
}

@ObjectType({ description: 'The KYC form of a country (gateway person schema): build the person form from it.' })
export class PersonRequirements {
  @Field({ description: 'The country these rules are for.' })
  countryCode!: string;

  @Field({ description: 'True when the country has no rules of its own and the base rules apply.' })
  isDefault!: boolean;

  @Field(() => PersonTypeRequirements, { description: 'Rules for individuals.' })
  individual!: PersonTypeRequirements;

  @Field(() => PersonTypeRequirements, { description: 'Rules for businesses.' })
  business!: PersonTypeRequirements;
}

@InputType({ description: 'Starts an identity-verification session for the caller.' })
export class StartVerificationSessionInput {
  @Field(() => String, { nullable: true, description: 'Where the hosted verification page sends the user back to when done (https URL).' })
  @IsOptional()
  @IsUrl({ protocols: ['https'], require_protocol: true }, { message: 'redirectUrl must be an https:// URL' })
  @Length(1, 2048, { message: 'redirectUrl must be at most 2048 characters' })
  redirectUrl?: string;
}

@ObjectType({ description: 'An identity-verification session at the verification-session API.' })
export class VerificationSession {
  @Field(() => ID, { description: 'The session id.' })
  id!: string;

  @Field({ description: 'The user the session is for (the token subject of whoever started it).' })
  ownerId!: string;

  @Field({ description: 'created, completed or expired (as the verification API reports it).' })
  status!: string;

  @Field(() => String, { nullable: true, description: 'The hosted verification page to open for the user.' })
  url!: string | null;

  @Field(() => Date, { nullable: true, description: 'When it was created.' })
  createdAt!: Date | null;

  @Field(() => Date, { nullable: true, description: 'When it expires if no verification was made.' })
  expiresAt!: Date | null;
}

enum VerificationType {
  IDENTITY = 'identity',
  DOCUMENT = 'document',
}
registerEnumType(VerificationType, {
  name: 'VerificationType',
  description: 'What a verification checks.',
  valuesConfig: {
    IDENTITY: { description: "Verifies the person's identity (the default)." },
    DOCUMENT: { description: 'Verifies an identity document.' },
  },
});

@InputType({ description: "Runs a verification in one of the caller's sessions." })
export class CreateVerificationInput {
  @Field(() => ID, { description: 'A session the caller started with startVerificationSession.' })
  @Length(1, 128, { message: 'sessionId must be the id of one of your verification sessions' })
  sessionId!: string;

  @Field(() => VerificationType, { defaultValue: VerificationType.IDENTITY, description: 'IDENTITY (default) or DOCUMENT.' })
  @IsEnum(VerificationType, { message: 'type must be IDENTITY or DOCUMENT' })
  type!: VerificationType;
}

@ObjectType({ description: 'The result of a verification.' })
export class Verification {
  @Field(() => ID, { description: 'The verification id.' })
  id!: string;

  @Field(() => ID, { description: 'The session it belongs to.' })
  sessionId!: string;

  @Field({ description: 'identity or document.' })
  type!: string;

  @Field({ description: 'approved or declined (as the verification API reports it).' })
  status!: string;

  @Field(() => Date, { nullable: true, description: 'When it was created.' })
  createdAt!: Date | null;

  @Field(() => Date, { nullable: true, description: 'When it was decided.' })
  decidedAt!: Date | null;
}
