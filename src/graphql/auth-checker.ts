import type { AuthCheckerFn } from 'type-graphql';
import { forbidden, unauthenticated } from '../shared/errors';
import type { Caller, Role } from '../auth/auth.types';
import type { GraphQLContext } from './context';

/**
 * The access rule. No or bad token → UNAUTHENTICATED; authenticated with the wrong role → FORBIDDEN.
 * An empty role list means any authenticated caller.
 */
export function requireCaller(context: GraphQLContext, roles: readonly Role[] = []): Caller {
  if (!context.caller) throw context.authError ?? unauthenticated();
  if (roles.length > 0 && !roles.includes(context.caller.role)) throw forbidden();
  return context.caller;
}

/** `@Authorized()` = any authenticated caller; `@Authorized('backoffice', 'admin')` = those roles only. */
export const authChecker: AuthCheckerFn<GraphQLContext, Role> = ({ context }, roles) => {
  requireCaller(context, roles);
  return true;
};
