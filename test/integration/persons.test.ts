/**
 * persons: the caller's own KYC persons, newest first, with their status — never another customer's.
 */
import { gql, startTestApp, type TestApp } from '../helpers/app';
import { personInput } from '../e2e/transfer-helpers';

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
