/**
 * The app's documents through the clients app teams use — Apollo Client 4 (HttpLink with its persisted-query link,
 * GraphQLWsLink for subscriptions, InMemoryCache) and urql (fetch exchange, graphql-ws subscription exchange,
 * Graphcache) — against TRUSTED_DOCUMENTS=only, over HTTP and graphql-ws: quote, KYC, card check, transfer, the
 * stream to the end, a history page, a cancellation. Each client adds __typename and prints the documents its own
 * way; the service runs them because they are the manifest's documents. The caches hold normalized entities.
 */
import { createHash } from 'node:crypto';
import WebSocket from 'ws';
import { createClient as createWsClient } from 'graphql-ws';
import { ApolloClient, ApolloLink, HttpLink, InMemoryCache, split } from '@apollo/client';
import { PersistedQueryLink } from '@apollo/client/link/persisted-queries';
import { GraphQLWsLink } from '@apollo/client/link/subscriptions';
import { getMainDefinition } from '@apollo/client/utilities';
import { Client as UrqlClient, fetchExchange, subscriptionExchange } from '@urql/core';
import { cacheExchange as graphcache } from '@urql/exchange-graphcache';
import { pipe, subscribe } from 'wonka';
import { startTestApp, type TestApp } from '../helpers/app';
import { personInput } from '../helpers/funding';
import { cardToken } from '../helpers/sandbox';
import { waitFor } from '../helpers/wait';
import { platformEvent, RECIPIENT } from './transfer-helpers';
import {
  CancelTransferDocument,
  CheckCardDocument,
  CreatePersonDocument,
  CreateQuoteDocument,
  CreateTransferDocument,
  TransferHistoryDocument,
  TransferUpdatedDocument,
  ViewerDocument,
  type PersonInput,
} from '../../schema/app/generated';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp({ TRUSTED_DOCUMENTS: 'only', SAGA_POLL_INTERVAL_MS: '50', SAGA_RETRY_BASE_MS: '50', SAGA_RETRY_MAX_MS: '200' });
}, 90_000);
afterAll(() => t?.close());

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');
const wsImpl = WebSocket as unknown as typeof globalThis.WebSocket;

/** What every client does once the transfer exists: the platform approves and pays out (the webhook inbox feeds the same). */
async function platformCompletes(id: string) {
  await platformEvent(t, id, { type: 'compliance', oldStatus: 'Pending', newStatus: 'Approved' });
  await platformEvent(t, id, { type: 'status', oldStatus: 'PaymentCaptured', newStatus: 'WaitingPayout' });
  await platformEvent(t, id, { type: 'status', oldStatus: 'Paid', newStatus: 'Completed' });
}

const quoteInput = (amount: string) => ({
  sourceCurrency: 'USD',
  destinationCurrency: 'BRL',
  destinationCountry: 'BR',
  paymentMethod: 'CARD' as const,
  sourceAmount: amount,
});
const transferInput = (key: string, quoteId: string, personId: string, card: string) => ({
  idempotencyKey: key,
  quoteId,
  personId,
  recipient: RECIPIENT as never,
  funding: { type: 'CARD' as const, cardToken: card },
});

