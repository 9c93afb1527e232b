import { defineModule } from '../module';
import { AliasAccountResolver, DirectoryResolver } from './directory.resolver';
import { AppError, badInput } from '../../shared/errors';
import type { UpstreamErrorRule } from '../../upstream/http/upstream.errors';
import { DirectoryService } from './directory.service';

/** How the directory's upstream failures read at the API (the rest: the default mapping). */
const DIRECTORY_UPSTREAM_ERRORS: UpstreamErrorRule[] = [
  // a 400 validation refusal is the caller's input
  {
    service: 'gateway',
    operation: 'listBanks',
    kind: 'rejected',
    status: [400],
    to: () => badInput('countryCode must be an ISO 3166-1 country code known to the bank directory, e.g. "BR"'),
  },
  {
    service: 'gateway',
    operation: 'lookupAlias',
    kind: 'rejected',
    status: [400],
    to: () => badInput('key is not a valid key of its keyType for the country; check its format'),
  },
  // the directory's own quota: when to try again
  {
    service: 'gateway',
    operation: 'lookupAlias',
    kind: 'rate_limited',
    to: (e) => {
      const retryAfterSeconds = Math.max(1, Math.ceil((e.retryAfterMs ?? 60_000) / 1000));
      return new AppError('RATE_LIMITED', `The alias directory quota is used up; try again in ${retryAfterSeconds} s`, {
        retryAfterSeconds,
        scope: 'upstream',
      });
    },
  },
];

/** directory: alias lookup on instant payment rails and the bank directory (batched, cached). */
export const directoryModule = defineModule({
  name: 'directory',
  upstreamErrors: DIRECTORY_UPSTREAM_ERRORS,
  resolvers: [DirectoryResolver, AliasAccountResolver],
  create: ({ upstream, clock, config }) => {
    const directory = new DirectoryService(upstream.gateway, clock, {
      bankTtlMs: config.directory.bankCacheTtlS * 1000,
      bankCacheMax: config.directory.bankCacheMax,
    });
    return {
      resolvers: [new DirectoryResolver(directory), new AliasAccountResolver(directory)],
      provides: { aliases: (countryCode, keyType, key) => directory.resolveAlias(countryCode, keyType, key) },
    };
  },
});
