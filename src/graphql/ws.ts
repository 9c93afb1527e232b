import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { randomUUID } from 'node:crypto';
import { WebSocketServer, type WebSocket } from 'ws';
import { useServer } from 'graphql-ws/use/ws';
import { LRUCache } from 'lru-cache';
import {
  execute,
  getOperationAST,
  GraphQLError,
  parse,
  specifiedRules,
  subscribe,
  validate,
  type DocumentNode,
  type ExecutionArgs,
  type GraphQLFormattedError,
  type GraphQLSchema,
  type ValidationRule,
} from 'graphql';
import type { AuthService } from '../auth/auth.service';
import type { Caller } from '../auth/auth.types';
import { systemClock, type Clock } from '../shared/clock';
import { negotiateLanguage, type Language } from '../shared/messages';
import type { Admission } from './admission';
import type { Logger } from '../shared/logger';
import { bindIterator, runInRequest, type RequestContext } from '../shared/request-context';
import type { GraphQLContext } from './context';
import { traceWsOperation } from './tracing';
import type { TrustedDocuments } from './trusted-documents';
import { PreserialisingWebSocket, preserialised, subscribeShared } from './ws-fanout';

type Formatter = (formatted: GraphQLFormattedError, error: unknown, language?: Language) => GraphQLFormattedError;

export interface GraphQLWsServer {
  handleUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void;
  clientCount(): number;
  /** Closes every socket with 1001 (going away) and stops accepting. */
  close(): Promise<void>;
}

/** The websocket's own caps (what an operation may do is the admission's, shared with HTTP). */
interface WsLimits {
  /** Counts a failed connection_init against the client address: the RATE_LIMITED error when over, else null. */
  authFailure?: (ip: string) => Promise<GraphQLError | null>;
  /** Operations open at once on one socket (subscriptions, and queries/mutations while they run). */
  maxOperationsPerSocket?: number;
  /** Sockets open at once per user, on this instance. */
  maxSocketsPerUser?: number;
}

/** Close codes of our own (graphql-ws uses 4400–4499 for protocol refusals; 4403 is its Forbidden). */
const WS_CLOSE = {
  forbidden: 4403,
  tooManyRequests: 4429,
} as const;

type Extra = {
  /** Set by graphql-ws's `ws` adapter. */
  socket: WebSocket;
  request: IncomingMessage;
  caller?: Caller;
  /** When the socket's token expires (epoch ms): the session ends then (close 4403 "Token expired"). */
  expiresAtMs?: number;
  expiryTimer?: NodeJS.Timeout;
  /** The user this socket is counted for in the per-user socket count. */
  countedFor?: string;
  /** Request id of each operation of this socket (errors carry it, like over HTTP). */
  requestIds?: Map<string, string>;
  /** The language of customer messages on this socket (`languageOf`), set by connection_init. */
  language?: Language;
};

/**
 * The language of a socket's customer messages: `acceptLanguage` in the connection_init payload (an Accept-Language
 * value; `accept-language`, as GraphiQL sends its headers, too), else the upgrade request's Accept-Language header
 * (a browser sends its own), else English.
 */
function languageOf(params: Readonly<Record<string, unknown>> | undefined, request: IncomingMessage): Language {
  const param = params?.acceptLanguage ?? params?.['accept-language'] ?? params?.['Accept-Language'];
  return negotiateLanguage(typeof param === 'string' && param !== '' ? param : request.headers['accept-language']);
}

type WsOptions = {
  schema: GraphQLSchema;
  auth: AuthService;
  logger: Logger;
  formatError: Formatter;
  connectionInitWaitTimeoutMs: number;
  maxPayloadBytes?: number;
  /** What may run: the one admission HTTP uses too (admission.ts), so the transports cannot drift apart. */
  admission: Admission;
  limits?: WsLimits;
  clock?: Clock;
  /** The client address of the upgrade request (TRUST_PROXY applied); the TCP peer when absent. */
  clientIp?: (req: IncomingMessage) => string;
  /** TRUSTED_DOCUMENTS (null: off): a subscribe payload may name a `documentId` (with `query: ""`). */
  trusted?: TrustedDocuments | null;
};

