/**
 * The one module contract. Every domain module is a `defineModule({...})` value: the resolver classes it adds to
 * the schema (static, so the SDL is printed from the same list without building anything), and `create(deps)`,
 * which builds the module from the shared infrastructure and returns what it contributes — resolver instances,
 * HTTP routes, readiness checks, start/close hooks, and the services it offers to the modules after it.
 *
 * The composition root (src/app.ts) builds the infrastructure, then creates the modules of MODULES
 * (src/modules/modules.ts) in order; a module finds what an earlier one offered with `deps.provided.get(name)`.
 */
import type { FastifyInstance } from 'fastify';
import type { GraphQLSchema } from 'graphql';
import type { Config } from '../config';
import type { Database } from '../db/database';
import type { PubSub } from '../events/pubsub';
import type { PrismaClient } from '../generated/prisma/client';
import type { ReadinessCheck } from '../http/health.routes';
import type { Clock } from '../shared/clock';
import type { UpstreamErrorRule } from '../upstream/http/upstream.errors';
import type { Logger } from '../shared/logger';
import type { Metrics } from '../shared/metrics';
import type { UpstreamClients } from '../upstream/upstream.clients';
import type { AdminService } from './admin/admin.ports';
import type { FundingCredentials } from './checks/checks.ports';
import type { AliasLookup } from './directory/directory.ports';
import type { SenderLookup } from './kyc/kyc.ports';
import type { SavedRecipientLookup } from './recipient/recipient.ports';
import type { TransfersModule } from './transfer/transfer.module';
import type { WebhooksDeps, WebhooksModule } from './webhook/webhook.module';

/** What modules offer each other (and the App exposes): each name is provided by exactly one module. */
export interface Provided {
  /** kyc: the caller's APPROVED person as a sender. */
  senders: SenderLookup;
  /** checks: which customer may fund with which card or account token. */
  credentials: FundingCredentials;
  /** directory: the alias directory's look-up (masked), e.g. a PIX key checked before it is saved. */
  aliases: AliasLookup;
  /** recipients: a caller's saved recipient as createTransfer(recipientId) copies it. */
  recipients: SavedRecipientLookup;
  /** admin: agents (the platform module's legacy alias creates them too). */
  admin: AdminService;
  /** transfers: the saga's service, worker, repository and subscriptions. */
  transfers: TransfersModule;
  /** webhooks: receiver, processor, secrets, subscriptions. */
  webhooks: WebhooksModule;
}

export class Provisions {
  private readonly values = new Map<keyof Provided, unknown>();

  provide(values: Partial<Provided>): void {
    for (const [name, value] of Object.entries(values) as [keyof Provided, unknown][]) {
      if (this.values.has(name)) throw new Error(`${name} is provided twice`);
      this.values.set(name, value);
    }
  }

  get<K extends keyof Provided>(name: K): Provided[K] {
    if (!this.values.has(name)) throw new Error(`${name} is not provided by a module created earlier (see MODULES)`);
    return this.values.get(name) as Provided[K];
  }
}

/** The shared infrastructure every module is built from. */
export interface ModuleDeps {
  config: Config;
  clock: Clock;
  logger: Logger;
  metrics: Metrics;
  db: Database;
  prisma: PrismaClient;
  pubsub: PubSub;
  upstream: UpstreamClients;
  provided: Provisions;
  /** Test seams the composition root passes through (e.g. the webhook processor's tuning). */
  options: { webhookProcessor?: WebhooksDeps['processor'] };
}

/** What a created module contributes. */
export interface ModuleParts {
  /** One instance per resolver class of the definition, in the same order. */
  resolvers?: object[];
  /** Registers HTTP routes besides /graphql (e.g. the webhook endpoint). */
  routes?: (fastify: FastifyInstance) => Promise<void>;
  readiness?: ReadinessCheck[];
  /** After the schema is built (e.g. subscriptions resolved outside TypeGraphQL). */
  onSchema?: (schema: GraphQLSchema) => void;
  /** After the server listens and the database is migrated; `url` is where the service answers. */
  start?: (url: string) => Promise<void> | void;
  /** At shutdown, in reverse module order, before the infrastructure closes. */
  close?: () => Promise<void>;
  /** Services for the modules created after this one. */
  provides?: Partial<Provided>;
}

export interface ModuleDefinition {
  name: string;
  resolvers: readonly Function[];
  /** How this module's upstream failures read at the API where the default mapping is not right (GraphQL edge). */
  upstreamErrors?: readonly UpstreamErrorRule[];
  create(deps: ModuleDeps): ModuleParts;
}

export const defineModule = (definition: ModuleDefinition): ModuleDefinition => definition;
