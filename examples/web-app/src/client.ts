/**
 * The GraphQL client: urql (`@urql/core`) over HTTP for queries and mutations, graphql-ws for subscriptions, on the
 * same URL. The documents are the app's typed documents (schema/app/generated.ts): urql prints them with their
 * `__typename`s, and the service runs them in `TRUSTED_DOCUMENTS=only` because they are the manifest's documents
 * (schema/app/persisted-documents.json, deployed with the service).
 */
import { Client, fetchExchange, subscriptionExchange, type AnyVariables, type CombinedError, type DocumentInput } from '@urql/core';
import { createClient as createWsClient } from 'graphql-ws';
import type { AppConfig } from './config';

/** A refusal as the customer sees it: `message` (in the browser's language) and the stable `extensions.code`. */
export class ApiError extends Error {
  constructor(
    message: string,
    readonly code: string,
    /** Per input field (BAD_USER_INPUT): where, and the customer's message. */
    readonly fields: { path: string; message: string }[] = [],
    /** e.g. CHALLENGE_NOT_COMPLETED with INVALID_STATE */
    readonly reason: string | null = null,
  ) {
    super(message);
  }
}

export function toApiError(error: CombinedError): ApiError {
  const first = error.graphQLErrors[0];
  if (!first) return new ApiError('The service cannot be reached. Check your connection and try again.', 'NETWORK_ERROR');
  const ext = first.extensions ?? {};
  const fields = Array.isArray(ext.fields)
    ? (ext.fields as { path?: unknown; message?: unknown }[]).map((f) => ({ path: String(f.path ?? ''), message: String(f.message ?? '') }))
    : [];
  return new ApiError(
    first.message,
    String(ext.code ?? 'INTERNAL_SERVER_ERROR'),
    fields,
    typeof ext.reason === 'string' ? ext.reason : null,
  );
}

export interface Api {
  client: Client;
  query<D, V extends AnyVariables>(doc: DocumentInput<D, V>, variables: V): Promise<D>;
  mutate<D, V extends AnyVariables>(doc: DocumentInput<D, V>, variables: V): Promise<D>;
}

export function createApi(config: AppConfig): Api {
  const authorization = `Bearer ${config.token}`;
  // lazy: connects on the first subscription; on a dropped connection it reconnects and subscribes again
  const ws = createWsClient({ url: config.wsUrl, connectionParams: { authorization }, retryAttempts: 5 });
  const client = new Client({
    url: config.httpUrl,
    fetchOptions: { headers: { authorization } },
    exchanges: [
      fetchExchange,
      subscriptionExchange({
        forwardSubscription: (request) => ({
          subscribe: (sink) => ({ unsubscribe: ws.subscribe({ ...request, query: request.query ?? '' }, sink) }),
        }),
      }),
    ],
  });
  const unwrap = <D>(r: { data?: D; error?: CombinedError }): D => {
    if (r.error) throw toApiError(r.error);
    if (r.data === undefined) throw new ApiError('The service sent no answer. Try again.', 'NO_DATA');
    return r.data;
  };
  return {
    client,
    query: async (doc, variables) => unwrap(await client.query(doc, variables, { requestPolicy: 'network-only' }).toPromise()),
    mutate: async (doc, variables) => unwrap(await client.mutation(doc, variables).toPromise()),
  };
}