/**
 * graphql-ws (`graphql-transport-ws`) on the same path and port as HTTP. A session (WsSessions) is opened by the
 * bearer token of `connection_init` and lives as long as it; every operation is admitted (admitOperation) exactly as
 * an HTTP request is, before anything executes, and gets its own request id (errors, log lines) and span. Customer
 * messages are in the socket's language (`languageOf`). docs/api.md and docs/security.md give the close codes.
 */
export function createGraphQLWsServer(opts: WsOptions): GraphQLWsServer {
  const sessions = new WsSessions(opts, opts.clock ?? systemClock);
  const wss = new WebSocketServer({ noServer: true, maxPayload: opts.maxPayloadBytes ?? 64 * 1024, WebSocket: PreserialisingWebSocket });
  const documents = new DocumentCache(opts.schema, [...specifiedRules, ...opts.admission.validationRules], opts.admission.parseOptions);
  const format = wsErrorFormatter(opts.formatError);
  const requestOf = (args: ExecutionArgs): RequestContext => {
    const c = args.contextValue as GraphQLContext;
    return c.caller ? { requestId: c.requestId, userId: c.caller.userId } : { requestId: c.requestId };
  };

  const cleanup = useServer<Record<string, unknown> | undefined, Extra>(
    {
      schema: opts.schema,
      connectionInitWaitTimeout: opts.connectionInitWaitTimeoutMs,
      onConnect: (ctx) => sessions.open(ctx.extra, ctx.connectionParams),
      onClose: (ctx) => sessions.closed(ctx.extra),
      onSubscribe: (ctx, id, payload) => admitOperation(opts, sessions, documents, ctx, id, payload),
      execute: (args) => {
        const req = requestOf(args);
        return runInRequest(req, () => traceWsOperation(args, () => execute(args)));
      },
      subscribe: (args) => {
        const req = requestOf(args);
        return runInRequest(req, async () => {
          const result = await traceWsOperation(args, () => subscribeShared(args, shareKey(args)));
          return Symbol.asyncIterator in Object(result) ? bindIterator(req, result as AsyncGenerator) : result;
        }) as ReturnType<typeof subscribe>;
      },
      onError: (ctx, id, _payload, errors) => {
        const requestId = ctx.extra.requestIds?.get(id);
        ctx.extra.requestIds?.delete(id); // an error ends the operation (no complete follows)
        return format(errors, ctx.extra.language, requestId) as unknown as GraphQLError[];
      },
      onNext: (ctx, id, _payload, _args, result) => {
        sessions.endIfExpired(ctx.extra); // a late expiry timer: close now; graphql-ws sends nothing on a closing socket
        return result.errors
          ? { ...result, errors: format(result.errors, ctx.extra.language, ctx.extra.requestIds?.get(id)) as unknown as GraphQLError[] }
          : ((preserialised(result) ?? result) as typeof result);
      },
      onComplete: (ctx, id) => void ctx.extra.requestIds?.delete(id),
    },
    wss,
  );

  return {
    handleUpgrade(req, socket, head) {
      wss.handleUpgrade(req, socket, head, (ws) => wss.emit('connection', ws, req));
    },
    clientCount: () => wss.clients.size,
    async close() {
      await cleanup.dispose(); // closes each socket with 1001 "Going away"
      for (const ws of wss.clients) ws.terminate();
    },
  };
}

/**
 * The sessions of one instance's sockets. The token is read once, from `connection_init` (a missing or bad one closes
 * with 4403; failed attempts count against the client address's unauthenticated budget, over it 4429); nothing in a
 * later message is taken as a credential. At the token's `exp` the socket is closed with 4403 "Token expired" — a
 * timer per socket, and a check before each operation and each result, so a late timer lets nothing through. At most
 * `maxSocketsPerUser` sockets per user (4429 "Too many connections").
 */
class WsSessions {
  private readonly socketsPerUser = new Map<string, number>();

  constructor(
    private readonly opts: Pick<WsOptions, 'auth' | 'limits' | 'clientIp'>,
    private readonly clock: Clock,
  ) {}

