import { defineModule } from '../module';
import { RecipientResolver } from './recipient.resolver';
import { RecipientService } from './recipient.service';

/** recipients: a caller's saved recipients (PIX keys checked with the alias directory); createTransfer copies one by id. */
export const recipientsModule = defineModule({
  name: 'recipients',
  resolvers: [RecipientResolver],
  create: ({ prisma, clock, provided }) => {
    const recipients = new RecipientService(prisma, provided.get('aliases'), clock);
    return {
      resolvers: [new RecipientResolver(recipients)],
      provides: { recipients: (ownerId, id) => recipients.snapshot(ownerId, id) },
    };
  },
});
