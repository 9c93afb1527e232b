/**
 * Authentication of the simulated remittances platform, in this order (first failure wins):
 *
 * 1. Client certificate: when the sandbox runs TLS with a required client certificate
 *    (ctx.tlsClientAuthRequired), a request whose TLS socket is not authorized (no certificate, or one not
 *    signed by the configured CA) gets 403 CLIENT_CERTIFICATE_REQUIRED. (The real platform refuses during the
 *    handshake; the sandbox shares its port with the gateway, so it answers at the HTTP level instead.)
 * 2. Tenant API key (x-api-key): missing or unknown → 401 INVALID_API_KEY.
 * 3. Rate limit per API key: more than options.remittancesRatePerSecond requests within any sliding 1-second
 *    window (real time) → 429 RATE_LIMITED with Retry-After (whole seconds, at least 1). Rejected requests do
 *    not count.
 * 4. Tenant in the path: a {tenant} that is not the key's tenant → 404 NOT_FOUND (we do not reveal whether
 *    another tenant exists).
 * 5. Agent-level endpoints: x-agent-id/x-agent-api-key missing → 403 AGENT_AUTH_REQUIRED; unknown agent,
 *    wrong key or an agent of another tenant → 401 INVALID_AGENT_CREDENTIALS; agent PENDING_APPROVAL →
 *    403 AGENT_NOT_APPROVED.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { TLSSocket } from 'node:tls';
import type { SandboxContext } from '../sandbox.context';
import type { AgentStore } from './remittances.agents';
import { RemittancesError } from './remittances.errors';

export interface Principal {
  tenantId: string;
  apiKey: string;
  agentId?: string;
}

function header(request: FastifyRequest, name: string): string | undefined {
  const v = request.headers[name];
  return typeof v === 'string' && v.length > 0 ? v : undefined;
}

export class RemittancesAuth {
  private readonly principals = new WeakMap<FastifyRequest, Principal>();
  private readonly windows = new Map<string, number[]>();

  constructor(
    private readonly ctx: SandboxContext,
    private readonly agents: AgentStore,
  ) {}

  reset(): void {
    this.windows.clear();
  }

  principal(request: FastifyRequest): Principal {
    const p = this.principals.get(request);
    if (!p) throw new RemittancesError(401, 'INVALID_API_KEY', 'missing or invalid x-api-key');
    return p;
  }

  private tenantForKey(key: string): string | null {
    return key === this.ctx.options.remittancesApiKey ? this.ctx.options.remittancesTenantId : null;
  }

  /** onRequest hook for every route of the platform: certificate, API key, rate limit, tenant in path. */
  readonly requireTenant = async (request: FastifyRequest, _reply: FastifyReply): Promise<void> => {
    if (this.ctx.tlsClientAuthRequired && (request.raw.socket as TLSSocket).authorized !== true) {
      throw new RemittancesError(403, 'CLIENT_CERTIFICATE_REQUIRED', 'a valid TLS client certificate is required');
    }
    const key = header(request, 'x-api-key');
    const tenantId = key ? this.tenantForKey(key) : null;
    if (!key || !tenantId) throw new RemittancesError(401, 'INVALID_API_KEY', 'missing or invalid x-api-key');
    this.rateLimit(key);
    const params = request.params as Record<string, string> | undefined;
    if (params && typeof params.tenant === 'string' && params.tenant !== tenantId) {
      throw new RemittancesError(404, 'NOT_FOUND', 'organization not found');
    }
    this.principals.set(request, { tenantId, apiKey: key });
  };

  /** preHandler for agent-level routes. */
  readonly requireAgent = async (request: FastifyRequest, _reply: FastifyReply): Promise<void> => {
    const p = this.principal(request);
    const agentId = header(request, 'x-agent-id');
    const agentKey = header(request, 'x-agent-api-key');
    if (!agentId || !agentKey) {
      throw new RemittancesError(403, 'AGENT_AUTH_REQUIRED', 'this endpoint needs x-agent-id and x-agent-api-key');
    }
    const agent = this.agents.authenticate(p.tenantId, agentId, agentKey);
    if (!agent) throw new RemittancesError(401, 'INVALID_AGENT_CREDENTIALS', 'unknown agent or wrong agent key');
    if (agent.status !== 'ACTIVE') throw new RemittancesError(403, 'AGENT_NOT_APPROVED', 'agent is not approved yet');
    p.agentId = agent.id;
  };

  private rateLimit(key: string): void {
    const limit = this.ctx.options.remittancesRatePerSecond;
    if (!(limit > 0)) return;
    const now = Date.now();
    const window = (this.windows.get(key) ?? []).filter((t) => t > now - 1000);
    if (window.length >= limit) {
      this.windows.set(key, window);
      const retryAfter = Math.max(1, Math.ceil((window[0] + 1000 - now) / 1000));
      throw new RemittancesError(429, 'RATE_LIMITED', 'too many requests for this API key', undefined, {
        'retry-after': String(retryAfter),
      });
    }
    window.push(now);
    this.windows.set(key, window);
  }
}
