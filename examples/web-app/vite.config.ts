// The service sends no CORS headers: the app and the API share one origin. In development (`npm run dev`) and
// with `npm run preview`, Vite proxies /graphql (HTTP and the graphql-ws websocket) to BFF_URL; in production put
// the built dist/ and the service behind one host (a reverse proxy or CDN routing /graphql to the service).
import { defineConfig } from 'vite';

const target = process.env.BFF_URL ?? 'http://127.0.0.1:4000';
const proxy = { '/graphql': { target, ws: true } };

export default defineConfig({
  server: {
    proxy,
    // the typed documents live in the repository's schema/app/, outside this folder
    fs: { allow: ['.', '../../schema/app'] },
  },
  preview: { proxy },
  build: { target: 'es2022', sourcemap: true },
});
