/**
 * The built service in production mode with TRUSTED_DOCUMENTS=only: the app manifest runs (by documentId or its
 * exact text, over HTTP and graphql-ws), anything else is refused with PERSISTED_DOCUMENT_NOT_ALLOWED before
 * any upstream call; a manifest that cannot be read keeps the service from starting.
 */
import { createHash } from 'node:crypto';
import { print } from 'graphql';
import { documentIdOf } from '../../src/graphql/trusted-documents';
import { startProductionService, type ProductionService } from '../helpers/production';
import { wsClient } from '../helpers/ws';
import { CorridorsDocument, ViewerDocument } from '../../schema/app/generated';

jest.setTimeout(120_000);

const idOf = (doc: Parameters<typeof print>[0]) => documentIdOf(print(doc));
const AD_HOC =
  'mutation { createQuote(input: { sourceCurrency: "USD", destinationCurrency: "BRL", paymentMethod: CARD, sourceAmount: "10.00" }) { id } }';

let p: ProductionService;
let token: string;
beforeAll(async () => {
  p = await startProductionService({ TRUSTED_DOCUMENTS: 'only' });
  token = await p.token('prod-trusted', 'customer');
});
afterAll(() => p?.close());

async function post(body: unknown) {
  const res = await fetch(`${p.url}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/graphql-response+json', authorization: `Bearer ${token}` },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as any };
}

test('HTTP: manifest documents run by documentId or text; other text is PERSISTED_DOCUMENT_NOT_ALLOWED (400) before any upstream call', async () => {
  expect((await post({ documentId: idOf(ViewerDocument) })).body).toEqual({
    data: { viewer: { id: 'prod-trusted', role: 'CUSTOMER', __typename: 'Viewer' } },
  });
  expect((await post({ query: print(CorridorsDocument) })).body.data.corridors.length).toBeGreaterThan(0);
  const before = (await p.sandbox.control.calls('/gateway')).length;
  const refused = await post({ query: AD_HOC });
  expect(refused.status).toBe(400);
  expect(refused.body.errors).toEqual([
    {
      message: expect.any(String),
      extensions: { code: 'PERSISTED_DOCUMENT_NOT_ALLOWED', detail: expect.any(String), requestId: expect.any(String) },
    },
  ]);
  const apq = await post({
    query: AD_HOC,
    extensions: { persistedQuery: { version: 1, sha256Hash: createHash('sha256').update(AD_HOC).digest('hex') } },
  });
  expect(apq.body.errors[0].extensions.code).toBe('PERSISTED_DOCUMENT_NOT_ALLOWED');
  const unknown = await post({ documentId: `sha256:${'a'.repeat(64)}` });
  expect(unknown.body.errors[0].extensions.code).toBe('PERSISTED_DOCUMENT_NOT_FOUND');
  expect((await p.sandbox.control.calls('/gateway')).length).toBe(before);
});

test('graphql-ws: a documentId runs; other text is refused', async () => {
  const { client } = wsClient(p.wsUrl, token);
  const run = (payload: Record<string, unknown>) =>
    new Promise<{ results: any[]; error?: any }>((resolve) => {
      const results: any[] = [];
      client.subscribe({ query: '', ...payload } as never, {
        next: (v) => results.push(v),
        error: (error) => resolve({ results, error }),
        complete: () => resolve({ results }),
      });
    });
  try {
    expect((await run({ documentId: idOf(ViewerDocument) })).results[0].data.viewer.id).toBe('prod-trusted');
    const refused = await run({ query: AD_HOC });
    expect(refused.results).toEqual([]);
    expect(refused.error[0].extensions.code).toBe('PERSISTED_DOCUMENT_NOT_ALLOWED');
  } finally {
    await client.dispose();
  }
});

test('a manifest that cannot be read: the service does not start', async () => {
  await expect(
    startProductionService({ TRUSTED_DOCUMENTS: 'only', TRUSTED_DOCUMENTS_MANIFEST: '/nonexistent/persisted-documents.json' }),
  ).rejects.toThrow();
});
