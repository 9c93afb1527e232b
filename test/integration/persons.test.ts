/**
 * persons: the caller's own KYC persons, newest first, with their status and what each lacks to send money (by the
 * rule createTransfer applies) — never another customer's.
 */
import { gql, startTestApp, type TestApp } from '../helpers/app';
import { newQuote, personInput, transferInput } from '../e2e/transfer-helpers';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
}, 60_000);
afterAll(() => t?.close());

const CREATE = 'mutation($i: PersonInput!) { createPerson(input: $i) { id status } }';
const LIST = `query($first: Int, $after: String) { persons(first: $first, after: $after) {
  edges { cursor node { id name status message countryCode createdAt } } pageInfo { hasNextPage endCursor } } }`;

it("lists the caller's persons, newest first, page by page; another customer's never", async () => {
  const alice = await t.token('persons-alice', 'customer');
  const bob = await t.token('persons-bob', 'customer');
  const ids: string[] = [];
  for (const lastName of ['First', 'Second', 'Third']) {
    const r = await gql<any>(t.url, CREATE, { token: alice, variables: { i: personInput(lastName) } });
    ids.push(r.body.data.createPerson.id);
  }
  const bobs = await gql<any>(t.url, CREATE, { token: bob, variables: { i: personInput('Bobs') } });
  expect(bobs.body.data.createPerson.status).toBe('APPROVED');
  // a rejected person is an answer, not a stored person
  expect((await gql<any>(t.url, CREATE, { token: alice, variables: { i: personInput('Rejected') } })).body.data.createPerson).toEqual({
    id: null,
    status: 'REJECTED',
  });

  const page1 = (await gql<any>(t.url, LIST, { token: alice, variables: { first: 2 } })).body.data.persons;
  expect(page1.edges.map((e: any) => e.node.name)).toEqual(['Jane Third', 'Jane Second']);
  expect(page1.edges[0].node).toMatchObject({ id: ids[2], status: 'APPROVED', countryCode: 'US', message: null });
  expect(page1.pageInfo.hasNextPage).toBe(true);
  const page2 = (await gql<any>(t.url, LIST, { token: alice, variables: { first: 2, after: page1.pageInfo.endCursor } })).body.data.persons;
  expect(page2.edges.map((e: any) => e.node.id)).toEqual([ids[0]]);
  expect(page2.pageInfo.hasNextPage).toBe(false);

  const asBob = (await gql<any>(t.url, LIST, { token: bob })).body.data.persons;
  expect(asBob.edges.map((e: any) => e.node.name)).toEqual(['Jane Bobs']);
  // a cursor of alice's list in bob's hands lists only bob's persons
  const crossed = (await gql<any>(t.url, LIST, { token: bob, variables: { after: page1.pageInfo.endCursor } })).body.data.persons;
  expect(crossed.edges.every((e: any) => e.node.name === 'Jane Bobs')).toBe(true);
  // anonymous: UNAUTHENTICATED
  expect((await gql<any>(t.url, LIST)).body.errors?.[0]?.extensions?.code).toBe('UNAUTHENTICATED');
});

describe('Person.requirements: what a person lacks to send, by the rule createTransfer applies', () => {
  const PERSONS = `{ persons(first: 10) { edges { node { name requirements canSend } } } }`;
  const TRANSFER = 'mutation($i: CreateTransferInput!) { createTransfer(input: $i) { id } }';
  const codeOf = (r: { body: { errors?: { extensions?: Record<string, unknown> }[] } }) => r.body.errors?.[0]?.extensions?.code;

  it('lists what each person lacks; createTransfer refuses exactly those that lack something', async () => {
    const token = await t.token('persons-requirements', 'customer');
    const make = async (input: Record<string, unknown>) => {
      const r = await gql<any>(t.url, 'mutation($i: PersonInput!) { createPerson(input: $i) { id status } }', {
        token,
        variables: { i: input },
      });
      expect(r.body.data.createPerson.status).toBe('APPROVED');
      return r.body.data.createPerson.id as string;
    };
    const full = await make(personInput('Full'));
    const bare = await make({ type: 'INDIVIDUAL', firstName: 'Ana', lastName: 'Bare' });
    const { address: _a, ...noAddress } = personInput('NoAddress');
    await make(noAddress);
    await make({ type: 'BUSINESS', companyName: 'Acme Ltda' });

    const nodes = (await gql<any>(t.url, PERSONS, { token })).body.data.persons.edges.map((e: any) => e.node);
    expect(nodes).toEqual([
      { name: 'Acme Ltda', requirements: ['INDIVIDUAL'], canSend: false },
      { name: 'Jane NoAddress', requirements: ['ADDRESS'], canSend: false },
      { name: 'Ana Bare', requirements: ['IDENTIFICATION', 'EMAIL', 'PHONE_NUMBER', 'ADDRESS'], canSend: false },
      { name: 'Jane Full', requirements: [], canSend: true },
    ]);

    // the same rule at createTransfer (bank-account funding: no card check in between)
    const send = async (personId: string, key: string) => {
      const quoteId = await newQuote(t.url, token, '100.00', 'BANK_ACCOUNT');
      const funding = {
        type: 'BANK_ACCOUNT',
        bankAccount: { accountType: 'CHECKING', accountNumber: '123456789', routingNumber: '011000015' },
      };
      return gql<any>(t.url, TRANSFER, { token, variables: { i: { ...transferInput({ quoteId, personId, key, funding }) } } });
    };
    const refused = await send(bare, 'persons-req-bare');
    expect(codeOf(refused)).toBe('BAD_USER_INPUT');
    expect(refused.body.errors![0]!.extensions!.detail).toMatch(
      /^personId: the person has no identificationType, identification, email, phoneNumber, address/,
    );
    const sent = await send(full, 'persons-req-full');
    expect(sent.body.errors).toBeUndefined();
  });
});
