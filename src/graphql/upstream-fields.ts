import {
  getNamedType,
  isObjectType,
  isInterfaceType,
  Kind,
  type DocumentNode,
  type FragmentDefinitionNode,
  type GraphQLNamedType,
  type GraphQLSchema,
  type OperationDefinitionNode,
  type SelectionSetNode,
} from 'graphql';

/**
 * Every field whose resolver may call an upstream API (gateway, remittances platform, verification), by type.
 * The per-caller upstream budget charges one point per occurrence of these fields in an operation.
 * Caches do not exempt a field (a miss calls upstream). Keep this list complete: a field with a resolver of its
 * own (every root field, every @FieldResolver) must be listed here or in LOCAL_FIELDS (a test enforces it).
 */
export const UPSTREAM_FIELDS: Readonly<Record<string, readonly string[]>> = {
  Query: [
    // fxv1, directory, verification, wallets
    'fxQuoteV1',
    'resolveAlias',
    'bank',
    'banks',
    'personRequirements',
    'verificationSession',
    'verification',
    'wallet',
    'walletBalance',
    'walletStatement',
    // admin, webhooks
    'payerBalances',
    'webhookSubscriptions',
    // platform
    'platformPerson',
    'platformComplianceLevels',
    'platformAddressCheck',
    'platformPayoutDestinations',
    'platformPayoutBanks',
    'platformPayoutSchema',
    'platformFxTransaction',
    'platformFxTransactions',
    'platformFxTransactionStatusHistory',
    'platformFxTransactionMetadata',
    'platformFxTransactionLimits',
    'platformWallets',
    'platformWallet',
  ],
  Mutation: [
    // fx, kyc, checks, legacy, transfers
    'createQuote',
    'validatePerson',
    'createPerson',
    'checkCard',
    'checkBankAccount',
    'checkCardLegacy',
    'createTransfer',
    'resumeTransfer',
    // recipients: a PIX key is looked up in the alias directory
    'createRecipient',
    'captureTransfer',
    'voidTransfer',
    'cancelTransfer',
    'refundTransfer',
    // wallets, verification
    'createWallet',
    'startVerificationSession',
    'createVerification',
    // admin/agents, webhooks
    'createAgent',
    'createAgentLegacy',
    'registerWebhookSubscription',
    'deleteWebhookSubscription',
    'rotateWebhookSecret',
    'deleteWebhookSecret',
    // platform
    'createPlatformPerson',
    'updatePlatformPerson',
    'uploadPlatformDocument',
    'createPlatformPayoutQuote',
    'createPlatformFundingAccount',
    'createPlatformRecipientAccount',
    'createPlatformFxTransaction',
    'cancelPlatformFxTransaction',
    'setPlatformFxTransactionMetadata',
    'depositToPlatformWallet',
  ],
  Subscription: [],
  // the receiving bank of a resolved alias: the bank directory (batched, cached)
  AliasAccount: ['bank'],
};

/** Fields with a resolver of their own that never call upstream (database, configuration, pub/sub or the token only). */
export const LOCAL_FIELDS: Readonly<Record<string, readonly string[]>> = {
  Query: [
    'viewer',
    'transfer',
    'transfers',
    'agents',
    'documents',
    'corridors',
    'corridor',
    'deadLetteredWebhookEvents',
    'rejectedWebhookEvents',
    'webhookSigningSecrets',
    'refundsNeedingAttention',
    'persons',
    'recipients',
  ],
  Mutation: ['publishSystemNotice', 'requeueWebhookEvent', 'deleteRecipient'],
  Subscription: ['systemNotices', 'transferUpdated', 'myTransfers'],
  Transfer: ['events', 'refusals', 'refunds', 'cancellableUntil', 'sender', 'recipient', 'receipt'],
  Corridor: ['price'],
  Failure: ['message', 'detail'],
};

const upstream = new Map(Object.entries(UPSTREAM_FIELDS).map(([type, fields]) => [type, new Set(fields)]));

/**
 * Upstream points of one operation: each occurrence of an upstream-backed field in the selection (aliases
 * count separately; a fragment counts at every spread; nested fields count once per occurrence in the
 * document, not per list item). Judged on the validated document, before anything executes.
 *
 * Linear in the document: a fragment's points are worked out once and added at each spread (a chain of fragments
 * each spreading the next twice would otherwise be walked 2^n times).
 */
export function upstreamCost(schema: GraphQLSchema, document: DocumentNode, operation: OperationDefinitionNode): number {
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const d of document.definitions) if (d.kind === Kind.FRAGMENT_DEFINITION) fragments.set(d.name.value, d);
  const typeNamed = (name: string | undefined, fallback: GraphQLNamedType) => (name ? (schema.getType(name) ?? fallback) : fallback);
  const fragmentPoints = new Map<string, number>();
  /** Fragments being priced: a cycle (refused by validation anyway) counts nothing. */
  const pricing = new Set<string>();

  const fragmentCost = (name: string, type: GraphQLNamedType): number => {
    const known = fragmentPoints.get(name);
    if (known !== undefined) return known;
    const f = fragments.get(name);
    if (!f || pricing.has(name)) return 0;
    pricing.add(name);
    const points = walk(f.selectionSet, typeNamed(f.typeCondition.name.value, type));
    pricing.delete(name);
    fragmentPoints.set(name, points);
    return points;
  };
  const walk = (set: SelectionSetNode, type: GraphQLNamedType): number => {
    let cost = 0;
    for (const s of set.selections) {
      if (s.kind === Kind.FIELD) {
        if (!isObjectType(type) && !isInterfaceType(type)) continue;
        const field = type.getFields()[s.name.value];
        if (!field) continue;
        if (upstream.get(type.name)?.has(s.name.value)) cost++;
        if (s.selectionSet) cost += walk(s.selectionSet, getNamedType(field.type));
      } else if (s.kind === Kind.INLINE_FRAGMENT) {
        cost += walk(s.selectionSet, typeNamed(s.typeCondition?.name.value, type));
      } else {
        cost += fragmentCost(s.name.value, type);
      }
    }
    return cost;
  };
  const root =
    operation.operation === 'query'
      ? schema.getQueryType()
      : operation.operation === 'mutation'
        ? schema.getMutationType()
        : schema.getSubscriptionType();
  return root ? walk(operation.selectionSet, root) : 0;
}
