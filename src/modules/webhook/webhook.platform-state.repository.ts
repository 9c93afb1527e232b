/**
 * Latest known state of platform documents and agents, kept from their events for the back-office.
 *
 * Documents: "for several events with the same id, the one with the greatest occurredAt is current; an
 * equal occurredAt is a retry" — one conditional upsert; unknown verificationStatus values change nothing.
 * Agents: the events carry no time. The creation event (before: null) never overwrites a row that an
 * update already wrote; an update never moves a decided agent back to PENDING_APPROVAL (agent states after
 * approval are "not shown", so any other reported value is taken as current).
 */
import { prismaRawSql, type RawSql } from '../../db/raw-sql';
import type { PrismaClient } from '../../generated/prisma/client';
import { DOCUMENT_STATUSES, type AgentState, type DocumentState } from './webhook.normalize';

type StateOutcome = 'applied' | 'stale' | 'no_change' | 'unknown_value';

const KNOWN_DOCUMENT_STATUSES = new Set<string>(DOCUMENT_STATUSES);
const PENDING_AGENT = 'PENDING_APPROVAL';

export class PlatformStateStore {
  private readonly sql: RawSql;

  constructor(private readonly prisma: PrismaClient) {
    this.sql = prismaRawSql(prisma);
  }

  async applyDocument(d: DocumentState, now: Date): Promise<StateOutcome> {
    if (!KNOWN_DOCUMENT_STATUSES.has(d.verificationStatus)) return 'unknown_value';
    const rows = await this.sql.query<{ id: string }>`
      INSERT INTO platform_documents (id, entity_id, entity_type, document_type, verification_status, occurred_at, tenant_id, updated_at)
      VALUES (${d.id}, ${d.entityId}, ${d.entityType}, ${d.documentType}, ${d.verificationStatus}, ${d.occurredAt}, ${d.tenantId}, ${now})
      ON CONFLICT (id) DO UPDATE SET
        entity_id = EXCLUDED.entity_id, entity_type = EXCLUDED.entity_type, document_type = EXCLUDED.document_type,
        verification_status = EXCLUDED.verification_status, occurred_at = EXCLUDED.occurred_at,
        tenant_id = COALESCE(EXCLUDED.tenant_id, platform_documents.tenant_id), updated_at = EXCLUDED.updated_at
      WHERE platform_documents.occurred_at < EXCLUDED.occurred_at
      RETURNING id`;
    if (rows.length > 0) return 'applied';
    const current = await this.prisma.platformDocument.findUnique({ where: { id: d.id }, select: { occurredAt: true } });
    // occurred_at is stored with millisecond precision, as is a Date
    return current && current.occurredAt.getTime() === d.occurredAt.getTime() ? 'no_change' : 'stale';
  }

  async applyAgent(a: AgentState, now: Date): Promise<StateOutcome> {
    const rows = a.created
      ? await this.sql.query<{ id: string }>`
          INSERT INTO platform_agents (id, email, business_name, external_id, status, tenant_id, platform_created_at, updated_at)
          VALUES (${a.id}, ${a.email}, ${a.businessName}, ${a.externalId}, ${a.status}, ${a.tenantId}, ${a.createdAt}, ${now})
          ON CONFLICT (id) DO NOTHING
          RETURNING id`
      : await this.sql.query<{ id: string }>`
          INSERT INTO platform_agents (id, email, business_name, external_id, status, tenant_id, platform_created_at, updated_at)
          VALUES (${a.id}, ${a.email}, ${a.businessName}, ${a.externalId}, ${a.status}, ${a.tenantId}, ${a.createdAt}, ${now})
          ON CONFLICT (id) DO UPDATE SET
            status = EXCLUDED.status,
            email = COALESCE(EXCLUDED.email, platform_agents.email),
            business_name = COALESCE(EXCLUDED.business_name, platform_agents.business_name),
            external_id = COALESCE(EXCLUDED.external_id, platform_agents.external_id),
            tenant_id = COALESCE(EXCLUDED.tenant_id, platform_agents.tenant_id),
            platform_created_at = COALESCE(EXCLUDED.platform_created_at, platform_agents.platform_created_at),
            updated_at = EXCLUDED.updated_at
          WHERE platform_agents.status IS DISTINCT FROM EXCLUDED.status
            AND NOT (EXCLUDED.status = ${PENDING_AGENT} AND platform_agents.status <> ${PENDING_AGENT})
          RETURNING id`;
    if (rows.length > 0) return 'applied';
    const current = await this.prisma.platformAgent.findUnique({ where: { id: a.id }, select: { status: true } });
    return current?.status === a.status ? 'no_change' : 'stale';
  }
}
