import {
  getNamedType,
  isInputObjectType,
  isObjectType,
  type GraphQLArgument,
  type GraphQLInputField,
  type GraphQLNamedType,
  type GraphQLSchema,
} from 'graphql';
import { buildApiSchema } from '../../src/modules/modules';

/** One shape per concept: the schema, read as a whole, must say each thing one way. */
let schema: GraphQLSchema;
beforeAll(async () => {
  schema = await buildApiSchema();
}, 60_000);

const userTypes = () => Object.values(schema.getTypeMap()).filter((t) => !t.name.startsWith('__'));

/** Every input field and argument of the schema, with where it is. */
function inputs(): { where: string; name: string; type: GraphQLNamedType; description: string }[] {
  const out: { where: string; name: string; type: GraphQLNamedType; description: string }[] = [];
  const add = (where: string, f: GraphQLInputField | GraphQLArgument) =>
    out.push({ where: `${where}.${f.name}`, name: f.name, type: getNamedType(f.type), description: f.description ?? '' });
  for (const t of userTypes()) {
    if (isInputObjectType(t)) for (const f of Object.values(t.getFields())) add(t.name, f);
    if (isObjectType(t)) for (const f of Object.values(t.getFields())) for (const a of f.args) add(`${t.name}.${f.name}`, a);
  }
  return out;
}

describe('one shape per concept', () => {
  it('every address the API takes is the one AddressInput (line1 line2 city region regionCode postalCode countryCode)', () => {
    const addressy = userTypes().filter((t) => isInputObjectType(t) && /address/i.test(t.name));
    expect(addressy.map((t) => t.name)).toEqual(['AddressInput']);
    const fields = (schema.getType('AddressInput') as unknown as { getFields(): Record<string, unknown> }).getFields();
    expect(Object.keys(fields).sort()).toEqual(['city', 'countryCode', 'line1', 'line2', 'postalCode', 'region', 'regionCode']);
    const takesAddress = inputs().filter((i) => i.name === 'address');
    expect(takesAddress.length).toBeGreaterThanOrEqual(4);
    for (const i of takesAddress) expect(`${i.where}: ${i.type.name}`).toBe(`${i.where}: AddressInput`);
  });

  it('no leftovers of other spellings: zipCode, stateCode, state, addressLine1, emailAddress, …TokenId, ipAddress', () => {
    const banned = /^(zipCode|stateCode|state|addressLine\d|emailAddress|ipAddress|country|\w+TokenId)$/;
    const names = [
      ...inputs().map((i) => i.where),
      ...userTypes().flatMap((t) => (isObjectType(t) ? Object.keys(t.getFields()).map((f) => `${t.name}.${f}`) : [])),
    ];
    expect(names.filter((n) => banned.test(n.split('.').pop()!))).toEqual([]);
  });

  it('countries are ISO 3166-1 alpha-2 everywhere (no argument or input field takes alpha-3)', () => {
    const countryInputs = inputs().filter((i) => /country/i.test(i.name));
    expect(countryInputs.length).toBeGreaterThan(5);
    for (const i of countryInputs) expect(`${i.where}: ${i.description}`).not.toMatch(/alpha-3|"BRA"|"USA"/);
    const outputs = userTypes().flatMap((t) =>
      isObjectType(t)
        ? Object.values(t.getFields())
            .filter((f) => /country/i.test(f.name))
            .map((f) => `${t.name}.${f.name}: ${f.description}`)
        : [],
    );
    for (const o of outputs) expect(o).not.toMatch(/alpha-3/);
  });

  it('createTransfer asks only what the service cannot know: no sender, no ipAddress; the sender is the person', () => {
    const fields = Object.keys((schema.getType('CreateTransferInput') as unknown as { getFields(): Record<string, unknown> }).getFields());
    expect(fields.sort()).toEqual(['funding', 'idempotencyKey', 'personId', 'quoteId', 'recipient', 'recipientId', 'threeDSReturnUrl']);
  });

  it('a recipient is taken in one shape: createRecipient and createTransfer take the same RecipientInput', () => {
    const mutation = schema.getMutationType()!.getFields();
    expect(String(mutation.createRecipient!.args.find((a) => a.name === 'input')!.type)).toBe('RecipientInput!');
    const transfer = (schema.getType('CreateTransferInput') as unknown as { getFields(): Record<string, { type: unknown }> }).getFields();
    expect(String(transfer.recipient!.type)).toBe('RecipientInput');
  });
});
