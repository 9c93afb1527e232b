/**
 * Where the API is and who the customer is.
 *
 * - GraphQL URL: `VITE_GRAPHQL_URL` at build time (default `/graphql`: the page's own origin, see vite.config.ts);
 *   the websocket URL is the same with ws:// or wss://.
 * - Token: `?token=<JWT>` in the page's URL (kept in sessionStorage for this tab and removed from the address bar,
 *   so it is neither bookmarked nor sent on), else `VITE_TOKEN` at build time (development only: it ends up in the
 *   bundle). A real app gets it from its sign-in.
 */
const TOKEN_KEY = 'remittance-web-app:token';

export interface AppConfig {
  httpUrl: string;
  wsUrl: string;
  token: string | null;
}

export function loadConfig(): AppConfig {
  const httpUrl = new URL(import.meta.env.VITE_GRAPHQL_URL || '/graphql', window.location.href);
  const wsUrl = new URL(httpUrl);
  wsUrl.protocol = httpUrl.protocol === 'https:' ? 'wss:' : 'ws:';

  const url = new URL(window.location.href);
  const fromUrl = url.searchParams.get('token');
  if (fromUrl) {
    sessionStorage.setItem(TOKEN_KEY, fromUrl);
    url.searchParams.delete('token');
    window.history.replaceState(null, '', url);
  }
  const token = sessionStorage.getItem(TOKEN_KEY) || import.meta.env.VITE_TOKEN || null;
  return { httpUrl: httpUrl.toString(), wsUrl: wsUrl.toString(), token };
}

/** This page with `params`: where the 3-D Secure page sends the browser back. */
export function returnUrl(params: Record<string, string>): string {
  const url = new URL(window.location.pathname, window.location.origin);
  for (const [k, v] of Object.entries(params)) url.searchParams.set(k, v);
  return url.toString();
}
