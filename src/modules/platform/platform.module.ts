import { defineModule } from '../module';
import { PlatformResolver } from './platform.resolver';
import { badInput } from '../../shared/errors';
import type { UpstreamErrorRule } from '../../upstream/http/upstream.errors';
import { PlatformService } from './platform.service';

/** The platform operations this module passes through. */
const PLATFORM_OPERATIONS = [
  'getPerson',
  'createPerson',
  'updatePerson',
  'getComplianceLevels',
  'uploadDocument',
  'checkAddress',
  'createPayoutQuote',
  'createFundingAccount',
  'createGatewayRecipientAccount',
  'getPayoutSchema',
  'listDestinations',
  'listDestinationBanks',
  'createFxTransaction',
  'getFxTransaction',
  'listFxTransactions',
  'getFxTransactionStatusHistory',
  'cancelFxTransaction',
  'getFxTransactionMetadata',
  'setFxTransactionMetadata',
  'getFxTransactionLimits',
  'listWallets',
  'getWallet',
  'depositToWallet',
] as const;

/** A request the platform refuses as invalid (400/422) is the caller's input, with the platform's scrubbed reason. */
const PLATFORM_UPSTREAM_ERRORS: UpstreamErrorRule[] = [
  {
    service: 'remittances',
    operation: PLATFORM_OPERATIONS,
    kind: 'rejected',
    status: [400, 422],
    to: (e) =>
      badInput(`The remittances platform refused the request${e.upstreamMessage ? `: ${e.upstreamMessage}` : ''}`, {
        ...(e.upstreamCode ? { upstreamCode: e.upstreamCode } : {}),
      }),
  },
];

/** platform: back-office access to the remittances platform's other endpoints (people, FX transactions, wallets…). */
export const platformModule = defineModule({
  name: 'platform',
  upstreamErrors: PLATFORM_UPSTREAM_ERRORS,
  resolvers: [PlatformResolver],
  create: ({ upstream, provided }) => ({
    resolvers: [new PlatformResolver(new PlatformService(upstream.remittances, provided.get('admin')))],
  }),
});
