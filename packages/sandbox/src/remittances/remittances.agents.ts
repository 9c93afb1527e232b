/**
 * Agents of the simulated remittances platform.
 *
 * Decisions (shapes "not shown" upstream):
 * - Create body: { email (required), businessName (required), externalId? }; response 201 with the agent and
 *   its apiKey (shown only there; stored as a sha256 hash). Both POST /organizations/{tenant}/agents and
 *   POST /agents (tenant auth) create one.
 * - New agents are PENDING_APPROVAL; POST /__sandbox/agents/{id}/approve makes them ACTIVE (the state after
 *   approval is not shown upstream; we call it ACTIVE). The configured agent is seeded ACTIVE.
 * - AgentUpdatedEvents { id, before: null, after, tenantId, version: 1 } on creation; on approval another one
 *   with before/after.
 */
import type { FastifyInstance } from 'fastify';
import { randomBytes } from 'node:crypto';
import type { SandboxContext } from '../sandbox.context';
import type { RemittancesAuth } from './remittances.auth';
import type { WebhookDelivery } from './remittances.delivery';
import { badRequest, notFound } from './remittances.errors';
import { isRecord, matchesHash, sha256Hex, uuid } from './remittances.util';

export type AgentStatus = 'PENDING_APPROVAL' | 'ACTIVE';

export interface Agent {
  id: string;
  tenantId: string;
  email: string;
  businessName: string;
  externalId: string | null;
  status: AgentStatus;
  createdAt: string;
  apiKeyHash: string;
}

export interface AgentView {
  id: string;
  email: string;
  businessName: string;
  externalId: string | null;
  status: AgentStatus;
  createdAt: string;
}

export const agentView = (a: Agent): AgentView => ({
  id: a.id,
  email: a.email,
  businessName: a.businessName,
  externalId: a.externalId,
  status: a.status,
  createdAt: a.createdAt,
});

export class AgentStore {
  private readonly agents = new Map<string, Agent>();
  delivery: WebhookDelivery | null = null;

  constructor(private readonly ctx: SandboxContext) {
    this.seed();
  }

  reset(): void {
    this.agents.clear();
    this.seed();
  }

  private seed(): void {
    const o = this.ctx.options;
    this.agents.set(o.remittancesAgentId, {
      id: o.remittancesAgentId,
      tenantId: o.remittancesTenantId,
      email: 'sandbox-agent@example.com',
      businessName: 'Sandbox Agent',
      externalId: null,
      status: 'ACTIVE',
      createdAt: new Date(0).toISOString(),
      apiKeyHash: sha256Hex(o.remittancesAgentApiKey),
    });
  }

  get(id: string): Agent | undefined {
    return this.agents.get(id);
  }

  authenticate(tenantId: string, id: string, key: string): Agent | null {
    const a = this.agents.get(id);
    if (!a || a.tenantId !== tenantId || !matchesHash(key, a.apiKeyHash)) return null;
    return a;
  }

  create(tenantId: string, body: unknown): AgentView & { apiKey: string } {
    if (!isRecord(body)) throw badRequest('body must be a JSON object');
    const problems: Array<{ field: string; problem: string }> = [];
    if (typeof body.email !== 'string' || !/^[^@\s]+@[^@\s]+$/.test(body.email))
      problems.push({ field: 'email', problem: 'a valid email is required' });
    if (typeof body.businessName !== 'string' || body.businessName.trim() === '')
      problems.push({ field: 'businessName', problem: 'required' });
    if (body.externalId !== undefined && body.externalId !== null && typeof body.externalId !== 'string')
      problems.push({ field: 'externalId', problem: 'must be a string or null' });
    if (problems.length) throw badRequest('invalid agent', problems);
    const apiKey = randomBytes(32).toString('base64url');
    const agent: Agent = {
      id: uuid(),
      tenantId,
      email: body.email as string,
      businessName: body.businessName as string,
      externalId: (body.externalId as string | null | undefined) ?? null,
      status: 'PENDING_APPROVAL',
      createdAt: this.ctx.now().toISOString(),
      apiKeyHash: sha256Hex(apiKey),
    };
    this.agents.set(agent.id, agent);
    this.emit(agent, null);
    return { ...agentView(agent), apiKey };
  }

  approve(id: string): AgentView {
    const a = this.agents.get(id);
    if (!a) throw notFound('agent');
    if (a.status !== 'ACTIVE') {
      const before = agentView(a);
      a.status = 'ACTIVE';
      this.emit(a, before);
    }
    return agentView(a);
  }

  private emit(agent: Agent, before: AgentView | null): void {
    this.delivery?.publish(agent.tenantId, 'AgentUpdatedEvents', {
      id: agent.id,
      before,
      after: agentView(agent),
      tenantId: agent.tenantId,
      version: 1,
    });
  }
}

export function registerAgentRoutes(app: FastifyInstance, store: AgentStore, auth: RemittancesAuth): void {
  app.post('/organizations/:tenant/agents', async (request, reply) =>
    reply.code(201).send(store.create(auth.principal(request).tenantId, request.body)),
  );
  app.post('/agents', async (request, reply) => reply.code(201).send(store.create(auth.principal(request).tenantId, request.body)));
}
