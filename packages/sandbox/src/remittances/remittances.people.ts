/**
 * People (participants), compliance levels and documents of the simulated remittances platform.
 * Shapes are "not shown" upstream; the sandbox's minimal decisions:
 *
 * - POST /people (tenant) { firstName, lastName (required), email?, dateOfBirth?, phone?, address?, externalId? }
 *   → 201 { id, type: "INDIVIDUAL", firstName, lastName, email, dateOfBirth, phone, address, externalId,
 *   status: "ACTIVE", createdAt, updatedAt }.
 * - PATCH /people/{id} (tenant): merges the same fields → 200 person; unknown → 404.
 * - GET /organizations/{tenant}/people/{personId} (tenant) → 200 person; unknown / other tenant → 404.
 * - GET /participants/{id}/complianceLevels (tenant) → 200 { participantId, currentLevel, levels: [{ level,
 *   name, status, requirements[] }] }; level 1 is APPROVED once the person exists, level 2 once a document is
 *   VERIFIED.
 * - POST /people/{id}/documents and POST /people/{id}/documents/{documentType} (tenant)
 *   { documentType (body or path; PASSPORT, DRIVERS_LICENSE, SSN, PROOF_OF_FUNDS, ...), fileName?, content? }
 *   → 201 { id, entityId, entityType: "Participant", documentType, verificationStatus: "PENDING", createdAt }.
 *   DocumentUpdatedEvents: PENDING at once, then VERIFIED one lifecycle step later (REJECTED when the
 *   person's lastName is "Rejected").
 */
import type { FastifyInstance } from 'fastify';
import type { SandboxContext } from '../sandbox.context';
import type { RemittancesAuth } from './remittances.auth';
import type { WebhookDelivery } from './remittances.delivery';
import { badRequest, notFound } from './remittances.errors';
import { isRecord, TimerSet, uuid } from './remittances.util';

const PERSON_FIELDS = ['firstName', 'lastName', 'email', 'dateOfBirth', 'phone', 'address', 'externalId'] as const;

export interface Person {
  id: string;
  tenantId: string;
  type: 'INDIVIDUAL';
  firstName: string;
  lastName: string;
  email: string | null;
  dateOfBirth: string | null;
  phone: string | null;
  address: unknown;
  externalId: string | null;
  status: 'ACTIVE';
  createdAt: string;
  updatedAt: string;
}

export interface Document {
  id: string;
  tenantId: string;
  entityId: string;
  entityType: 'Participant';
  documentType: string;
  verificationStatus: 'PENDING' | 'VERIFIED' | 'REJECTED' | 'EXPIRED';
  createdAt: string;
  updatedAt: string;
}

const personView = ({ tenantId: _t, ...p }: Person) => p;
const documentView = ({ tenantId: _t, ...d }: Document) => d;

export class PeopleStore {
  private readonly people = new Map<string, Person>();
  private readonly documents = new Map<string, Document>();
  private readonly timers = new TimerSet();

  constructor(
    private readonly ctx: SandboxContext,
    private readonly delivery: WebhookDelivery,
  ) {}

  reset(): void {
    this.timers.clear();
    this.people.clear();
    this.documents.clear();
  }

  close(): void {
    this.timers.clear();
  }

  get(tenantId: string, id: string): Person {
    const p = this.people.get(id);
    if (!p || p.tenantId !== tenantId) throw notFound('person');
    return p;
  }

  create(tenantId: string, body: unknown): Person {
    const fields = this.validate(body, true);
    const now = this.ctx.now().toISOString();
    const p: Person = {
      id: uuid(),
      tenantId,
      type: 'INDIVIDUAL',
      firstName: fields.firstName as string,
      lastName: fields.lastName as string,
      email: (fields.email as string) ?? null,
      dateOfBirth: (fields.dateOfBirth as string) ?? null,
      phone: (fields.phone as string) ?? null,
      address: fields.address ?? null,
      externalId: (fields.externalId as string) ?? null,
      status: 'ACTIVE',
      createdAt: now,
      updatedAt: now,
    };
    this.people.set(p.id, p);
    return p;
  }

  update(tenantId: string, id: string, body: unknown): Person {
    const p = this.get(tenantId, id);
    const fields = this.validate(body, false);
    Object.assign(p, fields, { updatedAt: this.ctx.now().toISOString() });
    return p;
  }

