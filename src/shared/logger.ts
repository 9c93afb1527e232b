import pino, { type Logger, type LoggerOptions } from 'pino';
import { currentRequest } from './request-context';
import { currentTraceIds } from './tracing';

export type { Logger };

/**
 * Paths redacted from every log line: credentials, tokens, card tokens, account and document numbers,
 * personal contact data. Upstream clients log request/response bodies only through these rules.
 */
export const REDACT_PATHS = [
  'req.headers.authorization',
  'req.headers["x-api-key"]',
  'req.headers["x-agent-api-key"]',
  'req.headers.cookie',
  'headers.authorization',
  'headers["x-api-key"]',
  'headers["x-agent-api-key"]',
  '*.authorization',
  '*.password',
  '*.secret',
  '*.secretID',
  '*.clientSecret',
  '*.client_secret',
  '*.access_token',
  '*.accessToken',
  '*.apiKey',
  '*.signingSecret',
  '*.token',
  '*.cardTokenId',
  '*.accountNumber',
  '*.routingNumber',
  '*.documentNumber',
  '*.document',
  '*.identification',
  '*.email',
  '*.phoneNumber',
  '*.accountCheckToken',
  '*.accountTokenId',
];

export function createLogger(opts: { level: string; name?: string; destination?: pino.DestinationStream }): Logger {
  const options: LoggerOptions = {
    level: opts.level,
    name: opts.name,
    redact: { paths: REDACT_PATHS, censor: '[REDACTED]' },
    base: { pid: process.pid },
    timestamp: pino.stdTimeFunctions.isoTime,
    // every line logged on behalf of a request or websocket operation carries its id (and the caller's opaque
    // user id once known); see request-context.ts. With tracing on, also the active trace and span ids.
    mixin: () => {
      const ctx = currentRequest();
      const ids = currentTraceIds();
      if (!ctx) return ids ?? {};
      const req = ctx.userId ? { requestId: ctx.requestId, userId: ctx.userId } : { requestId: ctx.requestId };
      return ids ? { ...req, ...ids } : req;
    },
  };
  return opts.destination ? pino(options, opts.destination) : pino(options);
}
