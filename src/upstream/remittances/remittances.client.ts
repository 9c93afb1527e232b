import type { z } from 'zod';
import type { CallSpec, UpstreamCaller } from '../http/upstream.caller';
import { jsonDecimal } from '../http/upstream.json';
import {
  createdAgentSchema,
  emptySchema,
  objectSchema,
  signingSecretSchema,
  transactionSchema,
  webhookListSchema,
  webhookSubscriptionSchema,
  withIdSchema,
  type CreateAgentRequest,
  type CreatedAgent,
  type CreateFxTransactionRequest,
  type CreateWebhookRequest,
  type FxTransaction,
  type ListFxTransactionsQuery,
  type PayoutSchemaKind,
  type RemittancesObject,
  type SigningSecret,
  type WebhookList,
  type WebhookSubscription,
  type WithId,
} from './remittances.types';

interface RemittancesClientOptions {
  tenantId: string;
  apiKey: string;
  agentId: string;
  agentApiKey: string;
}

/**
 * The remittances platform. Every call carries x-api-key (set as a default header of the service
 * endpoint); agent-level endpoints add x-agent-id and x-agent-api-key. The connection is HTTPS with the
 * client certificate/key (and optional CA) given to the transport (see upstream.clients.ts).
 *
 * Failures surface as UpstreamError: 401 (bad API key / agent credentials) → unauthorized; 403 (agent not
 * approved, agent auth needed, client certificate refused at HTTP level) → forbidden with upstreamCode
 * (e.g. AGENT_NOT_APPROVED); 429 → rate_limited with retryAfterMs from Retry-After; reads are retried
 * after that delay when it fits the retry budget, writes are not.
 *
 * Error envelope ("not shown"; the sandbox's decision): `{ statusCode, error, code, message, details? }`.
 *
 * Repetition: reads (GET, payout quote, address check) repeat; PUT metadata (a replace) repeats; every other
 * write — people, documents, agents, webhooks, secret rotation, funding/recipient accounts, FX transactions,
 * cancel, deposits — is sent once: none of them carries an idempotency key whose replay returns the first
 * answer (the sandbox answers a reused externalTransactionId with 409), so the caller reconciles by reading
 * back (getFxTransaction accepts the externalTransactionId).
 */
export class RemittancesClient {
  private readonly org: string;
  private readonly agentHeaders: Record<string, string>;

  constructor(
    private readonly caller: UpstreamCaller,
    opts: RemittancesClientOptions,
  ) {
    this.org = `/organizations/${enc(opts.tenantId)}`;
    this.agentHeaders = { 'x-agent-id': opts.agentId, 'x-agent-api-key': opts.agentApiKey };
  }

  private tenantRead<T>(operation: string, path: string, schema: z.ZodType<T>, query?: CallSpec<T>['query']): Promise<T> {
    return this.caller.call({ operation, method: 'GET', path, query, schema, timeoutClass: 'read', repeat: 'safe' });
  }

  private tenantWrite<T>(
    operation: string,
    method: CallSpec<T>['method'],
    path: string,
    schema: z.ZodType<T>,
    json?: unknown,
    allowEmpty = false,
  ): Promise<T> {
    return this.caller.call({ operation, method, path, json, schema, allowEmpty, timeoutClass: 'write', repeat: 'never' });
  }

  private agentRead<T>(operation: string, path: string, schema: z.ZodType<T>, query?: CallSpec<T>['query']): Promise<T> {
    return this.caller.call({
      operation,
      method: 'GET',
      path,
      query,
      schema,
      headers: this.agentHeaders,
      timeoutClass: 'read',
      repeat: 'safe',
    });
  }

  private agentWrite<T>(
    operation: string,
    method: CallSpec<T>['method'],
    path: string,
    schema: z.ZodType<T>,
    json?: unknown,
    opts: { allowEmpty?: boolean; repeat?: 'safe' | 'never' } = {},
  ): Promise<T> {
    return this.caller.call({
      operation,
      method,
      path,
      json,
      schema,
      headers: this.agentHeaders,
      allowEmpty: opts.allowEmpty,
      timeoutClass: 'write',
      repeat: opts.repeat ?? 'never',
    });
  }

  // ── Webhook management (documented) ──
  /** POST /organizations/{tenant}/webhooks (tenant). */
  createWebhook(req: CreateWebhookRequest): Promise<WebhookSubscription> {
    return this.tenantWrite('createWebhook', 'POST', `${this.org}/webhooks`, webhookSubscriptionSchema, req);
  }

