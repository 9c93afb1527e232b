import type { PrismaClient } from '../../generated/prisma/client';
import { moneyOf } from '../../shared/money';
import type { Caller } from '../../auth/auth.types';
import type { GatewayClient } from '../../upstream/gateway/gateway.client';
import type { RemittancesClient } from '../../upstream/remittances/remittances.client';
import { decimalFromNumber } from '../../shared/decimal';
import type { PageWindow } from '../../shared/page';

type AgentRow = {
  id: string;
  email: string;
  businessName: string;
  externalId: string | null;
  status: string;
  createdBy: string;
  upstreamCreatedAt: Date;
  createdAt: Date;
};
type AgentState = { status: string; updatedAt: Date };
/** An agent as created here, its status as the platform's events last reported it (webhook.platform-state.repository.ts). */
const agentView = (a: AgentRow, state?: AgentState) => ({
  id: a.id,
  email: a.email,
  businessName: a.businessName,
  externalId: a.externalId,
  createdBy: a.createdBy,
  createdAt: a.upstreamCreatedAt,
  status: state?.status ?? a.status,
  updatedAt: state && state.updatedAt > a.createdAt ? state.updatedAt : a.createdAt,
});

/** Back-office: payer balances (gateway), agents and document results (remittances platform). */
export class AdminService {
  constructor(
    private readonly prisma: PrismaClient,
    private readonly gateway: GatewayClient,
    private readonly remittances: RemittancesClient,
  ) {}

  async payerBalances() {
    const providers = await this.gateway.getPayerBalance();
    return providers.map((p) => ({
      providerId: p.providerId,
      balances: p.balances.map((b) => moneyOf(decimalFromNumber(b.balance), b.currencyCode)),
    }));
  }

  /**
   * POST /organizations/{tenant}/agents. The API key goes back to the admin in this one response and is
   * never stored or logged (the platform stores it hashed; there is no way to read it again). Not repeated
   * on failure: a lost response may have created the agent (see RemittancesClient).
   * `via: 'legacy'` uses the tenant-level alias POST /agents (same request and answer) instead.
   */
  async createAgent(
    caller: Caller,
    input: { email: string; businessName: string; externalId?: string },
    via: 'organization' | 'legacy' = 'organization',
  ) {
    const req = { email: input.email, businessName: input.businessName, ...(input.externalId ? { externalId: input.externalId } : {}) };
    const created = await (via === 'legacy' ? this.remittances.createAgentLegacy(req) : this.remittances.createAgent(req));
    const { apiKey, ...agent } = created;
    const row = await this.prisma.agent.create({
      data: {
        id: agent.id,
        email: agent.email,
        businessName: agent.businessName,
        externalId: agent.externalId ?? null,
        status: agent.status,
        createdBy: caller.userId,
        upstreamCreatedAt: new Date(agent.createdAt),
      },
    });
    return { agent: agentView(row), apiKey };
  }

  /** Agents created here, newest first, each with the status the platform's latest event gave it. */
  async agents({ offset, limit }: PageWindow) {
    const [rows, total] = await Promise.all([
      this.prisma.agent.findMany({ orderBy: [{ createdAt: 'desc' }, { id: 'desc' }], skip: offset, take: limit }),
      this.prisma.agent.count(),
    ]);
    const states = await this.prisma.platformAgent.findMany({
      where: { id: { in: rows.map((r) => r.id) } },
      select: { id: true, status: true, updatedAt: true },
    });
    const stateOf = new Map(states.map((s) => [s.id, s]));
    return { items: rows.map((r) => agentView(r, stateOf.get(r.id))), offset, total };
  }

  /** A platform person's documents with their latest verification result (DocumentUpdatedEvents), newest change first. */
  async documents(personId: string, { offset, limit }: PageWindow) {
    const where = { entityId: personId };
    const [rows, total] = await Promise.all([
      this.prisma.platformDocument.findMany({ where, orderBy: [{ occurredAt: 'desc' }, { id: 'desc' }], skip: offset, take: limit }),
      this.prisma.platformDocument.count({ where }),
    ]);
    return {
      items: rows.map((d) => ({
        id: d.id,
        personId: d.entityId,
        documentType: d.documentType,
        verificationStatus: d.verificationStatus,
        occurredAt: d.occurredAt,
        updatedAt: d.updatedAt,
      })),
      offset,
      total,
    };
  }
}