  complianceLevels(tenantId: string, id: string) {
    const p = this.get(tenantId, id);
    const verified = [...this.documents.values()].some((d) => d.entityId === p.id && d.verificationStatus === 'VERIFIED');
    return {
      participantId: p.id,
      currentLevel: verified ? 2 : 1,
      levels: [
        { level: 1, name: 'BASIC', status: 'APPROVED', requirements: ['firstName', 'lastName'] },
        { level: 2, name: 'VERIFIED_IDENTITY', status: verified ? 'APPROVED' : 'PENDING', requirements: ['identity document'] },
      ],
    };
  }

  addDocument(tenantId: string, personId: string, pathType: string | undefined, body: unknown): Document {
    const p = this.get(tenantId, personId);
    const documentType = pathType ?? (isRecord(body) ? body.documentType : undefined);
    if (typeof documentType !== 'string' || !/^[A-Za-z_]{2,40}$/.test(documentType))
      throw badRequest('invalid document', [{ field: 'documentType', problem: 'required, e.g. PASSPORT or DRIVERS_LICENSE' }]);
    const now = this.ctx.now().toISOString();
    const d: Document = {
      id: uuid(),
      tenantId,
      entityId: p.id,
      entityType: 'Participant',
      documentType: documentType.toUpperCase(),
      verificationStatus: 'PENDING',
      createdAt: now,
      updatedAt: now,
    };
    this.documents.set(d.id, d);
    this.emit(d);
    const decision = p.lastName === 'Rejected' ? 'REJECTED' : 'VERIFIED';
    this.timers.after(this.ctx.options.lifecycleStepMs, () => {
      d.verificationStatus = decision;
      d.updatedAt = this.ctx.now().toISOString();
      this.emit(d);
    });
    return d;
  }

  private emit(d: Document): void {
    this.delivery.publish(d.tenantId, 'DocumentUpdatedEvents', {
      id: d.id,
      entityId: d.entityId,
      entityType: d.entityType,
      documentType: d.documentType,
      verificationStatus: d.verificationStatus,
      occurredAt: d.updatedAt,
      tenantId: d.tenantId,
      version: 1,
    });
  }

  private validate(body: unknown, creating: boolean): Record<string, unknown> {
    if (!isRecord(body)) throw badRequest('body must be a JSON object');
    const problems: Array<{ field: string; problem: string }> = [];
    const out: Record<string, unknown> = {};
    for (const f of PERSON_FIELDS) {
      const v = body[f];
      if (v === undefined) {
        if (creating && (f === 'firstName' || f === 'lastName')) problems.push({ field: f, problem: 'required' });
        continue;
      }
      if (f === 'address') {
        if (v !== null && !isRecord(v)) problems.push({ field: f, problem: 'must be an object' });
      } else if (typeof v !== 'string' || ((f === 'firstName' || f === 'lastName') && v.trim() === '')) {
        problems.push({ field: f, problem: 'must be a non-empty string' });
      }
      out[f] = v;
    }
    if (problems.length) throw badRequest('invalid person', problems);
    return out;
  }
}

export function registerPeopleRoutes(app: FastifyInstance, store: PeopleStore, auth: RemittancesAuth): void {
  const tenant = (r: Parameters<RemittancesAuth['principal']>[0]) => auth.principal(r).tenantId;
  app.post('/people', async (request, reply) => reply.code(201).send(personView(store.create(tenant(request), request.body))));
  app.patch<{ Params: { id: string } }>('/people/:id', async (request) =>
    personView(store.update(tenant(request), request.params.id, request.body)),
  );
  app.get<{ Params: { tenant: string; personId: string } }>('/organizations/:tenant/people/:personId', async (request) =>
    personView(store.get(tenant(request), request.params.personId)),
  );
  app.get<{ Params: { id: string } }>('/participants/:id/complianceLevels', async (request) =>
    store.complianceLevels(tenant(request), request.params.id),
  );
  app.post<{ Params: { id: string } }>('/people/:id/documents', async (request, reply) =>
    reply.code(201).send(documentView(store.addDocument(tenant(request), request.params.id, undefined, request.body))),
  );
  app.post<{ Params: { id: string; documentType: string } }>('/people/:id/documents/:documentType', async (request, reply) =>
    reply.code(201).send(documentView(store.addDocument(tenant(request), request.params.id, request.params.documentType, request.body))),
  );
}
