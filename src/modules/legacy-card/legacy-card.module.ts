import { defineModule } from '../module';
import { LegacyCardResolver } from './legacy-card.resolver';
import { badInput } from '../../shared/errors';
import type { UpstreamErrorRule } from '../../upstream/http/upstream.errors';
import { LegacyCardService } from './legacy-card.service';

/** A 400 refusal of the legacy check is the caller's input (the rest: the default mapping). */
const LEGACY_CARD_UPSTREAM_ERRORS: UpstreamErrorRule[] = [
  {
    service: 'gateway',
    operation: 'checkCardLegacy',
    kind: 'rejected',
    status: [400],
    to: () => badInput('The gateway refused the card check: check the card token, names and address'),
  },
];

/** legacy: the gateway's legacy card check (CARD_CHECK_LEGACY_ENABLED); binds the card like checkCard. */
export const legacyCardModule = defineModule({
  name: 'legacy-card',
  upstreamErrors: LEGACY_CARD_UPSTREAM_ERRORS,
  resolvers: [LegacyCardResolver],
  create: ({ upstream, config, provided }) => ({
    resolvers: [
      new LegacyCardResolver(new LegacyCardService(upstream.gateway, config.cardCheckLegacyEnabled, provided.get('credentials'))),
    ],
  }),
});