  /** GET /organizations/{tenant}/webhooks (tenant). */
  listWebhooks(): Promise<WebhookList> {
    return this.tenantRead('listWebhooks', `${this.org}/webhooks`, webhookListSchema);
  }

  /** DELETE /organizations/{tenant}/webhooks/{webhookId} (tenant) — empty success. */
  deleteWebhook(webhookId: string): Promise<void> {
    return this.tenantWrite('deleteWebhook', 'DELETE', `${this.org}/webhooks/${enc(webhookId)}`, emptySchema, undefined, true);
  }

  /** POST /organizations/{tenant}/webhooks/{webhookId}/secret (agent) — first call generates, later calls rotate. */
  rotateWebhookSecret(webhookId: string): Promise<SigningSecret> {
    return this.agentWrite('rotateWebhookSecret', 'POST', `${this.org}/webhooks/${enc(webhookId)}/secret`, signingSecretSchema);
  }

  /** DELETE /organizations/{tenant}/webhooks/{webhookId}/secret (agent) — 204; deliveries resume unsigned. */
  deleteWebhookSecret(webhookId: string): Promise<void> {
    return this.agentWrite('deleteWebhookSecret', 'DELETE', `${this.org}/webhooks/${enc(webhookId)}/secret`, emptySchema, undefined, {
      allowEmpty: true,
    });
  }

  /** POST /organizations/{tenant}/agents (tenant) — the apiKey is in this response only. */
  createAgent(req: CreateAgentRequest): Promise<CreatedAgent> {
    return this.tenantWrite('createAgent', 'POST', `${this.org}/agents`, createdAgentSchema, req);
  }

  /** POST /agents (tenant) — the tenant-level alias listed among the "other endpoints". */
  createAgentLegacy(req: CreateAgentRequest): Promise<CreatedAgent> {
    return this.tenantWrite('createAgentLegacy', 'POST', '/agents', createdAgentSchema, req);
  }

  // ── People, compliance, documents (tenant; shapes not shown) ──
  /** POST /people */
  createPerson(req: RemittancesObject): Promise<WithId> {
    return this.tenantWrite('createPerson', 'POST', '/people', withIdSchema, req);
  }

  /** PATCH /people/{id} */
  updatePerson(personId: string, patch: RemittancesObject): Promise<WithId> {
    return this.tenantWrite('updatePerson', 'PATCH', `/people/${enc(personId)}`, withIdSchema, patch);
  }

  /** GET /organizations/{tenant}/people/{personId} */
  getPerson(personId: string): Promise<WithId> {
    return this.tenantRead('getPerson', `${this.org}/people/${enc(personId)}`, withIdSchema);
  }

  /** GET /participants/{id}/complianceLevels */
  getComplianceLevels(participantId: string): Promise<RemittancesObject> {
    return this.tenantRead('getComplianceLevels', `/participants/${enc(participantId)}/complianceLevels`, objectSchema);
  }

  /** POST /people/{id}/documents[/{documentType}] */
  uploadDocument(personId: string, req: RemittancesObject, documentType?: string): Promise<WithId> {
    const path = `/people/${enc(personId)}/documents${documentType ? `/${enc(documentType)}` : ''}`;
    return this.tenantWrite('uploadDocument', 'POST', path, withIdSchema, req);
  }

  /** GET /addresses/check?… (a read: repeated) */
  checkAddress(query: Record<string, string | undefined>): Promise<RemittancesObject> {
    return this.tenantRead('checkAddress', '/addresses/check', objectSchema, query);
  }

  // ── Payout (agent; shapes not shown) ──
  /** POST /payout/quotes — a price offer, repeated like a read. Decimal strings pass through as given. */
  createPayoutQuote(req: RemittancesObject): Promise<RemittancesObject> {
    return this.agentWrite('createPayoutQuote', 'POST', '/payout/quotes', objectSchema, req, { repeat: 'safe' });
  }

  /** POST /payout/participants/{id}/fundingAccounts */
  createFundingAccount(participantId: string, req: RemittancesObject): Promise<WithId> {
    return this.agentWrite('createFundingAccount', 'POST', `/payout/participants/${enc(participantId)}/fundingAccounts`, withIdSchema, req);
  }

  /** POST /payout/participants/{id}/recipientAccounts/gateway */
  createGatewayRecipientAccount(participantId: string, req: RemittancesObject): Promise<WithId> {
    return this.agentWrite(
      'createGatewayRecipientAccount',
      'POST',
      `/payout/participants/${enc(participantId)}/recipientAccounts/gateway`,
      withIdSchema,
      req,
    );
  }

