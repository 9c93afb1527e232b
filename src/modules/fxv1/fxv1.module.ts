import { defineModule } from '../module';
import { FxV1Resolver } from './fxv1.resolver';
import { badInput } from '../../shared/errors';
import type { UpstreamErrorRule } from '../../upstream/http/upstream.errors';
import { FxV1Service } from './fxv1.service';

/** A refused FX v1 request names a pair the gateway has no rate for (the rest: the default mapping). */
const FXV1_UPSTREAM_ERRORS: UpstreamErrorRule[] = [
  {
    service: 'gateway',
    operation: 'createFxQuoteV1',
    kind: 'rejected',
    to: () => badInput('The gateway offers no rate for this currency pair; check both currency codes'),
  },
];

/** fxv1: indicative rates (gateway FX v1) before the payment method is known. */
export const fxV1Module = defineModule({
  name: 'fxv1',
  upstreamErrors: FXV1_UPSTREAM_ERRORS,
  resolvers: [FxV1Resolver],
  create: ({ upstream }) => ({ resolvers: [new FxV1Resolver(new FxV1Service(upstream.gateway))] }),
});
