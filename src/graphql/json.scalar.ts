import { GraphQLScalarType, Kind, type ObjectValueNode, type ValueNode } from 'graphql';

/**
 * A JSON object, for the remittances platform resources whose shapes the upstream documents do not show
 * (people, documents, payout data, FX transactions, platform wallets): passed through as the platform
 * sends or expects them. Only objects (never a bare string, number or list at the top level), nested at most
 * JSON_OBJECT_MAX_DEPTH levels. Coercion errors never echo the value.
 */
const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Objects and lists nested deeper than this are refused, whichever side sent them (the platform's are shallow). */
export const JSON_OBJECT_MAX_DEPTH = 32;

/** Whether `value` nests objects and lists at most `max` levels deep (an explicit stack: no recursion to exhaust). */
function withinDepth(value: unknown, max = JSON_OBJECT_MAX_DEPTH): boolean {
  const stack: [unknown, number][] = [[value, 1]];
  for (let item = stack.pop(); item; item = stack.pop()) {
    const [v, depth] = item;
    if (typeof v !== 'object' || v === null) continue;
    if (depth > max) return false;
    for (const child of Array.isArray(v) ? v : Object.values(v)) stack.push([child, depth + 1]);
  }
  return true;
}

const TOO_DEEP = `JSONObject may nest objects and lists at most ${JSON_OBJECT_MAX_DEPTH} levels deep`;

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
    'A JSON object passed through as the remittances platform defines it (its shape is not part of this API\'s contract), e.g. {"firstName": "Ana"}; objects and lists nested at most 32 levels deep.',
  serialize(value) {
    if (!isObject(value)) throw new TypeError('JSONObject cannot serialize a non-object value');
    if (!withinDepth(value)) throw new TypeError(TOO_DEEP);
    return value;
  },
  parseValue(value) {
    if (!isObject(value)) throw new TypeError('JSONObject must be a JSON object, e.g. {"firstName": "Ana"}');
    if (!withinDepth(value)) throw new TypeError(TOO_DEEP);
    return value;
  },
  parseLiteral(ast, variables) {
    if (ast.kind !== Kind.OBJECT) throw new TypeError('JSONObject must be a JSON object, e.g. {firstName: "Ana"}');
    const value = literal(ast as ObjectValueNode, variables) as Record<string, unknown>;
    if (!withinDepth(value)) throw new TypeError(TOO_DEEP);
    return value;
  },
});
