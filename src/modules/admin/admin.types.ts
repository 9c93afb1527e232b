import { Field, ID, InputType, ObjectType } from 'type-graphql';
import { IsEmail, IsOptional, IsString, Length } from 'class-validator';
import { Money } from '../../graphql/money.types';
import { type CountedConnection, connectionType } from '../../graphql/relay';

@ObjectType({ description: 'What one payout provider holds for us at the gateway.' })
export class PayerBalance {
  @Field({ description: 'The provider.' })
  providerId!: string;

  @Field(() => [Money], { description: 'Available balance per currency.' })
  balances!: Money[];
}

@InputType({ description: 'A new agent at the remittances platform.' })
export class CreateAgentInput {
  @Field({ description: "The agent's contact e-mail address." })
  @IsEmail({}, { message: 'email must be an e-mail address, e.g. ops@example.com' })
  @Length(3, 254, { message: 'email must be at most 254 characters' })
  email!: string;

  @Field({ description: "The agent's business name, 1 to 200 characters." })
  @IsString()
  @Length(1, 200, { message: 'businessName must be 1 to 200 characters' })
  businessName!: string;

  @Field(() => String, { nullable: true, description: 'Your own reference for the agent (optional, at most 128 characters).' })
  @IsOptional()
  @IsString()
  @Length(1, 128, { message: 'externalId must be 1 to 128 characters' })
  externalId?: string;
}

@ObjectType({ description: 'An agent at the remittances platform, as we know it (created through this service).' })
class Agent {
  @Field(() => ID, { description: "The platform's agent id (x-agent-id)." })
  id!: string;

  @Field({ description: 'Contact e-mail address.' })
  email!: string;

  @Field({ description: 'Business name.' })
  businessName!: string;

  @Field(() => String, { nullable: true, description: 'Your own reference, if given.' })
  externalId!: string | null;

  @Field({
    description:
      "Its status: PENDING_APPROVAL when created, then as the platform's agent events last reported it (e.g. ACTIVE once its compliance team approves it).",
  })
  status!: string;

  @Field({ description: 'The admin who created it.' })
  createdBy!: string;

  @Field({ description: 'When the platform created it.' })
  createdAt!: Date;

  @Field({ description: 'When we last learned of a change: its creation here or the latest platform event about it.' })
  updatedAt!: Date;
}

@ObjectType({ description: 'A newly created agent and its API key. The key is shown only in this response: store it now.' })
export class CreatedAgent {
  @Field(() => Agent, { description: 'The agent.' })
  agent!: Agent;

  @Field({ description: "The agent's API key (x-agent-api-key). Shown once; neither the platform nor this service can show it again." })
  apiKey!: string;
}

export const AgentConnection = connectionType(Agent, {
  name: 'AgentConnection',
  description: 'Agents created through this service, newest first (Relay connection).',
  edges: 'The agents of this page.',
  pageInfo: 'Where this page sits.',
  totalCount: 'How many agents in all.',
  edge: { name: 'AgentEdge', description: 'An edge of an agent connection.', node: 'The agent.' },
});
export type AgentConnection = CountedConnection<Agent>;

@ObjectType({ description: "A document of a platform person, with its latest verification result (from the platform's document events)." })
class PlatformDocument {
  @Field(() => ID, { description: "The platform's document id." })
  id!: string;

  @Field(() => ID, { description: 'The platform person (participant) it belongs to.' })
  personId!: string;

  @Field({ description: 'The document type, e.g. PASSPORT.' })
  documentType!: string;

  @Field({ description: 'PENDING, VERIFIED, REJECTED or EXPIRED, as last reported.' })
  verificationStatus!: string;

  @Field({ description: 'When the platform reported that status.' })
  occurredAt!: Date;

  @Field({ description: 'When we stored it.' })
  updatedAt!: Date;
}

export const PlatformDocumentConnection = connectionType(PlatformDocument, {
  name: 'PlatformDocumentConnection',
  description: "A person's documents, latest reported change first (Relay connection).",
  edges: 'The documents of this page.',
  pageInfo: 'Where this page sits.',
  totalCount: 'How many documents the person has.',
  edge: { name: 'PlatformDocumentEdge', description: 'An edge of a document connection.', node: 'The document.' },
});
export type PlatformDocumentConnection = CountedConnection<PlatformDocument>;
