import { GraphQLScalarType, Kind, type ObjectValueNode, type ValueNode } from 'graphql';

/**
 * A JSON object, for the remittances platform resources whose shapes the upstream documents do not show
 * (people, documents, payout data, FX transactions, platform wallets): passed through as the platform
 * sends or expects them. Only objects (never a bare string, number or list at the top level). Coercion
 * errors never echo the value.
 */
const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

function literal(ast: ValueNode, variables: Record<string, unknown> | null | undefined): unknown {
  switch (ast.kind) {
    case Kind.STRING:
    case Kind.BOOLEAN:
      return ast.value;
    case Kind.INT:
    case Kind.FLOAT:
      return Number(ast.value);
    case Kind.NULL:
      return null;
    case Kind.LIST:
      return ast.values.map((v) => literal(v, variables));
    case Kind.OBJECT:
      return Object.fromEntries(ast.fields.map((f) => [f.name.value, literal(f.value, variables)]));
    case Kind.VARIABLE:
      return variables?.[ast.name.value];
    default:
      throw new TypeError('JSONObject cannot contain an enum value');
  }
}

export const JSONObjectScalar = new GraphQLScalarType<Record<string, unknown>, Record<string, unknown>>({
  name: 'JSONObject',
  description:
    'A JSON object passed through as the remittances platform defines it (its shape is not part of this API\'s contract), e.g. {"firstName": "Ana"}.',
  serialize(value) {
    if (!isObject(value)) throw new TypeError('JSONObject cannot serialize a non-object value');
    return value;
  },
  parseValue(value) {
    if (!isObject(value)) throw new TypeError('JSONObject must be a JSON object, e.g. {"firstName": "Ana"}');
    return value;
  },
  parseLiteral(ast, variables) {
    if (ast.kind !== Kind.OBJECT) throw new TypeError('JSONObject must be a JSON object, e.g. {firstName: "Ana"}');
    return literal(ast as ObjectValueNode, variables) as Record<string, unknown>;
  },
});
