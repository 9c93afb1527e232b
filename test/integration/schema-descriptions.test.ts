import {
  isEnumType,
  isInputObjectType,
  isInterfaceType,
  isObjectType,
  isScalarType,
  isUnionType,
  type GraphQLArgument,
  type GraphQLSchema,
} from 'graphql';
import { buildApiSchema } from '../../src/modules/modules';

/**
 * Every part of the public schema carries a description ("schema/schema.graphql reads well"):
 * object, input, interface and union types, enums and each of their values, scalars, fields, input fields
 * and arguments. Introspection types (`__Type` …) are GraphQL's own; the root operation types themselves
 * (Query, Mutation, Subscription) cannot be described through TypeGraphQL — their fields and arguments can
 * and must be.
 */
const blank = (d: string | null | undefined): boolean => !d || d.trim() === '';

export function undescribed(schema: GraphQLSchema): string[] {
  const roots = new Set([schema.getQueryType(), schema.getMutationType(), schema.getSubscriptionType()].filter(Boolean));
  const missing: string[] = [];
  const args = (owner: string, list: readonly GraphQLArgument[]) => {
    for (const a of list) if (blank(a.description)) missing.push(`argument ${owner}(${a.name})`);
  };
  for (const type of Object.values(schema.getTypeMap())) {
    if (type.name.startsWith('__')) continue;
    const root = roots.has(type as never);
    if (!root && blank(type.description)) {
      const kind = isObjectType(type)
        ? 'object type'
        : isInputObjectType(type)
          ? 'input type'
          : isEnumType(type)
            ? 'enum'
            : isInterfaceType(type)
              ? 'interface'
              : isUnionType(type)
                ? 'union'
                : isScalarType(type)
                  ? 'scalar'
                  : 'type';
      missing.push(`${kind} ${type.name}`);
    }
    if (isObjectType(type) || isInterfaceType(type)) {
      for (const f of Object.values(type.getFields())) {
        if (blank(f.description)) missing.push(`field ${type.name}.${f.name}`);
        args(`${type.name}.${f.name}`, f.args);
      }
    } else if (isInputObjectType(type)) {
      for (const f of Object.values(type.getFields())) if (blank(f.description)) missing.push(`input field ${type.name}.${f.name}`);
    } else if (isEnumType(type)) {
      for (const v of type.getValues()) if (blank(v.description)) missing.push(`enum value ${type.name}.${v.name}`);
    }
  }
  return missing.sort();
}

describe('schema descriptions', () => {
  it('describes every type, field, argument, input field and enum value', async () => {
    const missing = undescribed(await buildApiSchema());
    if (process.env.PRINT_UNDESCRIBED === '1') process.stdout.write(`${missing.length}\n${missing.join('\n')}\n`);
    expect(missing).toEqual([]);
  });
});
