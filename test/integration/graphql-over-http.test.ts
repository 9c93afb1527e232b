import { serverAudits } from 'graphql-http';
import { startTestApp, type TestApp } from '../helpers/app';

/**
 * GraphQL over HTTP conformance: graphql-http's own audit suite (every MUST, SHOULD and MAY) against the real
 * server. With `Accept: application/json` a request error that is the document's or the variables' fault answers
 * 200 (the legacy media type), with `Accept: application/graphql-response+json` it answers 400.
 */
let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
}, 90_000);
afterAll(() => t?.close());

describe('graphql-http server audits', () => {
  for (const audit of serverAudits({ url: () => `${t.url}/graphql` })) {
    it(audit.name, async () => {
      const result = await audit.fn();
      if (result.status !== 'ok') throw new Error(`${result.reason}\n${JSON.stringify(await result.response.text?.().catch(() => ''))}`);
    });
  }
});
