import { gql, startTestApp, type TestApp } from '../helpers/app';
import { sandboxCalls } from '../helpers/surface';

let t: TestApp;
let alice: string;
let bob: string;
let staff: string;

beforeAll(async () => {
  t = await startTestApp();
  [alice, bob, staff] = await Promise.all([t.token('kyc-alice', 'customer'), t.token('kyc-bob', 'customer'), t.token('ops', 'backoffice')]);
}, 90_000);
afterAll(() => t?.close());

const START = `mutation($i: StartVerificationSessionInput) { startVerificationSession(input: $i) { id ownerId status url expiresAt } }`;
const GET = `query($id: ID!) { verificationSession(id: $id) { id ownerId status } }`;
const VERIFY = `mutation($i: CreateVerificationInput!) { createVerification(input: $i) { id sessionId type status decidedAt } }`;

describe('verification sessions', () => {
  let sessionId: string;
  let verificationId: string;

  it('startVerificationSession: userRef is the caller (never client-supplied), ownership recorded', async () => {
    const r = await gql<any>(t.url, START, { token: alice, variables: { i: { redirectUrl: 'https://app.example.com/kyc/done' } } });
    expect(r.body.errors).toBeUndefined();
    expect(r.body.data.startVerificationSession).toMatchObject({ ownerId: 'kyc-alice', status: 'created' });
    expect(r.body.data.startVerificationSession.url).toMatch(/^http/);
    sessionId = r.body.data.startVerificationSession.id;
    expect((await t.app.db.prisma.verificationSessionOwner.findUnique({ where: { sessionId } }))?.ownerId).toBe('kyc-alice');
  });

  it('a non-https redirectUrl → BAD_USER_INPUT', async () => {
    const r = await gql<any>(t.url, START, { token: alice, variables: { i: { redirectUrl: 'http://x' } } });
    expect(r.body.errors![0]!).toMatchObject({
      extensions: {
        code: 'BAD_USER_INPUT',
        detail: 'Invalid input: redirectUrl must be an https:// URL',
        fields: [expect.objectContaining({ path: 'input.redirectUrl', code: 'INVALID_FORMAT' })],
      },
    });
  });

  it('verificationSession: the owner and back-office read it; another customer gets NOT_FOUND without an upstream call', async () => {
    expect((await gql<any>(t.url, GET, { token: alice, variables: { id: sessionId } })).body.data.verificationSession.id).toBe(sessionId);
    expect((await gql<any>(t.url, GET, { token: staff, variables: { id: sessionId } })).body.data.verificationSession.ownerId).toBe(
      'kyc-alice',
    );
    const before = (await sandboxCalls(t, '/verification/v1/sessions')).length;
    const r = await gql<any>(t.url, GET, { token: bob, variables: { id: sessionId } });
    expect(r.body.errors![0]!.extensions!.code).toBe('NOT_FOUND');
    expect((await sandboxCalls(t, '/verification/v1/sessions')).length).toBe(before);
  });

  it("createVerification: only in one's own session; the session then completes", async () => {
    const other = await gql<any>(t.url, VERIFY, { token: bob, variables: { i: { sessionId } } });
    expect(other.body.errors![0]!.extensions!.code).toBe('NOT_FOUND');
    const r = await gql<any>(t.url, VERIFY, { token: alice, variables: { i: { sessionId, type: 'IDENTITY' } } });
    expect(r.body.errors).toBeUndefined();
    expect(r.body.data.createVerification).toMatchObject({ sessionId, type: 'identity', status: 'approved' });
    expect((await gql<any>(t.url, GET, { token: alice, variables: { id: sessionId } })).body.data.verificationSession.status).toBe(
      'completed',
    );
    verificationId = r.body.data.createVerification.id;
  });

  it('verification: the customer who ran it and back-office read it; another customer gets NOT_FOUND without an upstream call', async () => {
    const READ = `query($id: ID!) { verification(id: $id) { id sessionId type status decidedAt } }`;
    const own = await gql<any>(t.url, READ, { token: alice, variables: { id: verificationId } });
    expect(own.body.errors).toBeUndefined();
    expect(own.body.data.verification).toMatchObject({
      id: verificationId,
      sessionId,
      type: 'identity',
      status: 'approved',
      decidedAt: expect.any(String),
    });
    expect((await gql<any>(t.url, READ, { token: staff, variables: { id: verificationId } })).body.data.verification.id).toBe(
      verificationId,
    );
    const before = (await sandboxCalls(t, '/verification/v1/verifications')).length;
    const theirs = await gql<any>(t.url, READ, { token: bob, variables: { id: verificationId } });
    expect(theirs.body.errors![0]!.extensions!.code).toBe('NOT_FOUND');
    expect((await sandboxCalls(t, '/verification/v1/verifications')).length).toBe(before);
    // an id the verification API does not know: NOT_FOUND for back-office too (its 404, mapped at the edge)
    const unknown = await gql<any>(t.url, READ, { token: staff, variables: { id: 'ver_unknown' } });
    expect(unknown.body.errors![0]!.extensions!.code).toBe('NOT_FOUND');
  });

  it('tokens of the right scope: sessions calls and verifications calls each got their own token', async () => {
    const tokenCalls = await sandboxCalls(t, '/verification/oauth/token');
    expect(tokenCalls.length).toBe(2); // one per scope, cached afterwards
  });
});