  async open(extra: Extra, params: Readonly<Record<string, unknown>> | undefined): Promise<boolean> {
    extra.language = languageOf(params, extra.request);
    const header = params?.authorization ?? params?.Authorization;
    const session = await this.opts.auth.sessionFromAuthorizationHeader(typeof header === 'string' ? header : undefined).catch(() => null);
    if (!session || session.expiresAtMs <= this.clock.nowMs()) {
      // the client's address as TRUST_PROXY allows (behind a load balancer, not the balancer's own)
      const refusal = await this.opts.limits?.authFailure?.(
        this.opts.clientIp?.(extra.request) || extra.request.socket.remoteAddress || 'unknown',
      );
      if (refusal) extra.socket.close(WS_CLOSE.tooManyRequests, 'Too many requests');
      return false;
    }
    if (extra.socket.readyState !== extra.socket.OPEN) return false; // gone while verifying: nothing to count
    const { userId } = session.caller;
    const open = this.socketsPerUser.get(userId) ?? 0;
    if (open >= (this.opts.limits?.maxSocketsPerUser ?? Infinity)) {
      extra.socket.close(WS_CLOSE.tooManyRequests, 'Too many connections');
      return false;
    }
    this.socketsPerUser.set(userId, open + 1);
    extra.countedFor = userId;
    extra.caller = session.caller;
    extra.expiresAtMs = session.expiresAtMs;
    this.armExpiry(extra);
    return true;
  }

  closed(extra: Extra): void {
    clearTimeout(extra.expiryTimer);
    if (extra.countedFor === undefined) return;
    const left = (this.socketsPerUser.get(extra.countedFor) ?? 1) - 1;
    if (left > 0) this.socketsPerUser.set(extra.countedFor, left);
    else this.socketsPerUser.delete(extra.countedFor);
    extra.countedFor = undefined;
  }

  /** Closes the socket when its token has expired (true then). */
  endIfExpired(extra: Extra): boolean {
    if (extra.expiresAtMs === undefined || this.clock.nowMs() < extra.expiresAtMs) return false;
    extra.socket.close(WS_CLOSE.forbidden, 'Token expired');
    return true;
  }

  /** Closes the socket at its token's expiry (re-armed while the clock says it is not yet due). */
  private armExpiry(extra: Extra): void {
    const delay = Math.min(Math.max(0, (extra.expiresAtMs ?? Infinity) - this.clock.nowMs()), MAX_TIMER_MS);
    extra.expiryTimer = setTimeout(() => this.endIfExpired(extra) || this.armExpiry(extra), delay);
    extra.expiryTimer.unref();
  }
}

const tokenExpired = () => [new GraphQLError('Token expired', { extensions: { code: 'UNAUTHENTICATED' } })];

/**
 * A subscribe message, checked like an HTTP request before anything executes: the session's token, the socket's
 * open operations (`maxOperationsPerSocket`: RATE_LIMITED beyond), trusted documents, parse and validation (the
 * document cache) and the admission's rules (rate limits, cost) — then the execution arguments.
 */
async function admitOperation(
  opts: Pick<WsOptions, 'schema' | 'limits' | 'trusted' | 'admission' | 'clientIp'>,
  sessions: WsSessions,
  documents: DocumentCache,
  ctx: { extra: Extra; subscriptions: Record<string, unknown> },
  id: string,
  payload: {
    query: string;
    operationName?: string | null;
    variables?: Record<string, unknown> | null;
    extensions?: Record<string, unknown> | null;
  },
): Promise<ExecutionArgs | readonly GraphQLError[]> {
  if (sessions.endIfExpired(ctx.extra)) return tokenExpired();
  if (Object.keys(ctx.subscriptions).length > (opts.limits?.maxOperationsPerSocket ?? Infinity))
    return [new GraphQLError('Too many operations open on this connection', { extensions: { code: 'RATE_LIMITED' } })];
  const requestId = randomUUID();
  (ctx.extra.requestIds ??= new Map()).set(id, requestId);
  const text = opts.trusted ? opts.trusted.textOf(payload) : payload.query;
  if (typeof text !== 'string') return [text];
  const parsed = documents.get(text);
  if (!('document' in parsed)) return parsed.errors;
  const { document } = parsed;
  const caller = ctx.extra.caller ?? null;
  const refusal = await opts.admission.refuse({
    document,
    operation: getOperationAST(document, payload.operationName),
    variables: payload.variables,
    caller,
    transport: 'ws',
  });
  if (refusal) return [refusal];
  // the budget check may have waited (Redis) past the token's exp: nothing runs after it
  if (sessions.endIfExpired(ctx.extra)) return tokenExpired();
  const clientIp = opts.clientIp?.(ctx.extra.request) ?? ctx.extra.request.socket.remoteAddress ?? '';
  const language = ctx.extra.language ?? languageOf(undefined, ctx.extra.request);
  const contextValue: GraphQLContext = { caller, authError: null, requestId, clientIp, language };
  return { schema: opts.schema, document, variableValues: payload.variables, operationName: payload.operationName, contextValue };
}

