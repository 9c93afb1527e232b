import { z } from 'zod';

/**
 * Remittances platform (remittances-and-verification.md).
 *
 * Documented shapes (webhook subscriptions, signing secret, agent) are typed and checked. The "other
 * endpoints" (people, compliance levels, documents, addresses, payout quotes, funding/recipient accounts,
 * reference data, FX transactions, wallets) have shapes "not shown" upstream: they are typed loosely —
 * requests are JSON objects, responses are checked to be JSON objects (`RemittancesObject`) and, where the
 * resource obviously has one, to carry its identifier. Their paths follow the sandbox's decisions
 * (packages/sandbox/src/remittances/*.ts), which are the only concrete reference we have.
 */
export type RemittancesObject = Record<string, unknown>;
export const objectSchema = z.record(z.string(), z.unknown());
export const emptySchema = z.unknown().transform(() => undefined as void);

const optStr = z
  .string()
  .nullish()
  .transform((v) => v ?? null);

// ── Webhook subscriptions ──
export interface CreateWebhookRequest {
  /** HTTPS, ≤ 2048 characters. */
  url: string;
  /** At least one event name (matched case-insensitively by the platform). */
  events: string[];
  isBatch?: boolean;
}
export const webhookSubscriptionSchema = z.object({
  id: z.string().min(1),
  url: z.string(),
  events: z.array(z.string()),
  isBatch: z.boolean().optional(),
  createdAt: z.string(),
  signatureVersion: optStr,
  secretFingerprint: optStr,
  secretRotatedAt: optStr,
});
export type WebhookSubscription = z.infer<typeof webhookSubscriptionSchema>;
export const webhookListSchema = z.object({ webhooks: z.array(webhookSubscriptionSchema) });
export type WebhookList = z.infer<typeof webhookListSchema>;

/** Returned once, on creation or rotation; there is no endpoint that reads it again. */
export const signingSecretSchema = z.object({
  signingSecret: z.string().length(44),
  secretFingerprint: z.string(),
  signatureVersion: z.string(),
  secretRotatedAt: z.string(),
});
export type SigningSecret = z.infer<typeof signingSecretSchema>;

// ── Agents ──
/** "agent data" — not shown; the sandbox requires email and businessName. */
export interface CreateAgentRequest {
  email: string;
  businessName: string;
  externalId?: string | null;
  [field: string]: unknown;
}
const agentSchema = z.object({
  id: z.string().min(1),
  email: z.string(),
  businessName: z.string(),
  externalId: optStr,
  status: z.string(),
  createdAt: z.string(),
});
/** The creation response: the agent plus its apiKey, shown only here. */
export const createdAgentSchema = agentSchema.extend({ apiKey: z.string().min(1) });
export type CreatedAgent = z.infer<typeof createdAgentSchema>;

// ── Loosely typed resources ──
export const withIdSchema = z.object({ id: z.string().min(1) }).catchall(z.unknown());
export type WithId = z.infer<typeof withIdSchema>;
export const transactionSchema = z.object({ transactionId: z.string().min(1) }).catchall(z.unknown());
export type FxTransaction = z.infer<typeof transactionSchema>;

export interface CreateFxTransactionRequest {
  externalTransactionId?: string;
  /** Amounts as exact decimal strings, written to the wire as JSON numbers. */
  amount?: { total: string; currency: string };
  metadata?: Record<string, unknown>;
  [field: string]: unknown;
}
export interface ListFxTransactionsQuery {
  status?: string;
  externalTransactionId?: string;
  limit?: number;
  offset?: number;
}
export type PayoutSchemaKind = 'recipient' | 'account' | 'transaction';
