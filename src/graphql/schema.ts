import { buildSchema, type NonEmptyArray } from 'type-graphql';
import type { GraphQLSchema } from 'graphql';
import { lexicographicSortSchema, printSchema } from 'graphql';
import { MemoryPubSub, type PubSub } from '../events/pubsub';
import { authChecker } from './auth-checker';
import { DateTimeScalar } from './scalars';
import { Money } from './money.types';
import { ViewerResolver } from '../modules/viewer/viewer.resolver';
import { NoticeResolver } from '../modules/notices/notice.resolver';
import { WebhookResolver } from '../modules/webhooks/webhook.resolver';
import { FxResolver } from '../modules/fx/fx.resolver';
import { KycResolver } from '../modules/kyc/kyc.resolver';
import { ChecksResolver } from '../modules/checks/checks.resolver';
import { TransferResolver } from '../modules/transfers/transfer.resolver';
import { SURFACE_RESOLVERS } from '../modules/admin/admin.wiring';

/** Every resolver class of the API, in one place (the SDL in schema/schema.graphql is built from these). */
export const RESOLVERS = [ViewerResolver, NoticeResolver, WebhookResolver, FxResolver, KycResolver, ChecksResolver, TransferResolver, ...SURFACE_RESOLVERS] as const satisfies NonEmptyArray<Function>;

export type ResolverClass = (typeof RESOLVERS)[number];

/** Resolver instances built by the composition root (plain constructor injection). */
export type ResolverInstances = Map<Function, object>;

export async function buildGraphQLSchema(opts: { resolvers?: ResolverInstances; pubSub?: PubSub } = {}): Promise<GraphQLSchema> {
  const instances = opts.resolvers;
  const pubSub = opts.pubSub ?? new MemoryPubSub(); // printing the SDL needs none, but TypeGraphQL insists
  return buildSchema({
    resolvers: [...RESOLVERS] as unknown as NonEmptyArray<Function>,
    authChecker,
    authMode: 'error',
    orphanedTypes: [Money],
    validate: { forbidUnknownValues: true, whitelist: true, forbidNonWhitelisted: false, validationError: { target: false, value: false } },
    scalarsMap: [{ type: Date, scalar: DateTimeScalar }],
    container: instances
      ? {
          get: (cls: Function) => {
            const instance = instances.get(cls);
            if (!instance) throw new Error(`No instance registered for resolver ${cls.name}`);
            return instance;
          },
        }
      : undefined,
    pubSub: {
      publish: (routingKey: string, payload: unknown) => void pubSub.publish(routingKey, payload),
      subscribe: (routingKey: string, dynamicId?: unknown) =>
        pubSub.subscribe(dynamicId === undefined ? routingKey : `${routingKey}:${String(dynamicId)}`),
    },
  });
}

/** The committed SDL: sorted so that it only changes when the API does. */
export function printSDL(schema: GraphQLSchema): string {
  return `${printSchema(lexicographicSortSchema(schema))}\n`;
}