describe('Apollo Client 4', () => {
  let client: ApolloClient;
  let sent: { hashOnly: number; withText: number };
  let closeWs: () => Promise<void>;
  beforeAll(async () => {
    const token = await t.token('apollo-user', 'customer');
    sent = { hashOnly: 0, withText: 0 };
    const counting: typeof fetch = async (input, init) => {
      const body = JSON.parse(String(init?.body ?? '{}')) as { query?: string };
      if (body.query) sent.withText++;
      else sent.hashOnly++;
      return fetch(input, init);
    };
    const http = new HttpLink({ uri: `${t.url}/graphql`, headers: { authorization: `Bearer ${token}` }, fetch: counting });
    const ws = createWsClient({ url: t.wsUrl, webSocketImpl: wsImpl, connectionParams: { authorization: `Bearer ${token}` } });
    closeWs = async () => {
      await ws.dispose();
    };
    const link = split(
      ({ query }) => {
        const d = getMainDefinition(query);
        return d.kind === 'OperationDefinition' && d.operation === 'subscription';
      },
      new GraphQLWsLink(ws),
      ApolloLink.from([new PersistedQueryLink({ sha256 }), http]),
    );
    client = new ApolloClient({ link, cache: new InMemoryCache() });
  });
  afterAll(async () => {
    client?.stop();
    await closeWs?.();
  });

  it('runs the journey in only mode over HTTP (persisted queries) and graphql-ws, and normalizes the cache', async () => {
    expect((await client.query({ query: ViewerDocument })).data?.viewer).toMatchObject({ id: 'apollo-user', role: 'CUSTOMER' });
    const quote = (await client.mutate({ mutation: CreateQuoteDocument, variables: { input: quoteInput('100.00') } })).data!.createQuote;
    expect(quote).toMatchObject({ __typename: 'Quote', fee: { amount: '3.99' }, total: { amount: '103.99' } });
    const person = (await client.mutate({ mutation: CreatePersonDocument, variables: { input: personInput() as PersonInput } })).data!
      .createPerson;
    const card = cardToken('1234', 'abababab-0000-4000-8000');
    const check = (await client.mutate({ mutation: CheckCardDocument, variables: { input: { cardToken: card, personId: person.id! } } }))
      .data!.checkCard;
    expect(check.status).toBe('APPROVED');
    const created = (
      await client.mutate({
        mutation: CreateTransferDocument,
        variables: { input: transferInput('apollo-key-1', quote.id, person.id!, card) },
      })
    ).data!.createTransfer;
    // the fragments are kept: the whole AppTransfer, not an empty object
    expect(created).toMatchObject({ __typename: 'Transfer', status: 'PENDING', version: 1, total: { amount: '103.99' } });

    // the stream over GraphQLWsLink (Apollo always sends the text): to the end
    const statuses: string[] = [];
    let completed = false;
    const sub = client.subscribe({ query: TransferUpdatedDocument, variables: { transferId: created.id } }).subscribe({
      next: (r) => r.data && statuses.push(r.data.transferUpdated.status),
      complete: () => (completed = true),
    });
    await waitFor(() => statuses.includes('AUTHORIZED'), { timeoutMs: 20_000, what: 'AUTHORIZED on Apollo’s stream' });
    await platformCompletes(created.id);
    await waitFor(() => completed, { timeoutMs: 20_000, what: 'Apollo’s stream to complete' });
    sub.unsubscribe();
    expect(statuses.at(-1)).toBe('COMPLETED');

    // a history page; the cache holds the transfer once, normalized, updated by the stream
    const history = (await client.query({ query: TransferHistoryDocument, variables: { first: 5 }, fetchPolicy: 'network-only' })).data!;
    expect(history.transfers.edges.map((e) => e.node.id)).toContain(created.id);
    const cache = client.cache.extract() as Record<string, { status?: string }>;
    expect(cache[`Transfer:${created.id}`]?.status).toBe('COMPLETED');

    // persisted queries: hashes first, the text only the first time a document is met
    expect(sent.hashOnly).toBeGreaterThan(0);
    const again = sent.withText;
    await client.query({ query: ViewerDocument, fetchPolicy: 'network-only' });
    expect(sent.withText).toBe(again);
  }, 90_000);

  it('cancels with the app’s CancelTransfer; a refusal reaches the client as a GraphQL error with its code', async () => {
    const quote = (await client.mutate({ mutation: CreateQuoteDocument, variables: { input: quoteInput('20.00') } })).data!.createQuote;
    const person = (
      await client.mutate({ mutation: CreatePersonDocument, variables: { input: personInput('Compliance-Review') as PersonInput } })
    ).data!.createPerson;
    const card = cardToken('1234', 'abababab-0000-4000-8001');
    await client.mutate({ mutation: CheckCardDocument, variables: { input: { cardToken: card, personId: person.id! } } });
    const created = (
      await client.mutate({
        mutation: CreateTransferDocument,
        variables: { input: transferInput('apollo-key-2', quote.id, person.id!, card) },
      })
    ).data!.createTransfer;
    await waitFor(
      async () =>
        (
          await client.query({ query: TransferHistoryDocument, variables: { first: 5 }, fetchPolicy: 'network-only' })
        ).data!.transfers.edges.some((e) => e.node.id === created.id && e.node.status === 'AUTHORIZED'),
      { timeoutMs: 20_000, what: 'AUTHORIZED' },
    );
    const cancelled = await client.mutate({
      mutation: CancelTransferDocument,
      variables: { input: { transferId: created.id, idempotencyKey: 'apollo-cancel-1' } },
    });
    expect(cancelled.data!.cancelTransfer.status).toBe('VOIDED');
    expect((client.cache.extract() as Record<string, { status?: string }>)[`Transfer:${created.id}`]?.status).toBe('VOIDED');
    const again = await client
      .mutate({ mutation: CancelTransferDocument, variables: { input: { transferId: created.id, idempotencyKey: 'apollo-cancel-2' } } })
      .then(
        () => null,
        (e: unknown) => e as { errors?: { extensions?: { code?: string } }[] },
      );
    expect(again?.errors?.[0]?.extensions?.code).toBe('INVALID_STATE');
  }, 60_000);
});

