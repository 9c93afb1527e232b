import { defineModule } from '../module';
import { KycResolver } from './kyc.resolver';
import { KycService } from './kyc.service';

/** kyc: persons validated and created at the gateway; an APPROVED person is the sender of checks and transfers. */
export const kycModule = defineModule({
  name: 'kyc',
  resolvers: [KycResolver],
  create: ({ prisma, db, upstream, clock }) => {
    const kyc = new KycService(prisma, db.sql, upstream.gateway, clock);
    return { resolvers: [new KycResolver(kyc)], provides: { senders: (ownerId, personId) => kyc.senderFor(ownerId, personId) } };
  },
});
