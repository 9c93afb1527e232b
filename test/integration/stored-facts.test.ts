/**
 * What the platform's webhooks tell us is readable: an agent's approval (AgentUpdatedEvents) shows in `agents`,
 * a document's verification result (DocumentUpdatedEvents) in `documents` — both back-office and admins only.
 * The sandbox delivers the signed events to the service's own subscription, as the platform would.
 */
import { gql, startTestApp, type TestApp } from '../helpers/app';
import { waitFor } from '../helpers/wait';

let t: TestApp;
let admin: string;
let staff: string;
let customer: string;

beforeAll(async () => {
  t = await startTestApp();
  [admin, staff, customer] = await Promise.all([
    t.token('facts-admin', 'admin'),
    t.token('facts-ops', 'backoffice'),
    t.token('facts-customer', 'customer'),
  ]);
}, 90_000);
afterAll(() => t?.close());

const ok = async (query: string, variables: Record<string, unknown> | undefined, token: string) => {
  const r = await gql<any>(t.url, query, { token, variables });
  if (r.body.errors) throw new Error(JSON.stringify(r.body.errors));
  return r.body.data;
};

it('agents: the status follows the approval event (PENDING_APPROVAL → ACTIVE)', async () => {
  const created = await ok(
    `mutation { createAgent(input: { email: "shop@example.com", businessName: "Shop" }) { agent { id status } } }`,
    undefined,
    admin,
  );
  const id = created.createAgent.agent.id as string;
  expect(created.createAgent.agent.status).toBe('PENDING_APPROVAL');
  const res = await fetch(`${t.app.sandbox!.url}/__sandbox/agents/${id}/approve`, { method: 'POST' });
  expect(res.status).toBe(200);
  await waitFor(
    async () => {
      const data = await ok(`{ agents(first: 10) { edges { node { id status } } } }`, undefined, staff);
      return data.agents.edges.find((e: any) => e.node.id === id)?.node.status === 'ACTIVE';
    },
    { timeoutMs: 10_000, intervalMs: 25, what: 'the agent ACTIVE in `agents`' },
  );
  const data = await ok(`{ agents(first: 10) { totalCount edges { node { id status updatedAt } } } }`, undefined, staff);
  expect(data.agents).toMatchObject({ totalCount: 1, edges: [{ node: { id, status: 'ACTIVE', updatedAt: expect.any(String) } }] });
}, 30_000);

it('documents: the verification result of an uploaded document is readable by person, paged', async () => {
  const person = await ok(
    `mutation { createPlatformPerson(person: { firstName: "Ana", lastName: "Souza", email: "ana@example.com", dateOfBirth: "1990-01-01" }) }`,
    undefined,
    admin,
  );
  const personId = person.createPlatformPerson.id as string;
  const doc = await ok(
    `mutation($id: ID!) { uploadPlatformDocument(personId: $id, document: { documentType: "PASSPORT", fileName: "p.pdf" }) }`,
    { id: personId },
    admin,
  );
  const docId = doc.uploadPlatformDocument.id as string;
  const Q = `query($id: ID!, $first: Int) { documents(personId: $id, first: $first) { totalCount edges { node { id personId documentType verificationStatus updatedAt } } pageInfo { hasNextPage } } }`;
  const page = await waitFor(
    async () => {
      const data = await ok(Q, { id: personId }, staff);
      return data.documents.edges[0]?.node.verificationStatus === 'VERIFIED' ? data.documents : null;
    },
    { timeoutMs: 10_000, intervalMs: 25, what: 'the document VERIFIED in `documents`' },
  );
  expect(page).toMatchObject({
    totalCount: 1,
    edges: [{ node: { id: docId, personId, documentType: 'PASSPORT', verificationStatus: 'VERIFIED' } }],
    pageInfo: { hasNextPage: false },
  });
  // another person's list is empty; customers may not read documents
  expect((await ok(Q, { id: '00000000-0000-4000-8000-000000000000' }, staff)).documents.totalCount).toBe(0);
  const refused = await gql<any>(t.url, Q, { token: customer, variables: { id: personId } });
  expect(refused.body.errors![0]!.extensions!.code).toBe('FORBIDDEN');
}, 30_000);
