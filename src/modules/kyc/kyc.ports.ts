import type { PostalAddress } from '../../shared/address';
import { badField } from '../../shared/errors';

/** A KYC person's data: what validatePerson and createPerson are given, and what createPerson keeps of an APPROVED person (persons.details). */
export interface PersonDetails {
  type: 'INDIVIDUAL' | 'BUSINESS';
  firstName?: string | null;
  lastName?: string | null;
  companyName?: string | null;
  identificationType?: string | null;
  identification?: string | null;
  gender?: string | null;
  email?: string | null;
  phoneNumber?: string | null;
  address?: PostalAddress | null;
}

/** The sender of a check or transfer, from what createPerson kept: the KYC'd person is the sender (nothing is asked twice). */
export interface Sender {
  customer: {
    firstName: string;
    lastName: string;
    email: string;
    phoneNumber: string;
    documentNumber: string;
    documentType: string;
    countryCode: string;
  };
  address: PostalAddress;
}

/** Finds the caller's APPROVED person as a sender (NOT_FOUND for another caller's, BAD_USER_INPUT when it cannot send). */
export type SenderLookup = (ownerId: string, personId: string) => Promise<Sender>;

/**
 * What a stored person may lack to be the sender of a transfer, in the order an app should ask for it. The one
 * rule: senderOf (createTransfer, checkCard, checkBankAccount) refuses exactly the persons that lack something, and
 * `persons` shows the same list (Person.requirements).
 */
export const SENDER_REQUIREMENTS = [
  'KYC_APPROVAL',
  'NEW_PERSON',
  'INDIVIDUAL',
  'FIRST_NAME',
  'LAST_NAME',
  'IDENTIFICATION',
  'EMAIL',
  'PHONE_NUMBER',
  'ADDRESS',
] as const;
export type SenderRequirement = (typeof SENDER_REQUIREMENTS)[number];

/** The PersonInput fields behind each requirement of an individual's data. */
const FIELDS_OF: Partial<Record<SenderRequirement, readonly (keyof PersonDetails)[]>> = {
  FIRST_NAME: ['firstName'],
  LAST_NAME: ['lastName'],
  IDENTIFICATION: ['identificationType', 'identification'],
  EMAIL: ['email'],
  PHONE_NUMBER: ['phoneNumber'],
  ADDRESS: ['address'],
};

/** A stored person as senderOf and senderRequirements read it (persons.status and persons.details). */
interface StoredPerson {
  status: string;
  details: unknown;
}

/** What the person lacks to send money (empty: it can send). See SENDER_REQUIREMENTS. */
export function senderRequirements(person: StoredPerson): SenderRequirement[] {
  const out: SenderRequirement[] = person.status === 'APPROVED' ? [] : ['KYC_APPROVAL'];
  const p = (person.details ?? null) as PersonDetails | null;
  // a row from before the details were kept: nothing to tell from it but that a new person is needed
  if (!p) return [...out, 'NEW_PERSON'];
  if (p.type !== 'INDIVIDUAL') return [...out, 'INDIVIDUAL'];
  for (const [requirement, fields] of Object.entries(FIELDS_OF) as [SenderRequirement, (keyof PersonDetails)[]][])
    if (fields.some((f) => !p[f])) out.push(requirement);
  return out;
}

/** The sender built from a stored person, or what the person lacks to send money (the message of a BAD_USER_INPUT). */
export function senderOf(person: StoredPerson): Sender | string {
  const lacks = senderRequirements(person);
  if (lacks.includes('KYC_APPROVAL')) return 'the person is not APPROVED by KYC';
  if (lacks.includes('NEW_PERSON')) return 'the person was created before senders were kept; create the person again with createPerson';
  if (lacks.includes('INDIVIDUAL')) return 'the person must be an INDIVIDUAL to send money';
  const p = person.details as PersonDetails;
  if (lacks.length) {
    const missing = lacks.flatMap((r) => (FIELDS_OF[r] ?? []).filter((f) => !p[f]));
    return `the person has no ${missing.join(', ')}; create a person with them (createPerson)`;
  }
  return {
    customer: {
      firstName: p.firstName!,
      lastName: p.lastName!,
      email: p.email!,
      phoneNumber: p.phoneNumber!,
      documentNumber: p.identification!,
      documentType: p.identificationType!,
      countryCode: p.address!.countryCode,
    },
    address: p.address!,
  };
}

/**
 * The sender of the person given as `input.personId`, or BAD_USER_INPUT: NOT_VERIFIED when it is not APPROVED,
 * INCOMPLETE when it lacks what a sender needs (the message says what).
 */
export function requireSender(person: StoredPerson): Sender {
  const sender = senderOf(person);
  if (typeof sender === 'string')
    throw badField('input.personId', person.status !== 'APPROVED' ? 'NOT_VERIFIED' : 'INCOMPLETE', `personId: ${sender}`);
  return sender;
}
