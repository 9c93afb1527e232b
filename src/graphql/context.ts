import type { AppError } from '../shared/errors';
import type { Caller } from '../auth/auth.types';

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
}
