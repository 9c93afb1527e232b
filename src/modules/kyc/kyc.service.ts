import type { Prisma, PrismaClient } from '../../generated/prisma/client';
import type { RawSql } from '../../db/raw-sql';
import { PersonRepository } from './kyc.repository';
import type { Clock } from '../../shared/clock';
import { badField, badFields, notFound } from '../../shared/errors';
import type { GatewayClient } from '../../upstream/gateway/gateway.client';
import type { PersonRequest } from '../../upstream/gateway/gateway.types';
import { gatewayPersonAddress } from '../../shared/address';
import { requireSender, senderRequirements, type PersonDetails, type Sender, type SenderRequirement } from './kyc.ports';

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
    sql: RawSql,
    private readonly gateway: GatewayClient,
    private readonly clock: Clock,
  ) {
    this.persons = new PersonRepository(sql);
  }

  private readonly persons: PersonRepository;

  private request(args: PersonDetails): PersonRequest {
    const missing = (names: (keyof PersonDetails)[]) =>
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

  async validatePerson(args: PersonDetails): Promise<PersonResultView> {
    const req = this.request(args);
    const r = await this.gateway.validatePerson(req);
    return { id: null, status: r.status, message: r.message ?? null };
  }

  /**
   * The sender a caller's person stands for (checks and transfers send it): NOT_FOUND for someone else's or an
   * unknown person, BAD_USER_INPUT when it is not APPROVED or lacks what a sender needs.
   */
  async senderFor(ownerId: string, personId: string): Promise<Sender> {
    const person = await this.persons.senderRow(personId);
    if (!person || person.owner_id !== ownerId) throw notFound('Person');
    return requireSender(person);
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

  async createPerson(ownerId: string, args: PersonDetails): Promise<PersonResultView> {
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
interface PersonSummary {
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
