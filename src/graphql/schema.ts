import { buildSchema, type NonEmptyArray } from 'type-graphql';
import type { GraphQLSchema } from 'graphql';
import { lexicographicSortSchema, printSchema } from 'graphql';
import { MemoryPubSub, type PubSub } from '../events/pubsub';
import { validateArguments } from './arg-validation';
import { authChecker } from './auth-checker';
import { DateTimeScalar } from './scalars';
import { Money } from './money.types';
import { ErrorExtensions } from './error.types';

/** Resolver instances built by the composition root (plain constructor injection), by class. */
export type ResolverInstances = Map<Function, object>;

/**
 * The executable schema from the modules' resolver classes (the SDL in schema/schema.graphql is printed from the
 * same classes, without instances).
 */
export async function buildGraphQLSchema(opts: {
  classes: readonly Function[];
  resolvers?: ResolverInstances;
  pubSub?: PubSub;
}): Promise<GraphQLSchema> {
  const instances = opts.resolvers;
  const pubSub = opts.pubSub ?? new MemoryPubSub(); // printing the SDL needs none, but TypeGraphQL insists
  return buildSchema({
    resolvers: [...opts.classes] as unknown as NonEmptyArray<Function>,
    authChecker,
    authMode: 'error',
    // ErrorExtensions documents what every error's `extensions` holds (error.types.ts): no field returns it
    orphanedTypes: [Money, ErrorExtensions],
    // class-validator over argument objects (forbidUnknownValues, whitelist; see arg-validation.ts)
    validateFn: validateArguments,
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
      // events are published through the service's own PubSub (awaited where they are made), never TypeGraphQL's
      publish: () => {
        throw new Error('publish through the PubSub of src/events, not through TypeGraphQL');
      },
      subscribe: (routingKey: string, dynamicId?: unknown) =>
        pubSub.subscribe(dynamicId === undefined ? routingKey : `${routingKey}:${String(dynamicId)}`),
    },
  });
}

/** The committed SDL: sorted so that it only changes when the API does. */
export function printSDL(schema: GraphQLSchema): string {
  return `${printSchema(lexicographicSortSchema(schema))}\n`;
}
