import { JSONObjectScalar } from '../../graphql/json.scalar';
import { ArrayMaxSize, ArrayMinSize, IsBoolean, IsOptional, IsString, Length } from 'class-validator';
import { Field, ID, InputType, Int, ObjectType } from 'type-graphql';
import { type CountedConnection, connectionType } from '../../graphql/relay';

@ObjectType({ description: 'A webhook subscription of this tenant at the remittances platform (admin).' })
export class WebhookSubscription {
  @Field(() => ID, { description: "The platform's subscription id." })
  id!: string;

  @Field({ description: 'The https URL the platform delivers events to.' })
  url!: string;

  @Field(() => [String], { description: 'Event names as registered (matched case-insensitively by the platform).' })
  events!: string[];

  @Field(() => Date, { nullable: true, description: 'When the platform created it, if it says.' })
  createdAt!: Date | null;

  @Field(() => String, { nullable: true, description: 'v1 when the platform signs deliveries; null when unsigned.' })
  signatureVersion!: string | null;

  @Field(() => String, { nullable: true, description: 'First 8 hex characters of sha256 of the signing secret.' })
  secretFingerprint!: string | null;

  @Field(() => Date, { nullable: true, description: 'When the signing secret was last created or rotated, if known.' })
  secretRotatedAt!: Date | null;

  @Field({ description: "The URL is this service's webhook endpoint (PUBLIC_URL + /webhooks/remittances)." })
  isOwn!: boolean;

  @Field({ description: 'This service holds (encrypted) the secret the platform currently signs with.' })
  secretStored!: boolean;
}

@ObjectType({ description: 'A signing secret held by this service. The secret itself is never shown again.' })
export class WebhookSigningSecret {
  @Field(() => ID, { description: 'The webhook subscription the secret signs for.' })
  subscriptionId!: string;

  @Field({ description: 'First 8 hex characters of sha256 of the secret.' })
  fingerprint!: string;

  @Field({ description: 'When this secret was created or rotated.' })
  rotatedAt!: Date;
}

@ObjectType({ description: 'The result of registerWebhookSubscription.' })
export class RegisterWebhookSubscriptionPayload {
  @Field(() => WebhookSubscription, { description: "This service's subscription (new or the one that already existed)." })
  subscription!: WebhookSubscription;

  @Field({ description: 'false when a subscription with this URL and these events already existed.' })
  created!: boolean;

  @Field(() => WebhookSigningSecret, { nullable: true, description: 'Set when a signing secret was created by this call.' })
  secret!: WebhookSigningSecret | null;
}

@InputType({ description: "What to subscribe this service's webhook endpoint to." })
export class RegisterWebhookSubscriptionInput {
  @Field(() => [String], {
    nullable: true,
    description:
      'Event names (1 to 20, each known to the service; unknown names are BAD_USER_INPUT); default: every event the service processes.',
  })
  @IsOptional()
  @ArrayMinSize(1, { message: 'events must list 1 to 20 event names (or be omitted for all)' })
  @ArrayMaxSize(20, { message: 'events must list 1 to 20 event names (or be omitted for all)' })
  @IsString({ each: true, message: 'each event name must be a string' })
  @Length(1, 100, { each: true, message: 'each event name must be 1 to 100 characters' })
  events?: string[];

  @Field({ nullable: true, defaultValue: true, description: 'Create a signing secret right away (default true).' })
  @IsOptional()
  @IsBoolean()
  createSecret?: boolean;
}

@ObjectType({ description: 'An event of the webhook inbox, as the back-office sees it (never its payload).' })
export class WebhookInboxEvent {
  @Field(() => ID, { description: 'The inbox row id (requeueWebhookEvent takes it).' })
  id!: string;

  @Field({ description: 'The event name as received, e.g. TransactionStatusChanged.' })
  eventName!: string;

  @Field({ description: 'Normalised kind: transaction | document | agent | unknown.' })
  kind!: string;

  @Field({ description: 'Its ordering stream, e.g. "tx:<platform transaction id>", "doc:<id>", "agent:<id>".' })
  streamKey!: string;

  @Field({ description: 'When the delivery was accepted.' })
  receivedAt!: Date;

  @Field(() => Date, {
    nullable: true,
    description: 'When an outcome was recorded (for a dead letter: when it was given up); null while pending.',
  })
  processedAt!: Date | null;

  @Field(() => String, {
    nullable: true,
    description:
      'applied | stale | no_change | terminal | unknown_value | unknown_transfer | ignored | invalid | mismatch | dead_letter; null while pending.',
  })
  outcome!: string | null;

  @Field(() => String, {
    nullable: true,
    description:
      'For outcome mismatch, what the event contradicted: tenant (not our tenant, or none), transaction_id (the transfer recorded another platform transaction), transaction_conflict (its ids name different transfers). Null otherwise.',
  })
  reason!: string | null;

  @Field(() => Int, { description: 'Processing attempts so far (reset by a requeue).' })
  attempts!: number;

  @Field(() => String, { nullable: true, description: 'The last processing error, if any.' })
  lastError!: string | null;

  @Field(() => ID, {
    nullable: true,
    description: 'The transfer it concerned (by its platform transaction id or the external id it names); null when none is known.',
  })
  transferId!: string | null;

  @Field(() => JSONObjectScalar, {
    description:
      'The payload as received, redacted: ids, statuses, event names, times and amounts kept; any other text (names, e-mails, documents, messages) "[redacted]".',
  })
  payload!: Record<string, unknown>;
}

export const WebhookInboxEventConnection = connectionType(WebhookInboxEvent, {
  name: 'WebhookInboxEventConnection',
  description: 'Webhook inbox events (Relay connection).',
  edges: 'The events of this page.',
  pageInfo: 'Where this page sits.',
  totalCount: 'How many events in all.',
  edge: { name: 'WebhookInboxEventEdge', description: 'An edge of a webhook inbox event connection.', node: 'The event.' },
});
export type WebhookInboxEventConnection = CountedConnection<WebhookInboxEvent>;
