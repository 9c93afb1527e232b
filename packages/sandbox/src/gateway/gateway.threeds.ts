/**
 * The simulated 3DS access control server. A card check on a token ending in 0002 opens a challenge and
 * answers with redirectAcsUrl = `${ctx.publicOrigin}/gateway/3ds/<challengeId>`. That URL serves an HTML page
 * with a form whose "Authenticate" button POSTs back to the same URL; the POST marks the card token as
 * authenticated, and from then on the same check on the same card token approves (and payments with it are
 * no longer declined for missing authentication). No bearer token is needed (a browser opens the page);
 * faults do not apply to these pages.
 * Optional query `returnUrl` (http/https; a sandbox decision, the documents show no way to pass one): after
 * authenticating, the page links back to it (and redirects with 303 when the form is posted with `redirect=1`, as
 * its own form does). The page names the card by the last four digits the card check reports (gateway.cards.ts).
 */
import { randomUUID } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { cardProfile } from './gateway.cards';
import type { GatewayDeps, GatewayState } from './gateway.state';
import type { SandboxContext } from '../sandbox.context';

/** The pending challenge for a card token (opened if needed); null when the card is already authenticated. */
export function challengeFor(ctx: SandboxContext, state: GatewayState, cardTokenId: string): string | null {
  const key = cardTokenId.toLowerCase();
  if (state.authenticatedCards.has(key)) return null;
  let id = state.pendingChallengeByCard.get(key);
  if (!id) {
    id = randomUUID();
    state.challenges.set(id, { id, cardTokenId: key, status: 'PENDING', createdAtMs: ctx.nowMs() });
    state.pendingChallengeByCard.set(key, id);
  }
  return `${ctx.publicOrigin}/gateway/3ds/${id}`;
}

const escapeHtml = (s: string): string =>
  s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

function page(title: string, body: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title>
<style>body{font-family:system-ui,sans-serif;max-width:28rem;margin:3rem auto;padding:0 1rem}
button{font-size:1.1rem;padding:.6rem 1.4rem}</style></head>
<body>${body}</body></html>`;
}

function safeReturnUrl(value: unknown): string | null {
  if (typeof value !== 'string') return null;
  try {
    const u = new URL(value);
    return u.protocol === 'http:' || u.protocol === 'https:' ? u.toString() : null;
  } catch {
    return null;
  }
}

export function registerThreeDs(app: FastifyInstance, { state }: GatewayDeps): void {
  app.get('/3ds/:challengeId', { config: { public: true } }, async (request, reply) => {
    const { challengeId } = request.params as { challengeId: string };
    const challenge = state.challenges.get(challengeId);
    reply.type('text/html; charset=utf-8');
    if (!challenge) return reply.code(404).send(page('Unknown challenge', '<h1>Unknown or expired challenge</h1>'));
    const returnUrl = safeReturnUrl((request.query as Record<string, unknown>).returnUrl);
    const card = `card ending ${escapeHtml(cardProfile(challenge.cardTokenId).lastFour)}`; // the lastFour the card check reports
    if (challenge.status === 'AUTHENTICATED') {
      const back = returnUrl ? `<p><a id="return" href="${escapeHtml(returnUrl)}">Return to the merchant</a></p>` : '';
      return page('Authenticated', `<h1>Authentication complete</h1><p id="status">AUTHENTICATED</p>${back}`);
    }
    const action = `/gateway/3ds/${encodeURIComponent(challengeId)}${returnUrl ? `?returnUrl=${encodeURIComponent(returnUrl)}` : ''}`;
    return page(
      '3-D Secure',
      `<h1>Sandbox 3-D Secure</h1>
<p>Confirm the payment verification for the ${card}.</p>
<p id="status">PENDING</p>
<form method="post" action="${escapeHtml(action)}">
<input type="hidden" name="action" value="authenticate">
${returnUrl ? '<input type="hidden" name="redirect" value="1">' : ''}
<button type="submit" id="authenticate">Authenticate</button>
</form>`,
    );
  });

  app.post('/3ds/:challengeId', { config: { public: true } }, async (request, reply) => {
    const { challengeId } = request.params as { challengeId: string };
    const challenge = state.challenges.get(challengeId);
    reply.type('text/html; charset=utf-8');
    if (!challenge) return reply.code(404).send(page('Unknown challenge', '<h1>Unknown or expired challenge</h1>'));
    challenge.status = 'AUTHENTICATED';
    state.authenticatedCards.add(challenge.cardTokenId);
    state.pendingChallengeByCard.delete(challenge.cardTokenId);
    const returnUrl = safeReturnUrl((request.query as Record<string, unknown>).returnUrl);
    const form = (request.body ?? {}) as Record<string, unknown>;
    if (returnUrl && form.redirect === '1') return reply.redirect(returnUrl, 303);
    const back = returnUrl ? `<p><a id="return" href="${escapeHtml(returnUrl)}">Return to the merchant</a></p>` : '';
    return page('Authenticated', `<h1>Authentication complete</h1><p id="status">AUTHENTICATED</p>${back}`);
  });
}
