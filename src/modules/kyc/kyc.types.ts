import { Field, ID, InputType, ObjectType, registerEnumType } from 'type-graphql';
import { IsEmail, IsIn, IsOptional, IsString, Length, Matches, ValidateNested } from 'class-validator';
import { AddressInput } from '../../graphql/address.types';
import { AFTER_CURSOR_HINT, type Connection, connectionType } from '../../graphql/relay';
import { E164, E164_MESSAGE } from '../../shared/phone';
import { SENDER_REQUIREMENTS } from './kyc.ports';

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

const SenderRequirementEnum = Object.fromEntries(SENDER_REQUIREMENTS.map((r) => [r, r])) as {
  [K in (typeof SENDER_REQUIREMENTS)[number]]: K;
};
registerEnumType(SenderRequirementEnum, {
  name: 'SenderRequirement',
  description:
    'What a person lacks to be the sender of a transfer (createTransfer, checkCard and checkBankAccount refuse it with BAD_USER_INPUT until then). A stored person is not edited: create a person with what is missing (createPerson) and send with that one.',
  valuesConfig: {
    KYC_APPROVAL: { description: 'The person is not APPROVED by KYC.' },
    NEW_PERSON: { description: 'The person was stored before senders were kept: create it again with createPerson.' },
    INDIVIDUAL: { description: 'A BUSINESS cannot send: the sender must be an INDIVIDUAL person.' },
    FIRST_NAME: { description: 'firstName is missing.' },
    LAST_NAME: { description: 'lastName is missing.' },
    IDENTIFICATION: { description: 'identificationType or identification is missing (personRequirements gives what a country accepts).' },
    EMAIL: { description: 'email is missing.' },
    PHONE_NUMBER: { description: 'phoneNumber (E.164) is missing.' },
    ADDRESS: { description: 'address is missing (personRequirements gives the patterns of a country).' },
  },
});

enum PersonType {
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

@InputType({
  description:
    'A payment person for KYC. The sender of a transfer is built from it: a person that will send needs type INDIVIDUAL, firstName and lastName (at most 35 characters each when paying by card), identificationType and identification, email, phoneNumber and address.',
})
export class PersonInput {
  @Field(() => PersonType, { defaultValue: PersonType.INDIVIDUAL, description: 'INDIVIDUAL (default) or BUSINESS.' })
  @IsIn(Object.values(PersonType), { message: 'type must be INDIVIDUAL or BUSINESS' })
  type!: PersonType;
  @Field({ nullable: true, description: 'First name (1 to 100 characters); required for an INDIVIDUAL.' })
  @IsOptional()
  @IsString()
  @Length(1, 100, { message: 'firstName must be 1 to 100 characters' })
  firstName?: string;
  @Field({ nullable: true, description: 'Last name (1 to 100 characters); required for an INDIVIDUAL.' })
  @IsOptional()
  @IsString()
  @Length(1, 100, { message: 'lastName must be 1 to 100 characters' })
  lastName?: string;
  @Field({ nullable: true, description: 'Registered company name (1 to 200 characters); required for a BUSINESS.' })
  @IsOptional()
  @IsString()
  @Length(1, 200, { message: 'companyName must be 1 to 200 characters' })
  companyName?: string;
  @Field({ nullable: true, description: 'e.g. NATIONAL_ID, PASSPORT, DRIVER_LICENSE, TAX_ID, SSN, CPF' })
  @IsOptional()
  @Matches(/^[A-Z_]{2,32}$/, { message: 'identificationType must be 2 to 32 capital letters or "_", e.g. PASSPORT' })
  identificationType?: string;
  @Field({
    nullable: true,
    description: 'The identification number (1 to 64 characters; personRequirements gives the pattern of a country).',
  })
  @IsOptional()
  @IsString()
  @Length(1, 64, { message: 'identification must be 1 to 64 characters' })
  identification?: string;
  @Field({ nullable: true, description: 'M or F' }) @IsOptional() @IsIn(['M', 'F'], { message: 'gender must be M or F' }) gender?: string;
  @Field({ nullable: true, description: 'E-mail address, e.g. ana@example.com (required with an address; a sender needs it).' })
  @IsOptional()
  @IsEmail({}, { message: 'email must be an email address such as ana@example.com' })
  email?: string;
  @Field({ nullable: true, description: 'E.164 phone number, e.g. +14155550100 (required with an address; a sender needs it).' })
  @IsOptional()
  @Matches(E164, { message: E164_MESSAGE })
  phoneNumber?: string;
  @Field(() => AddressInput, {
    nullable: true,
    description: "The person's address; its countryCode is the person's country (and the identification's).",
  })
  @IsOptional()
  @ValidateNested()
  address?: AddressInput;
}

@ObjectType({ description: 'The KYC decision. `id` is set when createPerson stored an APPROVED person.' })
export class PersonResult {
  @Field(() => ID, {
    nullable: true,
    description: 'The stored person (createPerson with APPROVED only): pass it as createTransfer.personId. Null otherwise.',
  })
  id!: string | null;
  @Field(() => PersonStatus, { description: 'The KYC decision.' }) status!: PersonStatus;
  @Field(() => String, { nullable: true, description: 'Why the person was rejected.' }) message!: string | null;
}

@ObjectType({ simpleResolvers: true, description: 'A KYC person the caller created (createPerson): the sender of its transfers.' })
export class Person {
  @Field(() => ID, { description: 'Pass it as createTransfer.personId (an APPROVED person).' }) id!: string;
  @Field(() => String, { nullable: true, description: 'First and last name, or the company name.' }) name!: string | null;
  @Field(() => PersonStatus, { description: 'The KYC decision: APPROVED persons may send.' }) status!: PersonStatus;
  @Field(() => String, { nullable: true, description: 'What the KYC check said, when it said something.' }) message!: string | null;
  @Field(() => String, { nullable: true, description: 'ISO 3166-1 alpha-2 country of the address, when one was given.' })
  countryCode!: string | null;
  @Field(() => [SenderRequirementEnum], {
    description:
      'What the person lacks to send money, in the order to ask for it; empty when it can send (canSend). The same rule createTransfer applies to personId.',
  })
  requirements!: string[];
  @Field({
    description:
      'True when the person can be the sender of a transfer (requirements is empty). Paying by card also needs names a card can carry (at most 35 characters each).',
  })
  canSend!: boolean;
  @Field({ description: 'When it was created.' }) createdAt!: Date;
}

export const PersonConnection = connectionType(Person, {
  name: 'PersonConnection',
  description: "A page of the caller's persons, newest first (Relay connection).",
  edges: 'The persons of this page.',
  pageInfo: 'Where this page sits in the whole list.',
  edge: { name: 'PersonEdge', description: 'An edge of a person connection.', cursor: AFTER_CURSOR_HINT, node: 'The person.' },
  simpleResolvers: true,
});
export type PersonConnection = Connection<Person>;
