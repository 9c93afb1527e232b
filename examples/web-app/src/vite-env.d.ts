/// <reference types="vite/client" />

interface ImportMetaEnv {
  /** The GraphQL endpoint (default `/graphql`, this origin). */
  readonly VITE_GRAPHQL_URL?: string;
  /** A development token, when the page's URL has no `?token=`. */
  readonly VITE_TOKEN?: string;
}
