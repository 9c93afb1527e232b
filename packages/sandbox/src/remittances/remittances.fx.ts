/**
 * /organizations/{tenant}/fx/transactions (agent auth). Shapes "not shown" upstream; sandbox decisions:
 *
 * - POST   .../fx/transactions { externalTransactionId?, amount?: { total, currency }, metadata? } → 201 transaction
 *          (status Created; TransactionStatusChanged null → Created). Duplicate externalTransactionId → 409.
 * - GET    .../fx/transactions?status=&externalTransactionId=&limit=(1..200, default 50)&offset= →
 *          { transactions: [...], total }
 * - GET    .../fx/transactions/{id}                 → transaction ({id} = transactionId or externalTransactionId)
 * - GET    .../fx/transactions/{id}/statusHistory   → { transactionId, history: [{ oldStatus, newStatus, newStatusMessages, at }] }
 * - POST   .../fx/transactions/{id}/cancel          → 200 transaction (CancelRequested, then Cancelled one step
 *          later); 409 INVALID_STATE once captured or finished.
 * - GET    .../fx/transactions/{id}/metadata        → { metadata }; PUT replaces, PATCH merges (JSON object).
 * - GET    .../fx/transactions/limits               → { currency, perTransaction { min, max }, daily { max }, monthly { max } }
 * A transaction: { transactionId, externalTransactionId, tenantId, status, complianceStatus, payoutStatus,
 *   gatewayPaymentId, amount, recipientAmount, metadata, createdAt, updatedAt }.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { RemittancesAuth } from './remittances.auth';
import { badRequest, notFound } from './remittances.errors';
import { transactionView, type Money, type TransactionEngine } from './remittances.transactions';
import { isRecord, optionalString } from './remittances.util';

export const FX_LIMITS = {
  currency: 'USD',
  perTransaction: { min: '1.00', max: '2999.00' },
  daily: { max: '5000.00' },
  monthly: { max: '20000.00' },
};

function parseAmount(v: unknown): Money | null {
  if (v === undefined || v === null) return null;
  if (
    !isRecord(v) ||
    typeof v.total !== 'number' ||
    !Number.isFinite(v.total) ||
    v.total <= 0 ||
    typeof v.currency !== 'string' ||
    !/^[A-Z]{3}$/.test(v.currency)
  )
    throw badRequest('invalid transaction', [{ field: 'amount', problem: 'must be { total: positive number, currency: ISO 4217 }' }]);
  return { total: v.total, currency: v.currency };
}

export function registerFxRoutes(app: FastifyInstance, engine: TransactionEngine, auth: RemittancesAuth): void {
  const opts = { preHandler: auth.requireAgent };
  type P = { Params: { tenant: string; id: string } };
  const tenant = (r: Parameters<RemittancesAuth['principal']>[0]) => auth.principal(r).tenantId;
  const get = (r: Parameters<RemittancesAuth['principal']>[0], id: string) => {
    const t = engine.find(tenant(r), id);
    if (!t) throw notFound('transaction');
    return t;
  };

  app.get('/organizations/:tenant/fx/transactions/limits', opts, async () => FX_LIMITS);

  app.post('/organizations/:tenant/fx/transactions', opts, async (request, reply) => {
    const body = request.body ?? {};
    if (!isRecord(body)) throw badRequest('body must be a JSON object');
    if (body.metadata !== undefined && !isRecord(body.metadata))
      throw badRequest('invalid transaction', [{ field: 'metadata', problem: 'must be an object' }]);
    const t = engine.createFromApi(tenant(request), {
      externalTransactionId: optionalString(body.externalTransactionId),
      amount: parseAmount(body.amount),
      metadata: (body.metadata as Record<string, unknown> | undefined) ?? {},
    });
    return reply.code(201).send(transactionView(t));
  });

  app.get<{ Querystring: Record<string, string | undefined> }>('/organizations/:tenant/fx/transactions', opts, async (request) => {
    const q = request.query;
    const limit = q.limit === undefined ? 50 : Number(q.limit);
    const offset = q.offset === undefined ? 0 : Number(q.offset);
    if (!Number.isInteger(limit) || limit < 1 || limit > 200) throw badRequest('invalid query', [{ field: 'limit', problem: '1..200' }]);
    if (!Number.isInteger(offset) || offset < 0) throw badRequest('invalid query', [{ field: 'offset', problem: '>= 0' }]);
    const all = engine
      .list(tenant(request))
      .filter((t) => (q.status ? t.status === q.status : true))
      .filter((t) => (q.externalTransactionId ? t.externalTransactionId === q.externalTransactionId : true));
    return { transactions: all.slice(offset, offset + limit).map(transactionView), total: all.length };
  });

  app.get<P>('/organizations/:tenant/fx/transactions/:id', opts, async (request) => transactionView(get(request, request.params.id)));

  app.get<P>('/organizations/:tenant/fx/transactions/:id/statusHistory', opts, async (request) => {
    const t = get(request, request.params.id);
    return { transactionId: t.transactionId, history: t.history };
  });

  app.post<P>('/organizations/:tenant/fx/transactions/:id/cancel', opts, async (request) =>
    transactionView(engine.cancel(tenant(request), request.params.id)),
  );

  app.get<P>('/organizations/:tenant/fx/transactions/:id/metadata', opts, async (request) => ({
    metadata: get(request, request.params.id).metadata,
  }));
  const setMetadata = (request: FastifyRequest<P>, merge: boolean) => {
    const t = get(request, request.params.id);
    if (!isRecord(request.body)) throw badRequest('metadata must be a JSON object');
    t.metadata = merge ? { ...t.metadata, ...request.body } : { ...request.body };
    return { metadata: t.metadata };
  };
  app.put<P>('/organizations/:tenant/fx/transactions/:id/metadata', opts, async (request) => setMetadata(request, false));
  app.patch<P>('/organizations/:tenant/fx/transactions/:id/metadata', opts, async (request) => setMetadata(request, true));
}
