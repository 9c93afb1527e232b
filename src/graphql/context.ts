import type { AppError } from '../shared/errors';
import type { Caller } from '../auth/auth.types';
import type { Language } from '../shared/messages';

/** What every resolver receives. Built per HTTP request or per websocket operation. */
export interface GraphQLContext {
  /** The verified caller, or null for an anonymous request. */
  caller: Caller | null;
  /** Set when a token was sent but did not verify: protected operations answer with it. */
  authError: AppError | null;
  requestId: string;
  /**
   * The client's address as the server sees it (Fastify request.ip; X-Forwarded-For counts only from the proxies
   * TRUST_PROXY trusts). Sent upstream wherever an API wants the customer's IP: never asked of the client.
   */
  clientIp: string;
  /**
   * The language of customer messages (a transfer's failure.message; errors are formatted in it too): over HTTP the
   * request's Accept-Language, over graphql-ws the connection's (connection_init `acceptLanguage`, else the upgrade
   * request's Accept-Language). English by default.
   */
  language: Language;
}
