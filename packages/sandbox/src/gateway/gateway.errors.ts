/**
 * Error envelope of the simulated payments gateway. The spec leaves it open ("Status codes and error envelope
 * for failures other than the alias case ... not shown"); decision, used by every gateway endpoint:
 *
 *   HTTP 4xx/5xx  { "error": { "code": "VALIDATION_ERROR", "message": "...", "details": [{ "field", "issue" }] } }
 *
 * `details` only on validation errors; `payment` (the payment response) on capture/void refusals so that a
 * client whose earlier response was lost can see where the payment stands.
 */
import type { FastifyReply } from 'fastify';

export interface FieldIssue {
  field: string;
  issue: string;
}

export interface GatewayErrorBody {
  error: { code: string; message: string; details?: FieldIssue[]; payment?: unknown };
}

export class GatewayError extends Error {
  constructor(
    readonly statusCode: number,
    readonly code: string,
    message: string,
    readonly details?: FieldIssue[],
    readonly extra: { payment?: unknown } = {},
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
  }

  body(): GatewayErrorBody {
    const error: GatewayErrorBody['error'] = { code: this.code, message: this.message };
    if (this.details && this.details.length > 0) error.details = this.details;
    if (this.extra.payment !== undefined) error.payment = this.extra.payment;
    return { error };
  }
}

export function sendGatewayError(reply: FastifyReply, err: GatewayError): FastifyReply {
  for (const [k, v] of Object.entries(err.headers)) reply.header(k, v);
  return reply.code(err.statusCode).send(err.body());
}

export const invalidRequest = (message: string): GatewayError => new GatewayError(400, 'INVALID_REQUEST', message);
export const notFound = (code: string, message: string): GatewayError => new GatewayError(404, code, message);

/** Collects field problems and throws one 400 VALIDATION_ERROR listing them all. */
export class Issues {
  readonly list: FieldIssue[] = [];
  add(field: string, issue: string): void {
    this.list.push({ field, issue });
  }
  get empty(): boolean {
    return this.list.length === 0;
  }
  throwIfAny(): void {
    if (this.list.length > 0) {
      const first = this.list[0];
      const more = this.list.length > 1 ? ` (and ${this.list.length - 1} more)` : '';
      throw new GatewayError(400, 'VALIDATION_ERROR', `${first.field}: ${first.issue}${more}`, this.list);
    }
  }
}
