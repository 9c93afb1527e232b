import type { FastifyRequest } from 'fastify';
import type { AuthService } from '../auth/auth.service';
import type { Caller } from '../auth/auth.types';
import { isAppError, type AppError } from '../shared/errors';
import { negotiateLanguage, type Language } from '../shared/messages';
import { setRequestUser } from '../shared/request-context';
import type { GraphQLContext } from './context';

/**
 * The context of each HTTP operation: the caller of its bearer token. Unauthenticated traffic (no token, or a bad
 * one) is counted per client address first (`countAnonymous` throws RATE_LIMITED when over).
 */
export function httpContext(
  auth: AuthService,
  countAnonymous: (ip: string) => Promise<void>,
): (request: FastifyRequest) => Promise<GraphQLContext> {
  return async (request) => {
    const header = request.headers.authorization;
    let caller: Caller | null;
    try {
      caller = auth.cachedFromAuthorizationHeader(header) ?? (await auth.fromAuthorizationHeader(header));
    } catch (e) {
      if (!isAppError(e)) throw e;
      await countAnonymous(request.ip);
      return new HttpContext(null, e, request);
    }
    setRequestUser(caller?.userId);
    if (!caller) await countAnonymous(request.ip);
    return new HttpContext(caller, null, request);
  };
}

const REQUEST = Symbol('request');
const LANGUAGE = Symbol('language');

/**
 * The context of an HTTP operation. The client address is worked out (X-Forwarded-For through TRUST_PROXY) and the
 * language negotiated (Accept-Language) only if something reads them: getters on the prototype, since Apollo runs
 * each operation on a copy of the context's own properties (which would read an own getter).
 */
class HttpContext implements GraphQLContext {
  requestId: string;
  [REQUEST]: { ip: string; headers: { 'accept-language'?: string } };
  [LANGUAGE]: Language | undefined = undefined;

  constructor(
    public caller: Caller | null,
    public authError: AppError | null,
    request: { id: string; ip: string; headers: { 'accept-language'?: string } },
  ) {
    this.requestId = request.id;
    this[REQUEST] = request;
  }

  get clientIp(): string {
    return this[REQUEST].ip;
  }

  get language(): Language {
    return (this[LANGUAGE] ??= negotiateLanguage(this[REQUEST].headers['accept-language']));
  }
}
