/**
 * The sandbox control API, mounted under /__sandbox (never in production):
 *
 * | route                      | does                                                                          |
 * |----------------------------|-------------------------------------------------------------------------------|
 * | GET    /calls              | JSON array of upstream calls, oldest first: { service, method, path, status, at, idempotencyKey }; filters ?path= (prefix of the full path, e.g. /gateway/v2/payment), ?service=, ?method= |
 * | DELETE /calls              | clear the call log only                                                       |
 * | POST   /reset              | forget all state (every plugin listens to ctx.bus 'reset'); clock, faults and call log back to defaults |
 * | GET    /clock              | { now, offsetSeconds }                                                        |
 * | POST   /clock              | { advanceSeconds: n } (finite, ≥ 0), or { reset: true } (back to the real time) → { now, offsetSeconds } |
 * | DELETE /clock              | back to the real time (as { reset: true }); state is kept → { now, offsetSeconds } |
 * | GET    /faults             | the faults in force                                                           |
 * | POST   /faults             | partial update of { latencyMs, errorRate, dropResponseAfterCommitRate, webhookDuplicateRate, webhookShuffle, webhookDelayMs, seed } → the faults in force; a seed reseeds the rng |
 * | DELETE /faults             | back to no faults (default seed)                                              |
 *
 * Bad input → 400 { error: { code: "VALIDATION_ERROR", message, details: [{ field, issue }] } }.
 */
import type { FastifyPluginAsync } from 'fastify';
import { DEFAULT_FAULTS, type SandboxContext, type SandboxFaults } from './sandbox.context';

interface Issue {
  field: string;
  issue: string;
}

class ControlError extends Error {
  constructor(readonly details: Issue[]) {
    super(details.map((d) => `${d.field}: ${d.issue}`).join('; '));
  }
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

const FAULT_RULES: Record<keyof SandboxFaults, (v: unknown) => string | null> = {
  latencyMs: (v) => (Number.isInteger(v) && (v as number) >= 0 && (v as number) <= 60_000 ? null : 'must be an integer from 0 to 60000'),
  errorRate: (v) => rate(v),
  dropResponseAfterCommitRate: (v) => rate(v),
  webhookDuplicateRate: (v) => rate(v),
  webhookShuffle: (v) => (typeof v === 'boolean' ? null : 'must be a boolean'),
  webhookDelayMs: (v) =>
    Number.isInteger(v) && (v as number) >= 0 && (v as number) <= 600_000 ? null : 'must be an integer from 0 to 600000',
  seed: (v) => (Number.isSafeInteger(v) ? null : 'must be an integer'),
};

function rate(v: unknown): string | null {
  return typeof v === 'number' && Number.isFinite(v) && v >= 0 && v <= 1 ? null : 'must be a number from 0 to 1';
}

export function parseFaults(body: unknown): Partial<SandboxFaults> {
  if (!isRecord(body)) throw new ControlError([{ field: '(body)', issue: 'must be a JSON object' }]);
  const issues: Issue[] = [];
  const patch: Partial<Record<keyof SandboxFaults, unknown>> = {};
  for (const [key, value] of Object.entries(body)) {
    const rule = FAULT_RULES[key as keyof SandboxFaults];
    if (!rule) {
      issues.push({ field: key, issue: `unknown fault; known: ${Object.keys(FAULT_RULES).join(', ')}` });
      continue;
    }
    const problem = rule(value);
    if (problem) issues.push({ field: key, issue: problem });
    else patch[key as keyof SandboxFaults] = value;
  }
  if (issues.length) throw new ControlError(issues);
  return patch as Partial<SandboxFaults>;
}

export const sandboxControlPlugin: FastifyPluginAsync<{ ctx: SandboxContext }> = async (app, { ctx }) => {
  // POST /reset and friends may come with a JSON content type and no body.
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (_req, body, done) => {
    const text = typeof body === 'string' ? body : body.toString('utf8');
    if (text.trim() === '') return done(null, undefined);
    try {
      done(null, JSON.parse(text));
    } catch {
      done(new ControlError([{ field: '(body)', issue: 'is not valid JSON' }]), undefined);
    }
  });

  app.setErrorHandler((err, _request, reply) => {
    if (err instanceof ControlError) {
      return reply.code(400).send({ error: { code: 'VALIDATION_ERROR', message: err.message, details: err.details } });
    }
    const status = (err as { statusCode?: number }).statusCode ?? 500;
    return reply
      .code(status)
      .send({ error: { code: status < 500 ? 'INVALID_REQUEST' : 'INTERNAL_ERROR', message: (err as Error).message } });
  });

  const clockView = () => ({ now: ctx.now().toISOString(), offsetSeconds: ctx.clockOffset() / 1000 });

  app.get('/calls', async (request) => {
    const q = request.query as Record<string, string | undefined>;
    return ctx.calls.filter(
      (c) =>
        (!q.path || c.path.startsWith(q.path)) &&
        (!q.service || c.service === q.service) &&
        (!q.method || c.method === q.method.toUpperCase()),
    );
  });

  app.delete('/calls', async () => {
    ctx.calls.length = 0;
    return { ok: true };
  });

  app.post('/reset', async () => {
    ctx.reset();
    return { ok: true, now: ctx.now().toISOString() };
  });

  app.get('/clock', async () => clockView());

  app.post('/clock', async (request) => {
    const body = request.body;
    if (!isRecord(body))
      throw new ControlError([{ field: '(body)', issue: 'must be a JSON object { advanceSeconds } or { reset: true }' }]);
    if (body.reset !== undefined) {
      if (body.reset !== true || Object.keys(body).length !== 1)
        throw new ControlError([{ field: 'reset', issue: 'must be true, alone (the clock goes back to the real time)' }]);
      ctx.resetClock();
      return clockView();
    }
    const s = body.advanceSeconds;
    if (typeof s !== 'number' || !Number.isFinite(s) || s < 0) {
      throw new ControlError([{ field: 'advanceSeconds', issue: 'must be a finite number ≥ 0 (the clock only moves forward)' }]);
    }
    ctx.advanceClock(s);
    return clockView();
  });

  app.delete('/clock', async () => {
    ctx.resetClock();
    return clockView();
  });

  app.get('/faults', async () => ctx.faults);

  app.post('/faults', async (request) => ctx.setFaults(parseFaults(request.body)));

  app.delete('/faults', async () => ctx.setFaults({ ...DEFAULT_FAULTS }));
};

export default sandboxControlPlugin;