describe('urql with Graphcache', () => {
  let client: UrqlClient;
  let closeWs: () => Promise<void>;
  beforeAll(async () => {
    const token = await t.token('urql-user', 'customer');
    const ws = createWsClient({ url: t.wsUrl, webSocketImpl: wsImpl, connectionParams: { authorization: `Bearer ${token}` } });
    closeWs = async () => {
      await ws.dispose();
    };
    client = new UrqlClient({
      url: `${t.url}/graphql`,
      fetchOptions: { headers: { authorization: `Bearer ${token}` } },
      exchanges: [
        // value types without an id are embedded in their parent (no warning, no key)
        graphcache({
          keys: {
            Money: () => null,
            DeliveryEstimate: () => null,
            TransferSender: () => null,
            TransferRecipient: () => null,
            NextAction: () => null,
            Failure: () => null,
            Refund: (r) => String(r.id),
            Viewer: () => null,
            PageInfo: () => null,
            TransferEdge: () => null,
            TransferConnection: () => null,
            PersonResult: () => null,
            CardCheck: () => null,
          },
        }),
        fetchExchange,
        subscriptionExchange({
          forwardSubscription: (request) => ({
            subscribe: (sink) => ({ unsubscribe: ws.subscribe({ ...request, query: request.query ?? '' }, sink) }),
          }),
        }),
      ],
    });
  });
  afterAll(async () => closeWs?.());

  it('runs the journey in only mode over HTTP and graphql-ws; Graphcache normalizes what the stream changes', async () => {
    const viewer = await client.query(ViewerDocument, {}).toPromise();
    expect(viewer.error).toBeUndefined();
    expect(viewer.data?.viewer).toMatchObject({ id: 'urql-user' });
    const quote = (await client.mutation(CreateQuoteDocument, { input: quoteInput('100.00') }).toPromise()).data!.createQuote;
    expect(quote).toMatchObject({ fee: { amount: '3.99' }, total: { amount: '103.99' } });
    const person = (await client.mutation(CreatePersonDocument, { input: personInput() as PersonInput }).toPromise()).data!.createPerson;
    const card = cardToken('1234', 'cdcdcdcd-0000-4000-8000');
    expect(
      (await client.mutation(CheckCardDocument, { input: { cardToken: card, personId: person.id! } }).toPromise()).data!.checkCard.status,
    ).toBe('APPROVED');
    const made = await client
      .mutation(CreateTransferDocument, { input: transferInput('urql-key-1', quote.id, person.id!, card) })
      .toPromise();
    expect(made.error).toBeUndefined();
    const created = made.data!.createTransfer;
    // a history page read before the stream: Graphcache's entity Transfer:<id>
    const first = await client.query(TransferHistoryDocument, { first: 5 }).toPromise();
    expect(first.data!.transfers.edges.map((e) => e.node.id)).toContain(created.id);

    const statuses: string[] = [];
    const { unsubscribe } = pipe(
      client.subscription(TransferUpdatedDocument, { transferId: created.id }),
      subscribe((r) => {
        if (r.data) statuses.push(r.data.transferUpdated.status);
      }),
    );
    await waitFor(() => statuses.includes('AUTHORIZED'), { timeoutMs: 20_000, what: 'AUTHORIZED on urql’s stream' });
    await platformCompletes(created.id);
    await waitFor(() => statuses.includes('COMPLETED'), { timeoutMs: 20_000, what: 'COMPLETED on urql’s stream' });
    unsubscribe();
    // the cached page, not fetched again, shows what the stream brought: one normalized entity
    const cached = client.readQuery(TransferHistoryDocument, { first: 5 });
    expect(cached?.data?.transfers.edges.find((e) => e.node.id === created.id)?.node.status).toBe('COMPLETED');
  }, 90_000);
});
