import { randomUUID } from 'node:crypto';
import type { PubSub } from '../../events/pubsub';
import type { Clock } from '../../shared/clock';
import type { NoticeSeverity } from './notice.types';

export const SYSTEM_NOTICES_TOPIC = 'system-notices';

export interface SystemNoticeMessage {
  id: string;
  message: string;
  severity: NoticeSeverity;
  publishedAt: string;
}

/** Broadcasts operator notices to every instance's subscribers through pub/sub. */
export class NoticeService {
  constructor(
    private readonly pubsub: PubSub,
    private readonly clock: Clock,
  ) {}

  async publish(message: string, severity: NoticeSeverity): Promise<SystemNoticeMessage> {
    const notice = { id: randomUUID(), message, severity, publishedAt: this.clock.now().toISOString() };
    await this.pubsub.publish(SYSTEM_NOTICES_TOPIC, notice);
    return notice;
  }

  subscribe(): AsyncIterableIterator<SystemNoticeMessage> {
    return this.pubsub.subscribe<SystemNoticeMessage>(SYSTEM_NOTICES_TOPIC);
  }
}
