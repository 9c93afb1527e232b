import { Field, ID, InputType, ObjectType, registerEnumType } from 'type-graphql';
import { IsEmail, IsIn, IsISO31661Alpha2, IsOptional, IsString, Length, Matches, ValidateNested } from 'class-validator';

export enum PersonStatus {
  APPROVED = 'APPROVED',
  REJECTED = 'REJECTED',
}
registerEnumType(PersonStatus, {
  name: 'PersonStatus',
  description: 'KYC decision on a person.',
  valuesConfig: {
    APPROVED: { description: 'The person passed KYC and may send transfers.' },
    REJECTED: { description: 'The person did not pass KYC (see message); nothing is stored.' },
  },
});

export enum PersonType {
  INDIVIDUAL = 'INDIVIDUAL',
  BUSINESS = 'BUSINESS',
}
registerEnumType(PersonType, {
  name: 'PersonType',
  description: 'Whether a KYC person is a natural person or a company.',
  valuesConfig: {
    INDIVIDUAL: { description: 'A natural person: firstName and lastName are required.' },
    BUSINESS: { description: 'A company: companyName is required.' },
  },
});

@InputType({ description: 'Address of a KYC person.' })
export class PersonAddressInput {
  @Field({ description: 'First address line (1 to 200 characters).' }) @IsString() @Length(1, 200, { message: 'addressLine1 must be 1 to 200 characters' }) addressLine1!: string;
  @Field({ nullable: true, description: 'Second address line (at most 200 characters, optional).' }) @IsOptional() @IsString() @Length(0, 200, { message: 'addressLine2 must be at most 200 characters' }) addressLine2?: string;
  @Field({ description: 'City (1 to 100 characters).' }) @IsString() @Length(1, 100, { message: 'city must be 1 to 100 characters' }) city!: string;
  @Field({ description: 'State or region (e.g. "CA", "SP").' }) @IsString() @Length(1, 100, { message: 'state must be 1 to 100 characters' }) state!: string;
  @Field({ description: 'Postal code (1 to 16 characters; personRequirements gives the pattern of a country).' }) @IsString() @Length(1, 16, { message: 'postalCode must be 1 to 16 characters' }) postalCode!: string;
  @Field({ description: 'ISO 3166-1 alpha-2, e.g. "US".' })
  @IsISO31661Alpha2({ message: 'countryCode must be an ISO 3166-1 alpha-2 code such as US' })
  countryCode!: string;
  @Field({ description: '7 to 15 digits, optionally with a leading +.' })
  @Matches(/^\+?\d{7,15}$/, { message: 'phoneNumber must be 7 to 15 digits, optionally after a +, without spaces, e.g. +14155550100' })
  phoneNumber!: string;
  @Field({ description: 'E-mail address, e.g. ana@example.com.' }) @IsEmail({}, { message: 'emailAddress must be an email address such as ana@example.com' }) emailAddress!: string;
}

@InputType({ description: 'A payment person for KYC (the sender of transfers).' })
export class PersonInput {
  @Field(() => PersonType, { defaultValue: PersonType.INDIVIDUAL, description: 'INDIVIDUAL (default) or BUSINESS.' }) @IsIn(Object.values(PersonType), { message: 'type must be INDIVIDUAL or BUSINESS' }) type!: PersonType;
  @Field({ nullable: true, description: 'First name (1 to 100 characters); required for an INDIVIDUAL.' }) @IsOptional() @IsString() @Length(1, 100, { message: 'firstName must be 1 to 100 characters' }) firstName?: string;
  @Field({ nullable: true, description: 'Last name (1 to 100 characters); required for an INDIVIDUAL.' }) @IsOptional() @IsString() @Length(1, 100, { message: 'lastName must be 1 to 100 characters' }) lastName?: string;
  @Field({ nullable: true, description: 'Registered company name (1 to 200 characters); required for a BUSINESS.' }) @IsOptional() @IsString() @Length(1, 200, { message: 'companyName must be 1 to 200 characters' }) companyName?: string;
  @Field({ nullable: true, description: 'e.g. NATIONAL_ID, PASSPORT, DRIVER_LICENSE, TAX_ID, SSN, CPF' })
  @IsOptional() @Matches(/^[A-Z_]{2,32}$/, { message: 'identificationType must be 2 to 32 capital letters or "_", e.g. PASSPORT' })
  identificationType?: string;
  @Field({ nullable: true, description: 'The identification number (1 to 64 characters; personRequirements gives the pattern of a country).' }) @IsOptional() @IsString() @Length(1, 64, { message: 'identification must be 1 to 64 characters' }) identification?: string;
  @Field({ nullable: true, description: 'M or F' }) @IsOptional() @IsIn(['M', 'F'], { message: 'gender must be M or F' }) gender?: string;
  @Field(() => PersonAddressInput, { nullable: true, description: "The person's address and contact details." }) @IsOptional() @ValidateNested() address?: PersonAddressInput;
}

@ObjectType({ description: 'The KYC decision. `id` is set when createPerson stored an APPROVED person.' })
export class PersonResult {
  @Field(() => ID, { nullable: true, description: 'The stored person (createPerson with APPROVED only): pass it as createTransfer.personId. Null otherwise.' }) id!: string | null;
  @Field(() => PersonStatus, { description: 'The KYC decision.' }) status!: PersonStatus;
  @Field(() => String, { nullable: true, description: 'Why the person was rejected.' }) message!: string | null;
}
