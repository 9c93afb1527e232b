import { resolve } from 'node:path';
import { z } from 'zod';
import { bool, configDocs, doc, int, nonEmpty, type EnvOf } from './config.fields';

/** The manifest `npm run codegen` writes for the app's operations (schema/app), from src/ or dist/ alike. */
const DEFAULT_TRUSTED_DOCUMENTS_MANIFEST = resolve(__dirname, '..', '..', 'schema', 'app', 'persisted-documents.json');

/** The GraphQL edge: query limits, rate budgets, APQ, trusted documents, compiled execution. */
export const graphqlFields = {
  GRAPHQL_BODY_LIMIT_BYTES: int(1024, 10 * 1024 * 1024)
    .default(256 * 1024)
    .register(configDocs, doc('graphql', 'Larger request bodies → 413.')),
  GRAPHQL_MAX_DEPTH: int(1, 100)
    .default(15)
    .register(
      configDocs,
      doc(
        'graphql',
        'Nesting depth, introspection included (`QUERY_TOO_DEEP`); the query limits are checked before anything executes (docs/api.md).',
      ),
    ),
  GRAPHQL_MAX_ALIASES: int(0, 1000).default(15).register(configDocs, doc('graphql', 'Aliases per document (`TOO_MANY_ALIASES`).')),
  GRAPHQL_MAX_COST: int(1, 10_000_000)
    .default(200_000)
    .register(
      configDocs,
      doc(
        'graphql',
        'Cost per operation (`QUERY_TOO_COMPLEX`): a field 1, a connection 1 + `first` × its selection (cost model: docs/api.md).',
      ),
    ),
  GRAPHQL_MAX_TOKENS: int(10, 1_000_000)
    .default(2000)
    .register(configDocs, doc('graphql', 'Parser tokens per document (`TOO_MANY_TOKENS`).')),
  GRAPHQL_MAX_DIRECTIVES: int(0, 1000).default(50).register(configDocs, doc('graphql', 'Directives per document (`TOO_MANY_DIRECTIVES`).')),
  RATE_LIMIT_MUTATIONS_PER_MINUTE: int(1, 1_000_000)
    .default(60)
    .register(
      configDocs,
      doc('graphql', 'Per caller and mutation field, HTTP and websocket together (Redis-backed when `REDIS_URL` is set).'),
    ),
  RATE_LIMIT_ALIAS_LOOKUPS_PER_MINUTE: int(1, 1_000_000)
    .default(10)
    .register(configDocs, doc('graphql', 'Per caller, `resolveAlias` and `createRecipient` together (the alias directory has a quota).')),
  RATE_LIMIT_UPSTREAM_POINTS_PER_MINUTE: int(1, 1_000_000)
    .default(300)
    .register(
      configDocs,
      doc(
        'graphql',
        'Per caller, over HTTP and websocket together: each upstream-backed field of an operation (every alias and fragment use) costs a point; over the budget the whole operation is refused with `RATE_LIMITED` (HTTP 429, `retryAfterSeconds`) before any upstream call. Redis-backed when `REDIS_URL` is set.',
      ),
    ),
  RATE_LIMIT_ANONYMOUS_PER_MINUTE: int(1, 1_000_000)
    .default(300)
    .register(
      configDocs,
      doc(
        'graphql',
        'Per client IP (the peer, or the forwarded client when the peer is in `TRUST_PROXY`): GraphQL HTTP requests without a valid token and failed websocket `connection_init`s; over → 429 `RATE_LIMITED` / close 4429.',
      ),
    ),
  WS_MAX_SUBSCRIPTIONS_PER_SOCKET: int(1, 100_000)
    .default(100)
    .register(configDocs, doc('graphql', 'Operations open at once on one websocket; more → that operation gets `RATE_LIMITED`.')),
  WS_MAX_SOCKETS_PER_USER: int(1, 100_000)
    .default(20)
    .register(configDocs, doc('graphql', 'Websockets open per user on one instance; more → close 4429.')),
  APQ_TTL_S: int(0, 30 * 86_400)
    .default(86_400)
    .register(
      configDocs,
      doc('graphql', 'Automatic persisted queries: how long a registered query is kept (memory LRU, or Redis when `REDIS_URL` is set).'),
    ),
  // Trusted documents: off | allow (a documentId may replace the text) | only (nothing but the manifest runs)
  TRUSTED_DOCUMENTS: z
    .enum(['off', 'allow', 'only'])
    .default('allow')
    .register(
      configDocs,
      doc(
        'graphql',
        "`off`, `allow` or `only`. `allow` (the default): a request may name a document of the manifest by `documentId` (`sha256:<hex>`, POST body, GET query or graphql-ws payload) instead of sending its text; any text still runs. `only` (set it in production): nothing but the manifest's documents runs — by id, by their text as Apollo Client, urql or any client prints it (the same document once `__typename` fields, layout and fragment order are set aside) or by an APQ hash of such a text; anything else is refused with `PERSISTED_DOCUMENT_NOT_ALLOWED`, an unknown id is `PERSISTED_DOCUMENT_NOT_FOUND`, and a hash alone not yet seen is `PERSISTED_QUERY_NOT_FOUND` (Apollo's link then sends the text) (docs/api.md). `off`: `documentId` is not understood.",
        { summary: "`only` in production: nothing but the app's persisted documents runs" },
      ),
    ),
  TRUSTED_DOCUMENTS_MANIFEST: nonEmpty
    .default(DEFAULT_TRUSTED_DOCUMENTS_MANIFEST)
    .register(
      configDocs,
      doc(
        'graphql',
        'The manifest (`{ "sha256:<hex>": "<document text>" }`, written by `npm run codegen`); read at start when `TRUSTED_DOCUMENTS` is not `off`: missing, or an entry whose id is not the hash of its text → the service does not start.',
        { default: '`schema/app/persisted-documents.json`', example: '' },
      ),
    ),
  // Compiled execution: graphql-jit behind Apollo's gateway hook, graphql-js when off
  GRAPHQL_JIT: bool
    .default(true)
    .register(
      configDocs,
      doc(
        'graphql',
        'Execute HTTP operations with graphql-jit (compiled once per document, LRU); graphql-js runs what it cannot compile. `false`: graphql-js only.',
      ),
    ),
};

