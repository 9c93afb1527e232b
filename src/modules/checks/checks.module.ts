import { defineModule } from '../module';
import { FundingCredentials } from './checks.credentials.repository';
import { ChecksResolver } from './checks.resolver';
import { ChecksService } from './checks.service';

/** checks: card and bank-account checks (no charge); what a check vouched for is bound to the caller. */
export const checksModule = defineModule({
  name: 'checks',
  resolvers: [ChecksResolver],
  create: ({ db, upstream, clock, config, provided }) => {
    const credentials = new FundingCredentials(db.sql, clock, {
      cardCheckMaxAgeMs: config.cardCheckMaxAgeMs,
      cardCheckReuseMs: config.cardCheckReuseMs,
    });
    const checks = new ChecksService(upstream.gateway, credentials, provided.get('senders'), config.threeDSReturnUrls);
    return { resolvers: [new ChecksResolver(checks)], provides: { credentials } };
  },
});
