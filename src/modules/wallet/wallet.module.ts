import { defineModule } from '../module';
import { WalletResolver } from './wallet.resolver';
import { badInput, notFound } from '../../shared/errors';
import type { UpstreamErrorRule } from '../../upstream/http/upstream.errors';
import { WalletService } from './wallet.service';

/** How this module's upstream failures read at the API (the rest: the default mapping). */
const WALLET_UPSTREAM_ERRORS: UpstreamErrorRule[] = [
  {
    service: 'gateway',
    operation: 'createWallet',
    kind: 'rejected',
    status: [400],
    to: () => badInput('The gateway refused the wallet: check currency and type'),
  },
  {
    service: 'gateway',
    operation: ['getWallet', 'getWalletBalance', 'getWalletStatement'],
    kind: 'not_found',
    to: () => notFound('Wallet'),
  },
  {
    service: 'gateway',
    operation: 'getWalletStatement',
    kind: 'rejected',
    status: [400],
    to: () => badInput('The gateway refused the statement query: check from and until'),
  },
];

/** wallets: customers' gateway wallets, balances and statements. */
export const walletsModule = defineModule({
  name: 'wallets',
  upstreamErrors: WALLET_UPSTREAM_ERRORS,
  resolvers: [WalletResolver],
  create: ({ prisma, upstream }) => ({ resolvers: [new WalletResolver(new WalletService(prisma, upstream.gateway))] }),
});
