import type { PrismaClient } from '../../generated/prisma/client';
import { moneyOf } from '../../shared/money';
import type { Caller } from '../../auth/auth.types';
import type { GatewayClient } from '../../upstream/gateway/gateway.client';
import type { RemittancesClient } from '../../upstream/remittances/remittances.client';
import { isUpstreamError, toAppError } from '../../upstream/http/upstream.errors';
import { decimalFromNumber } from '../../shared/decimal';
import { badInput } from '../../shared/errors';
import { connectionFrom, pageRequest } from '../../graphql/relay';

type AgentRow = { id: string; email: string; businessName: string; externalId: string | null; status: string; createdBy: string; upstreamCreatedAt: Date };
const agentView = (a: AgentRow) => ({ ...a, createdAt: a.upstreamCreatedAt });

/** Back-office: payer balances (gateway) and agents (remittances platform). */
export class AdminService {
  constructor(
    private readonly prisma: PrismaClient,
    private readonly gateway: GatewayClient,
    private readonly remittances: RemittancesClient,
  ) {}

  async payerBalances() {
    const providers = await this.gateway.getPayerBalance().catch((e: unknown) => {
      throw toAppError(e);
    });
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
  async createAgent(caller: Caller, input: { email: string; businessName: string; externalId?: string }, via: 'organization' | 'legacy' = 'organization') {
    const req = { email: input.email, businessName: input.businessName, ...(input.externalId ? { externalId: input.externalId } : {}) };
    const created = await (via === 'legacy' ? this.remittances.createAgentLegacy(req) : this.remittances.createAgent(req))
      .catch((e: unknown) => {
        if (isUpstreamError(e) && e.kind === 'rejected' && (e.status === 400 || e.status === 422))
          throw badInput('The platform refused the agent: check the e-mail address and business name');
        throw toAppError(e);
      });
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

  async agents(first?: number, after?: string) {
    const { offset, limit } = pageRequest(first, after);
    const [rows, total] = await Promise.all([
      this.prisma.agent.findMany({ orderBy: [{ createdAt: 'desc' }, { id: 'desc' }], skip: offset, take: limit }),
      this.prisma.agent.count(),
    ]);
    return connectionFrom(rows.map(agentView), offset, total);
  }
}