/** Errors as over HTTP, with the operation's request id (and a rate limit's retryAfterSeconds) in their extensions. */
function wsErrorFormatter(formatError: Formatter) {
  return (errors: readonly GraphQLError[], language: Language | undefined, requestId?: string) =>
    errors.map((e) => {
      const f = formatError(e.toJSON(), e, language);
      const retryAfterSeconds = f.extensions?.code === 'RATE_LIMITED' ? e.extensions?.retryAfterSeconds : undefined;
      return {
        ...f,
        extensions: {
          ...f.extensions,
          ...(retryAfterSeconds !== undefined ? { retryAfterSeconds } : {}),
          ...(requestId ? { requestId } : {}),
        },
      };
    });
}

/** setTimeout's largest delay (a longer one fires at once): longer expiries are re-armed in steps. */
const MAX_TIMER_MS = 2 ** 31 - 1;

/**
 * Share key of a subscription's event executions (ws-fanout.ts): one validated document (the same text is the
 * same object, DocumentCache), operation, variables, principal and language. The principal is the caller's user id
 * and role: results are never shared between principals, whose field-level authorisation or data may differ; nor
 * between languages (a failure's message is in the socket's). The request id (the only other part of the context)
 * reaches only errors, and results with errors are formatted per socket. null (never shared): a document not from
 * the cache.
 */
function shareKey(args: ExecutionArgs): string | null {
  const doc = documentIds.get(args.document);
  if (doc === undefined) return null;
  const { caller, language } = args.contextValue as GraphQLContext;
  return JSON.stringify([
    doc,
    args.operationName ?? null,
    args.variableValues ?? null,
    caller?.userId ?? null,
    caller?.role ?? null,
    language,
  ]);
}

const documentIds = new WeakMap<DocumentNode, number>();
let documentSeq = 0;

/**
 * Parsed and validated documents by query text (bounded, least recently used out first): parse and
 * validation are pure functions of the text, the schema and the rules, so subscribers sending the same text
 * share one document (less work and memory per socket, and a share key for their executions). Refusals are
 * not kept.
 */
class DocumentCache {
  private readonly docs: LRUCache<string, DocumentNode>;
  constructor(
    private readonly schema: GraphQLSchema,
    private readonly rules: readonly ValidationRule[],
    private readonly parseOptions: { maxTokens: number } | undefined,
    max = 500,
  ) {
    this.docs = new LRUCache({ max });
  }

  get(query: string): { document: DocumentNode } | { errors: GraphQLError[] } {
    const hit = this.docs.get(query);
    if (hit) return { document: hit };
    let document: DocumentNode;
    try {
      document = parse(query, this.parseOptions);
    } catch (e) {
      const err = e instanceof GraphQLError ? e : new GraphQLError('Syntax Error');
      return {
        errors: [
          new GraphQLError(err.message, {
            nodes: err.nodes,
            source: err.source,
            positions: err.positions,
            originalError: err,
            extensions: { code: 'GRAPHQL_PARSE_FAILED' },
          }),
        ],
      };
    }
    const errors = validate(this.schema, document, this.rules);
    if (errors.length > 0)
      return {
        errors: errors.map(
          (e) =>
            new GraphQLError(e.message, {
              nodes: e.nodes,
              source: e.source,
              positions: e.positions,
              originalError: e,
              extensions: { ...e.extensions, code: 'GRAPHQL_VALIDATION_FAILED' },
            }),
        ),
      };
    documentIds.set(document, ++documentSeq);
    this.docs.set(query, document);
    return { document };
  }
}
