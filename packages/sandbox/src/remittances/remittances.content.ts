/**
 * A lenient JSON body parser for the platform's routes: every request carries Content-Type application/json
 * (upstream rule 1), including bodiless POSTs such as POST .../secret, so an empty body parses as undefined
 * instead of Fastify's default 400.
 */
import type { FastifyInstance } from 'fastify';
import { RemittancesError } from './remittances.errors';

export function installJsonParser(app: FastifyInstance): void {
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string', bodyLimit: 1024 * 1024 }, (_req, body, done) => {
    const text = typeof body === 'string' ? body : body.toString('utf8');
    if (text.trim() === '') return done(null, undefined);
    try {
      done(null, JSON.parse(text));
    } catch {
      done(new RemittancesError(400, 'INVALID_JSON', 'body is not valid JSON'), undefined);
    }
  });
}
