import type { Prisma, PrismaClient } from '../../generated/prisma/client';
import type { RawSql } from '../../db/raw-sql';
import type { Clock } from '../../shared/clock';
import { badField, badFields, notFound } from '../../shared/errors';
import type { GatewayClient } from '../../upstream/gateway/gateway.client';
import type { PersonRequest } from '../../upstream/gateway/gateway.types';
import { gatewayPersonAddress, type PostalAddress } from '../../shared/address';

/** What validatePerson and createPerson are given; the optional fields are nullable in GraphQL (null: left out). */
interface PersonArgs {
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

/** What createPerson keeps of an APPROVED person (persons.details): what the gateway approved, to build the sender from. */
type PersonDetails = PersonArgs;

/** The sender of a transfer, from what createPerson kept: the KYC'd person is the sender (nothing is asked twice). */
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
export interface StoredPerson {
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

interface PersonResultView {
  id: string | null;
  status: 'APPROVED' | 'REJECTED';
  message: string | null;
}

/**
 * KYC persons (gateway /person/validate and /person). An APPROVED person is stored with the decision, the
 * upstream id, the country and what the gateway approved (persons.details): createTransfer builds the sender
 * from it. A REJECTED person is not stored and has no id.
 */
export class KycService {
  constructor(
    private readonly prisma: PrismaClient,
    /** Raw statements (Database.sql): the sender read of every check and transfer, beside Prisma's client. */
    private readonly sql: RawSql,
    private readonly gateway: GatewayClient,
    private readonly clock: Clock,
  ) {}

  private request(args: PersonArgs): PersonRequest {
    const missing = (names: (keyof PersonArgs)[]) =>
      names.filter((n) => !args[n]).map((n) => ({ path: `input.${n}`, code: 'REQUIRED' as const }));
    if (args.type === 'INDIVIDUAL' && (!args.firstName || !args.lastName))
      throw badFields('firstName and lastName are required for an individual', missing(['firstName', 'lastName']));
    if (args.type === 'BUSINESS' && !args.companyName)
      throw badField('input.companyName', 'REQUIRED', 'companyName is required for a business');
    if (args.address && (!args.email || !args.phoneNumber))
      throw badFields('email and phoneNumber are required with an address', missing(['email', 'phoneNumber']));
    // nullable arguments given as null are left out, as when they are not given (the gateway's fields are optional, not nullable)
    return {
      type: args.type,
      firstName: args.firstName ?? undefined,
      lastName: args.lastName ?? undefined,
      companyName: args.companyName ?? undefined,
      identificationType: args.identificationType ?? undefined,
      identification: args.identification ?? undefined,
      gender: (args.gender ?? undefined) as 'M' | 'F' | undefined,
      ...(args.address ? { address: gatewayPersonAddress(args.address, { email: args.email!, phoneNumber: args.phoneNumber! }) } : {}),
    };
  }

  async validatePerson(args: PersonArgs): Promise<PersonResultView> {
    const req = this.request(args);
    const r = await this.gateway.validatePerson(req);
    return { id: null, status: r.status, message: r.message ?? null };
  }

  /**
   * The sender a caller's person stands for (checks and transfers send it): NOT_FOUND for someone else's or an
   * unknown person, BAD_USER_INPUT when it is not APPROVED or lacks what a sender needs.
   */
  async senderFor(ownerId: string, personId: string): Promise<Sender> {
    const [person] = await this.sql.query<{ owner_id: string; status: string; details: Prisma.JsonValue }>`
      SELECT owner_id, status, details FROM persons WHERE id = ${personId}`;
    if (!person || person.owner_id !== ownerId) throw notFound('Person');
    const sender = senderOf(person);
    if (typeof sender === 'string')
      throw badField('input.personId', person.status !== 'APPROVED' ? 'NOT_VERIFIED' : 'INCOMPLETE', `personId: ${sender}`);
    return sender;
  }

  /**
   * The owner's persons, newest first, after a keyset position (createdAt, id): `size` of them and whether more follow.
   * Only the owner's: another customer's persons are never listed.
   */
  async listPersons(
    ownerId: string,
    after: { createdAt: Date; id: string } | null,
    size: number,
  ): Promise<{ rows: PersonSummary[]; hasNextPage: boolean }> {
    const rows = await this.prisma.person.findMany({
      where: {
        ownerId,
        ...(after ? { OR: [{ createdAt: { lt: after.createdAt } }, { createdAt: after.createdAt, id: { lt: after.id } }] } : {}),
      },
      orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
      take: size + 1,
      select: { id: true, status: true, message: true, countryCode: true, details: true, createdAt: true },
    });
    return {
      rows: rows.slice(0, size).map((p) => ({
        id: p.id,
        name: nameOf(p.details),
        status: p.status,
        message: p.message,
        countryCode: p.countryCode || null,
        requirements: senderRequirements(p),
        createdAt: p.createdAt,
      })),
      hasNextPage: rows.length > size,
    };
  }

  async createPerson(ownerId: string, args: PersonArgs): Promise<PersonResultView> {
    const req = this.request(args);
    const r = await this.gateway.createPerson(req);
    if (r.status !== 'APPROVED') return { id: null, status: r.status, message: r.message ?? null };
    const row = await this.prisma.person.create({
      data: {
        ownerId,
        upstreamId: r.id ?? null,
        status: r.status,
        message: r.message ?? null,
        countryCode: args.address?.countryCode ?? '',
        details: JSON.parse(JSON.stringify(args)) as Prisma.InputJsonValue,
        createdAt: this.clock.now(),
      },
    });
    return { id: row.id, status: r.status, message: null };
  }
}

/** A stored person as the owner's list shows it. */
export interface PersonSummary {
  id: string;
  /** First and last name, or the company's name; null for rows from before the details were kept. */
  name: string | null;
  status: string;
  message: string | null;
  countryCode: string | null;
  /** What it lacks to send money (senderRequirements; empty: it can). */
  requirements: SenderRequirement[];
  createdAt: Date;
}

function nameOf(details: Prisma.JsonValue | null): string | null {
  const d = (details ?? {}) as { firstName?: unknown; lastName?: unknown; companyName?: unknown };
  if (typeof d.companyName === 'string' && d.companyName) return d.companyName;
  const parts = [d.firstName, d.lastName].filter((x): x is string => typeof x === 'string' && x.length > 0);
  return parts.length ? parts.join(' ') : null;
}
