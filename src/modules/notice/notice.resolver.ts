import { Arg, Authorized, Ctx, Mutation, Resolver, Root, Subscription } from 'type-graphql';
import type { GraphQLContext } from '../../graphql/context';
import { NoticeService, SYSTEM_NOTICES_TOPIC, type SystemNoticeMessage } from './notice.service';
import { PublishSystemNoticeInput, SystemNotice } from './notice.types';

const toNotice = (m: SystemNoticeMessage): SystemNotice => ({ ...m, publishedAt: new Date(m.publishedAt) });

@Resolver(() => SystemNotice)
export class NoticeResolver {
  constructor(private readonly notices: NoticeService) {}

  @Authorized('admin')
  @Mutation(() => SystemNotice, { description: 'Admin: broadcast a notice to every connected app, on every instance.' })
  async publishSystemNotice(
    @Arg('input', { description: 'The text and severity.' }) input: PublishSystemNoticeInput,
  ): Promise<SystemNotice> {
    return toNotice(await this.notices.publish(input.message, input.severity));
  }

  @Authorized()
  @Subscription(() => SystemNotice, {
    description: 'Operator notices (maintenance, incidents) as they are published. Any authenticated caller.',
    topics: SYSTEM_NOTICES_TOPIC,
  })
  systemNotices(@Root() message: SystemNoticeMessage, @Ctx() _ctx: GraphQLContext): SystemNotice {
    return toNotice(message);
  }
}
