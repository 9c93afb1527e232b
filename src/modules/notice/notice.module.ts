import { defineModule } from '../module';
import { NoticeResolver } from './notice.resolver';
import { NoticeService } from './notice.service';

/** notices: admin broadcasts to every connected app, on every instance. */
export const noticesModule = defineModule({
  name: 'notices',
  resolvers: [NoticeResolver],
  create: ({ pubsub, clock }) => ({ resolvers: [new NoticeResolver(new NoticeService(pubsub, clock))] }),
});