export interface GraphQLLimitsConfig {
  /** Query limits (GraphQL Armor) and the request body limit. */
  limits: { bodyLimitBytes: number; maxDepth: number; maxAliases: number; maxCost: number; maxTokens: number; maxDirectives: number };
  /** Per caller and operation, per minute (memory, or Redis when REDIS_URL is set). */
  rateLimits: { mutationsPerMinute: number; aliasLookupsPerMinute: number };
  /** Abuse budgets: upstream-backed fields per caller, unauthenticated traffic per IP, websocket caps per instance. */
  budgets: {
    upstreamPointsPerMinute: number;
    anonymousPerMinute: number;
    wsMaxSubscriptionsPerSocket: number;
    wsMaxSocketsPerUser: number;
  };
  /** Automatic persisted queries: how long a registered query is kept (memory LRU, or Redis when REDIS_URL is set). */
  apq: { ttlS: number };
  /** Trusted (persisted) documents: the mode and the manifest (`sha256:<hex>` → document text) it reads. */
  trustedDocuments: { mode: 'off' | 'allow' | 'only'; manifestPath: string };
  /** Execute operations over HTTP with graphql-jit (compiled once per document; graphql-js for what it cannot compile). */
  graphqlJit: boolean;
}

export function graphqlConfig(e: EnvOf<typeof graphqlFields>): GraphQLLimitsConfig {
  return {
    limits: {
      bodyLimitBytes: e.GRAPHQL_BODY_LIMIT_BYTES,
      maxDepth: e.GRAPHQL_MAX_DEPTH,
      maxAliases: e.GRAPHQL_MAX_ALIASES,
      maxCost: e.GRAPHQL_MAX_COST,
      maxTokens: e.GRAPHQL_MAX_TOKENS,
      maxDirectives: e.GRAPHQL_MAX_DIRECTIVES,
    },
    rateLimits: { mutationsPerMinute: e.RATE_LIMIT_MUTATIONS_PER_MINUTE, aliasLookupsPerMinute: e.RATE_LIMIT_ALIAS_LOOKUPS_PER_MINUTE },
    budgets: {
      upstreamPointsPerMinute: e.RATE_LIMIT_UPSTREAM_POINTS_PER_MINUTE,
      anonymousPerMinute: e.RATE_LIMIT_ANONYMOUS_PER_MINUTE,
      wsMaxSubscriptionsPerSocket: e.WS_MAX_SUBSCRIPTIONS_PER_SOCKET,
      wsMaxSocketsPerUser: e.WS_MAX_SOCKETS_PER_USER,
    },
    apq: { ttlS: e.APQ_TTL_S },
    trustedDocuments: { mode: e.TRUSTED_DOCUMENTS, manifestPath: e.TRUSTED_DOCUMENTS_MANIFEST },
    graphqlJit: e.GRAPHQL_JIT,
  };
}
