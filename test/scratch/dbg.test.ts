import { gql, startTestApp, type TestApp } from '../helpers/app';
import { personInput } from '../helpers/funding';
let t: TestApp;
beforeAll(async () => { t = await startTestApp(); }, 90_000);
afterAll(() => t?.close());
it('dbg', async () => {
  const customer = await t.token('redaction-sender', 'customer');
  const person = { ...personInput(), identification: 'PP-PII-445566', email: 'sender-pii@example.com', phoneNumber: '+14155550177' };
  const created = await gql<any>(t.url, `mutation($i: PersonInput!) { createPerson(input: $i) { id status message } }`, { token: customer, variables: { i: person } });
  console.log(JSON.stringify(created.body));
});
