import { defineModule } from '../module';
import { AdminResolver } from './admin.resolver';
import { badInput } from '../../shared/errors';
import type { UpstreamErrorRule } from '../../upstream/http/upstream.errors';
import { AdminService } from './admin.service';

/** How the admin module's upstream failures read at the API (the rest: the default mapping). */
const ADMIN_UPSTREAM_ERRORS: UpstreamErrorRule[] = [
  {
    service: 'remittances',
    operation: ['createAgent', 'createAgentLegacy'],
    kind: 'rejected',
    status: [400, 422],
    to: () => badInput('The platform refused the agent: check the e-mail address and business name'),
  },
];

/** admin: payer balances and agents at the remittances platform (back-office and admins). */
export const adminModule = defineModule({
  name: 'admin',
  upstreamErrors: ADMIN_UPSTREAM_ERRORS,
  resolvers: [AdminResolver],
  create: ({ prisma, upstream }) => {
    const admin = new AdminService(prisma, upstream.gateway, upstream.remittances);
    return { resolvers: [new AdminResolver(admin)], provides: { admin } };
  },
});