  /** GET /payout/destinations (reference data) */
  listDestinations(): Promise<RemittancesObject> {
    return this.agentRead('listDestinations', '/payout/destinations', objectSchema);
  }

  /** GET /payout/destinations/{country}/banks (reference data) */
  listDestinationBanks(country: string): Promise<RemittancesObject> {
    return this.agentRead('listDestinationBanks', `/payout/destinations/${enc(country)}/banks`, objectSchema);
  }

  /** GET /payout/schemas/{recipient|account|transaction}?country= (reference data) */
  getPayoutSchema(kind: PayoutSchemaKind, country?: string): Promise<RemittancesObject> {
    return this.agentRead('getPayoutSchema', `/payout/schemas/${enc(kind)}`, objectSchema, { country });
  }

  // ── FX transactions (agent, under /organizations/{tenant}) ──
  /** POST …/fx/transactions — sent once (see class comment); read back by externalTransactionId. */
  async createFxTransaction(req: CreateFxTransactionRequest): Promise<FxTransaction> {
    const json = req.amount ? { ...req, amount: { total: jsonDecimal(req.amount.total), currency: req.amount.currency } } : req;
    return this.agentWrite('createFxTransaction', 'POST', `${this.org}/fx/transactions`, transactionSchema, json);
  }

  /** GET …/fx/transactions/{id} — id = transactionId or externalTransactionId. */
  getFxTransaction(id: string): Promise<FxTransaction> {
    return this.agentRead('getFxTransaction', `${this.org}/fx/transactions/${enc(id)}`, transactionSchema);
  }

  /** GET …/fx/transactions?status=&externalTransactionId=&limit=&offset= */
  listFxTransactions(query: ListFxTransactionsQuery = {}): Promise<RemittancesObject> {
    return this.agentRead('listFxTransactions', `${this.org}/fx/transactions`, objectSchema, { ...query });
  }

  /** GET …/fx/transactions/{id}/statusHistory */
  getFxTransactionStatusHistory(id: string): Promise<RemittancesObject> {
    return this.agentRead('getFxTransactionStatusHistory', `${this.org}/fx/transactions/${enc(id)}/statusHistory`, objectSchema);
  }

  /** POST …/fx/transactions/{id}/cancel */
  cancelFxTransaction(id: string): Promise<FxTransaction> {
    return this.agentWrite('cancelFxTransaction', 'POST', `${this.org}/fx/transactions/${enc(id)}/cancel`, transactionSchema, {});
  }

  /** GET …/fx/transactions/{id}/metadata */
  getFxTransactionMetadata(id: string): Promise<RemittancesObject> {
    return this.agentRead('getFxTransactionMetadata', `${this.org}/fx/transactions/${enc(id)}/metadata`, objectSchema);
  }

  /** PUT (replace, repeated) or PATCH (merge, sent once) …/fx/transactions/{id}/metadata */
  setFxTransactionMetadata(id: string, metadata: RemittancesObject, mode: 'replace' | 'merge' = 'replace'): Promise<RemittancesObject> {
    return this.agentWrite(
      'setFxTransactionMetadata',
      mode === 'replace' ? 'PUT' : 'PATCH',
      `${this.org}/fx/transactions/${enc(id)}/metadata`,
      objectSchema,
      metadata,
      { repeat: mode === 'replace' ? 'safe' : 'never' },
    );
  }

  /** GET …/fx/transactions/limits */
  getFxTransactionLimits(): Promise<RemittancesObject> {
    return this.agentRead('getFxTransactionLimits', `${this.org}/fx/transactions/limits`, objectSchema);
  }

  // ── Wallet operations (agent) ──
  /** GET /organizations/{tenant}/wallets */
  listWallets(): Promise<RemittancesObject> {
    return this.agentRead('listWallets', `${this.org}/wallets`, objectSchema);
  }

  /** GET /organizations/{tenant}/wallets/{currency} */
  getWallet(currency: string): Promise<RemittancesObject> {
    return this.agentRead('getWallet', `${this.org}/wallets/${enc(currency)}`, objectSchema);
  }

  /** POST /organizations/{tenant}/wallets/{currency}/deposits { amount: "100.00" } — sent once. */
  depositToWallet(currency: string, req: { amount: string; [field: string]: unknown }): Promise<RemittancesObject> {
    return this.agentWrite('depositToWallet', 'POST', `${this.org}/wallets/${enc(currency)}/deposits`, objectSchema, req);
  }
}

const enc = encodeURIComponent;
