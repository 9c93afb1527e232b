import type { PrismaClient } from '../../generated/prisma/client';
import type { Clock } from '../../shared/clock';
import { badInput } from '../../shared/errors';
import type { GatewayClient } from '../../upstream/gateway/gateway.client';
import type { PersonRequest } from '../../upstream/gateway/gateway.types';
import { toAppError } from '../../upstream/http/upstream.errors';

export interface PersonArgs {
  type: 'INDIVIDUAL' | 'BUSINESS';
  firstName?: string;
  lastName?: string;
  companyName?: string;
  identificationType?: string;
  identification?: string;
  gender?: string;
  address?: {
    addressLine1: string;
    addressLine2?: string;
    city: string;
    state: string;
    postalCode: string;
    countryCode: string;
    phoneNumber: string;
    emailAddress: string;
  };
}

export interface PersonResultView {
  id: string | null;
  status: 'APPROVED' | 'REJECTED';
  message: string | null;
}

/**
 * KYC persons (gateway /person/validate and /person). Only the decision, the upstream id and the country are
 * stored; the person's details stay at the gateway. A REJECTED person is not stored and has no id.
 */
export class KycService {
  constructor(
    private readonly prisma: PrismaClient,
    private readonly gateway: GatewayClient,
    private readonly clock: Clock,
  ) {}

  private request(args: PersonArgs): PersonRequest {
    if (args.type === 'INDIVIDUAL' && (!args.firstName || !args.lastName))
      throw badInput('firstName and lastName are required for an individual');
    if (args.type === 'BUSINESS' && !args.companyName) throw badInput('companyName is required for a business');
    return {
      type: args.type,
      firstName: args.firstName,
      lastName: args.lastName,
      companyName: args.companyName,
      identificationType: args.identificationType,
      identification: args.identification,
      gender: args.gender as 'M' | 'F' | undefined,
      address: args.address,
    };
  }

  async validatePerson(args: PersonArgs): Promise<PersonResultView> {
    const req = this.request(args);
    try {
      const r = await this.gateway.validatePerson(req);
      return { id: null, status: r.status, message: r.message ?? null };
    } catch (e) {
      throw toAppError(e);
    }
  }

  async createPerson(ownerId: string, args: PersonArgs): Promise<PersonResultView> {
    const req = this.request(args);
    let r;
    try {
      r = await this.gateway.createPerson(req);
    } catch (e) {
      throw toAppError(e);
    }
    if (r.status !== 'APPROVED') return { id: null, status: r.status, message: r.message ?? null };
    const row = await this.prisma.person.create({
      data: {
        ownerId,
        upstreamId: r.id ?? null,
        status: r.status,
        message: r.message ?? null,
        countryCode: args.address?.countryCode ?? '',
        createdAt: this.clock.now(),
      },
    });
    return { id: row.id, status: r.status, message: null };
  }
}
