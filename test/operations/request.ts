/**
 * Sends a typed document (from test/generated/graphql.ts) to the service over HTTP and returns a
 * result typed by the operation: `const r = await execute(app.url, ViewerDocument, { token })`
 * → `r.data?.viewer.role`.
 */
import type { TypedDocumentNode } from '@graphql-typed-document-node/core';
import { print } from 'graphql';
import { request } from 'undici';

export interface GraphQLErrorShape {
  message: string;
  path?: (string | number)[];
  locations?: { line: number; column: number }[];
  extensions?: { code?: string; [key: string]: unknown };
}

export interface ExecutionResultOf<TResult> {
  /** HTTP status of the response. */
  status: number;
  /** Response content type. */
  contentType: string;
  data?: TResult | null;
  errors?: GraphQLErrorShape[];
  extensions?: Record<string, unknown>;
}

export interface ExecuteOptions<TVariables> {
  variables?: TVariables;
  /** Sent as `Authorization: Bearer <token>`. */
  token?: string;
  headers?: Record<string, string>;
}

/** `origin` is the service's http origin (`http://127.0.0.1:1234`) or its full `/graphql` URL. */
export async function execute<TResult, TVariables>(
  origin: string,
  document: TypedDocumentNode<TResult, TVariables>,
  opts: ExecuteOptions<TVariables> = {},
): Promise<ExecutionResultOf<TResult>> {
  const url = new URL(origin);
  if (url.pathname === '/' || url.pathname === '') url.pathname = '/graphql';
  const res = await request(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/graphql-response+json, application/json;q=0.9',
      ...(opts.token ? { authorization: `Bearer ${opts.token}` } : {}),
      ...opts.headers,
    },
    body: JSON.stringify({ query: print(document), variables: opts.variables ?? {} }),
  });
  const contentType = String(res.headers['content-type'] ?? '');
  const text = await res.body.text();
  let body: Omit<ExecutionResultOf<TResult>, 'status' | 'contentType'>;
  try {
    body = JSON.parse(text) as typeof body;
  } catch {
    throw new Error(`POST ${url} → ${res.statusCode} ${contentType}: not JSON: ${text.slice(0, 500)}`);
  }
  return { status: res.statusCode, contentType, ...body };
}
