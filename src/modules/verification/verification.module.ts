import { defineModule } from '../module';
import { VerificationResolver } from './verification.resolver';
import { badInput, notFound } from '../../shared/errors';
import type { UpstreamErrorRule } from '../../upstream/http/upstream.errors';
import { VerificationService } from './verification.service';

/** How this module's upstream failures read at the API (the rest: the default mapping). */
const VERIFICATION_UPSTREAM_ERRORS: UpstreamErrorRule[] = [
  {
    service: 'gateway',
    operation: 'getPersonSchema',
    kind: 'rejected',
    status: [400],
    to: () => badInput('countryCode must be an ISO 3166-1 alpha-2 country code, e.g. "BR"'),
  },
  {
    service: 'verification',
    operation: ['getSession', 'createVerification'],
    kind: 'not_found',
    to: () => notFound('Verification session'),
  },
  { service: 'verification', operation: 'getVerification', kind: 'not_found', to: () => notFound('Verification') },
  {
    service: 'verification',
    operation: 'createVerification',
    status: [409],
    to: () => badInput('The verification session has expired; start a new one'),
  },
];

/** verification: person requirements per country and identity verification sessions. */
export const verificationModule = defineModule({
  name: 'verification',
  upstreamErrors: VERIFICATION_UPSTREAM_ERRORS,
  resolvers: [VerificationResolver],
  create: ({ prisma, upstream }) => ({
    resolvers: [new VerificationResolver(new VerificationService(prisma, upstream.verification, upstream.gateway))],
  }),
});
