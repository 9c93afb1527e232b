/**
 * Error envelope of the simulated remittances platform ("Error body shape ... not shown" upstream).
 *
 * Decision: the same shape Fastify uses for its own errors, plus a stable machine code:
 *   { "statusCode": 401, "error": "Unauthorized", "code": "INVALID_API_KEY", "message": "..." }
 * Validation errors add `details` (a list of { field, problem }).
 */
import type { FastifyError, FastifyInstance, FastifyReply } from 'fastify';
import { STATUS_CODES } from 'node:http';

export interface RemittancesErrorBody {
  statusCode: number;
  error: string;
  code: string;
  message: string;
  details?: Array<{ field: string; problem: string }>;
}

export class RemittancesError extends Error {
  constructor(
    readonly statusCode: number,
    readonly code: string,
    message: string,
    readonly details?: Array<{ field: string; problem: string }>,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
  }

  body(): RemittancesErrorBody {
    const body: RemittancesErrorBody = {
      statusCode: this.statusCode,
      error: STATUS_CODES[this.statusCode] ?? 'Error',
      code: this.code,
      message: this.message,
    };
    if (this.details) body.details = this.details;
    return body;
  }
}

export const badRequest = (message: string, details?: Array<{ field: string; problem: string }>) =>
  new RemittancesError(400, 'VALIDATION_ERROR', message, details);
export const notFound = (what: string) => new RemittancesError(404, 'NOT_FOUND', `${what} not found`);
export const conflict = (code: string, message: string) => new RemittancesError(409, code, message);

export function sendError(reply: FastifyReply, err: RemittancesError): FastifyReply {
  for (const [k, v] of Object.entries(err.headers)) reply.header(k, v);
  return reply.code(err.statusCode).type('application/json').send(err.body());
}

/** Installs the envelope for RemittancesError and for Fastify's own errors (bad JSON, body too large, ...). */
export function installErrorHandler(app: FastifyInstance): void {
  app.setErrorHandler((error: FastifyError | RemittancesError, _request, reply) => {
    if (error instanceof RemittancesError) return sendError(reply, error);
    const status = typeof error.statusCode === 'number' && error.statusCode >= 400 ? error.statusCode : 500;
    const code = status >= 500 ? 'INTERNAL_ERROR' : (error.code ?? 'BAD_REQUEST');
    const message = status >= 500 ? 'internal error' : error.message;
    return sendError(reply, new RemittancesError(status, code, message));
  });
}
