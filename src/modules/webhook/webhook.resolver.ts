import { Arg, Args, Authorized, ID, Mutation, Query, Resolver } from 'type-graphql';
import { offsetConnection, PageArgs, pageRequest } from '../../graphql/relay';
import type { Clock } from '../../shared/clock';
import { AppError, notFound } from '../../shared/errors';
import type { WebhookInbox } from './webhook.inbox.repository';
import type { WebhookProcessor } from './webhook.processor';
import type { WebhookSubscriptionService } from './webhook.subscriptions';
import {
  RegisterWebhookSubscriptionInput,
  RegisterWebhookSubscriptionPayload,
  WebhookInboxEvent,
  WebhookInboxEventConnection,
  WebhookSigningSecret,
  WebhookSubscription,
} from './webhook.types';

@Resolver()
export class WebhookResolver {
  constructor(
    private readonly subscriptions: WebhookSubscriptionService,
    private readonly inbox: WebhookInbox,
    private readonly processor: Pick<WebhookProcessor, 'nudge'>,
    private readonly clock: Clock,
  ) {}

  @Authorized('backoffice', 'admin')
  @Query(() => WebhookInboxEventConnection, {
    description:
      'Back-office and admins: inbox events given up after WEBHOOK_MAX_ATTEMPTS failed attempts (outcome dead_letter), most recent first.',
  })
  async deadLetteredWebhookEvents(@Args() args: PageArgs): Promise<WebhookInboxEventConnection> {
    const { offset, limit } = pageRequest(args.first, args.after);
    return offsetConnection({ ...(await this.inbox.deadLetters(offset, limit)), offset });
  }

  @Authorized('backoffice', 'admin')
  @Query(() => WebhookInboxEventConnection, {
    description:
      'Back-office and admins: signed platform events that contradicted what the service knows (another tenant, a transaction bound to another transfer) and had no effect (outcome mismatch, with its reason), most recent first.',
  })
  async rejectedWebhookEvents(@Args() args: PageArgs): Promise<WebhookInboxEventConnection> {
    const { offset, limit } = pageRequest(args.first, args.after);
    return offsetConnection({ ...(await this.inbox.rejected(offset, limit)), offset });
  }

  @Authorized('backoffice', 'admin')
  @Mutation(() => WebhookInboxEvent, {
    description:
      'Back-office and admins: process a dead-lettered inbox event again (attempts reset; it goes first in its stream). NOT_FOUND for an unknown id, INVALID_STATE when the event is not dead-lettered.',
  })
  async requeueWebhookEvent(
    @Arg('id', () => ID, { description: 'The inbox event id (deadLetteredWebhookEvents).' }) id: string,
  ): Promise<WebhookInboxEvent> {
    const result = await this.inbox.requeue(id, this.clock.now());
    if (result === 'not_found') throw notFound('Webhook event');
    if (result === 'not_dead') throw new AppError('INVALID_STATE', 'Only a dead-lettered webhook event can be requeued');
    this.processor.nudge();
    return result;
  }

  @Authorized('admin')
  @Query(() => [WebhookSubscription], { description: "Admin: this tenant's webhook subscriptions at the remittances platform." })
  webhookSubscriptions(): Promise<WebhookSubscription[]> {
    return this.subscriptions.list();
  }

  @Authorized('admin')
  @Query(() => [WebhookSigningSecret], { description: 'Admin: the signing secrets this service holds (fingerprints only).' })
  webhookSigningSecrets(): Promise<WebhookSigningSecret[]> {
    return this.subscriptions.storedSecrets();
  }

  @Authorized('admin')
  @Mutation(() => RegisterWebhookSubscriptionPayload, {
    description:
      "Admin: subscribe this service's /webhooks/remittances (PUBLIC_URL) at the platform. Idempotent by URL and events (created: false when it already existed). INVALID_STATE when PUBLIC_URL is not configured.",
  })
  registerWebhookSubscription(
    @Arg('input', () => RegisterWebhookSubscriptionInput, {
      nullable: true,
      description: 'Optional: events and whether to create a secret.',
    })
    input?: RegisterWebhookSubscriptionInput,
  ): Promise<RegisterWebhookSubscriptionPayload> {
    return this.subscriptions.register({ events: input?.events, createSecret: input?.createSecret ?? true });
  }

  @Authorized('admin')
  @Mutation(() => Boolean, { description: 'Admin: delete a webhook subscription at the platform (and our copy of its secret).' })
  deleteWebhookSubscription(
    @Arg('id', () => ID, { description: "The platform's subscription id (NOT_FOUND when unknown)." }) id: string,
  ): Promise<boolean> {
    return this.subscriptions.delete(id);
  }

  @Authorized('admin')
  @Mutation(() => WebhookSigningSecret, {
    description:
      "Admin: create or rotate the signing secret (default: this service's subscription). Stored encrypted; only the fingerprint is returned.",
  })
  rotateWebhookSecret(
    @Arg('subscriptionId', () => ID, {
      nullable: true,
      description: "The subscription; default: this service's own (NOT_FOUND when there is none: register one first).",
    })
    subscriptionId?: string,
  ): Promise<WebhookSigningSecret> {
    return this.subscriptions.rotateSecret(subscriptionId ?? undefined);
  }

  @Authorized('admin')
  @Mutation(() => Boolean, { description: 'Admin: delete the signing secret (deliveries become unsigned; /readyz shows unsigned mode).' })
  deleteWebhookSecret(
    @Arg('subscriptionId', () => ID, {
      nullable: true,
      description: "The subscription; default: this service's own (NOT_FOUND when there is none).",
    })
    subscriptionId?: string,
  ): Promise<boolean> {
    return this.subscriptions.deleteSecret(subscriptionId ?? undefined);
  }
}
