/**
 * 7. Auth attacks: forged, expired, unsigned (`alg: none`), HMAC-confused, other-issuer/-audience, tampered and
 * role-less tokens against queries, mutations and the websocket; and a second customer reaching for the first
 * one's transfer, quote and person by id, by list and by subscription. Every attempt must be refused (no data),
 * and no response to the attacker may carry the victim's identifiers.
 */
import { generateKeyPair, SignJWT, importJWK, exportJWK } from 'jose';
import { createHmac } from 'node:crypto';
import { loadOrCreateDevKeys } from '../../../src/auth/auth.service';
import { startTestApp } from '../../helpers/app';
import { collect, rawSocketClose, wsClient } from '../../helpers/ws';
import { code, CREATE, gqlRaw, kindInput, newPerson, newQuote } from '../lib/client';
import { rng, serviceLogLevel, sleep, type Scenario, waitUntil } from '../lib/common';
import { createOne, type Target } from '../lib/workload';

const b64 = (o: unknown) => Buffer.from(JSON.stringify(o)).toString('base64url');

export const authAttacks: Scenario = async ({ seed, long, log }) => {
  const r = rng(seed);
  const app = await startTestApp({ LOG_LEVEL: serviceLogLevel(), RATE_LIMIT_MUTATIONS_PER_MINUTE: '1000000', RATE_LIMIT_UPSTREAM_POINTS_PER_MINUTE: '1000000', RATE_LIMIT_ANONYMOUS_PER_MINUTE: '1000000', SAGA_POLL_INTERVAL_MS: '50' });
  const violations: string[] = [];
  let operations = 0;
  let attacks = 0;
  try {
    const alice = await app.token('chaos-alice', 'customer');
    const bob = await app.token('chaos-bob', 'customer');
    const staff = await app.token('chaos-staff', 'backoffice');
    const target: Target = { url: () => app.url, customer: alice, staff, personId: await newPerson(app.url, alice) };
    const it = { i: 0, kind: 'review' as const, key: `auth-victim-${seed}` };
    await createOne(target, it);
    const victimId = (it as { id?: string }).id!;
    const victimQuote = await newQuote(app.url, alice);
    const secrets = [victimId, victimQuote, target.personId];

    // ── forged tokens ─────────────────────────────────────────────────────────────────────────────
    const dev = await loadOrCreateDevKeys(app.app.config.dataDir);
    const devKey = await importJWK(dev.privateJwk, dev.alg);
    const now = Math.floor(Date.now() / 1000);
    const sign = (claims: Record<string, unknown>, opts: { iss?: string; aud?: string; exp?: number; nbf?: number; key?: unknown; alg?: string } = {}) => {
      const jwt = new SignJWT(claims as never)
        .setProtectedHeader({ alg: opts.alg ?? dev.alg, typ: 'JWT' })
        .setSubject('chaos-alice')
        .setIssuer(opts.iss ?? 'remittance-bff-dev')
        .setAudience(opts.aud ?? 'remittance-bff')
        .setIssuedAt(now - 10)
        .setExpirationTime(opts.exp ?? now + 600);
      if (opts.nbf) jwt.setNotBefore(opts.nbf);
      return jwt.sign((opts.key ?? devKey) as never);
    };
    const { privateKey: strangerKey } = await generateKeyPair(dev.alg as 'ES256');
    const valid = await sign({ role: 'admin' }); // what a forger would like to present; the variants below must all fail
    const [h, p, s] = valid.split('.');
    const pub = JSON.stringify(await exportJWK((await importJWK(dev.publicJwk, dev.alg)) as never));
    const hsConfused = (() => {
      const header = b64({ alg: 'HS256', typ: 'JWT' });
      const payload = b64({ sub: 'chaos-alice', role: 'admin', iss: 'remittance-bff-dev', aud: 'remittance-bff', iat: now, exp: now + 600 });
      return `${header}.${payload}.${createHmac('sha256', pub).update(`${header}.${payload}`).digest('base64url')}`;
    })();
    const forged: [string, string][] = [
      ['expired', await sign({ role: 'customer' }, { exp: now - 120 })],
      ['not yet valid', await sign({ role: 'customer' }, { nbf: now + 3600 })],
      ['wrongly signed (stranger key)', await sign({ role: 'admin' }, { key: strangerKey })],
      ['alg none', `${b64({ alg: 'none', typ: 'JWT' })}.${b64({ sub: 'chaos-alice', role: 'admin', iss: 'remittance-bff-dev', aud: 'remittance-bff', iat: now, exp: now + 600 })}.`],
      ['alg none, signature kept', `${b64({ alg: 'none', typ: 'JWT' })}.${p}.${s}`],
      ['HS256 keyed with the public key', hsConfused],
      ['other issuer', await sign({ role: 'admin' }, { iss: 'https://evil.example/' })],
      ['other audience', await sign({ role: 'admin' }, { aud: 'another-api' })],
      ['tampered payload', `${h}.${b64({ sub: 'chaos-bob', role: 'admin', iss: 'remittance-bff-dev', aud: 'remittance-bff', iat: now, exp: now + 600 })}.${s}`],
      ['unknown role', await sign({ role: 'root' })],
      ['no role', await sign({})],
      ['garbage', 'not.a.jwt'],
      ['empty', ''],
    ];
    const probes: [string, string, Record<string, unknown>?][] = [
      ['viewer', '{ viewer { id role } }'],
      ['transfer by id', 'query($id: ID!) { transfer(id: $id) { id status } }', { id: victimId }],
      ['transfers list', '{ transfers(first: 50) { edges { node { id } } } }'],
      ['createQuote', 'mutation($i: CreateQuoteInput!) { createQuote(input: $i) { id } }', { i: { sourceCurrency: 'USD', destinationCurrency: 'BRL', paymentMethod: 'BANK_ACCOUNT', sourceAmount: '10.00' } }],
      ['voidTransfer', 'mutation($i: VoidTransferInput!) { voidTransfer(input: $i) { id status } }', { i: { transferId: victimId, idempotencyKey: 'forged-void-1' } }],
      ['webhookSubscriptions', '{ webhookSubscriptions { id url } }'],
    ];
    const rounds = long ? 5 : 1;
    log(`auth attacks: ${forged.length} forged tokens × ${probes.length} operations × ${rounds}`);
    for (let round = 0; round < rounds; round++) {
      for (const [what, token] of r.shuffle(forged)) {
        for (const [op, q, vars] of probes) {
          const res = await fetch(`${app.url}/graphql`, {
            method: 'POST',
            headers: { 'content-type': 'application/json', authorization: token === '' ? 'Bearer' : `Bearer ${token}` },
            body: JSON.stringify({ query: q, variables: vars }),
          });
          const text = await res.text();
          operations++;
          attacks++;
          const body = JSON.parse(text) as { data?: Record<string, unknown> | null; errors?: { extensions?: { code?: string } }[] };
          const hasData = body.data && Object.values(body.data).some((x) => x !== null);
          if (hasData) violations.push(`${what} token: ${op} answered with data ${text.slice(0, 200)}`);
          if (body.errors?.[0]?.extensions?.code !== 'UNAUTHENTICATED') violations.push(`${what} token: ${op} → ${body.errors?.[0]?.extensions?.code ?? res.status}, expected UNAUTHENTICATED`);
          if (res.status >= 500) violations.push(`${what} token: ${op} → HTTP ${res.status}`);
          if (secrets.some((x) => text.includes(x))) violations.push(`${what} token: ${op} leaked a victim identifier`);
        }
        // the websocket refuses the connection (4403) — never a subscription
        const close = await rawSocketClose(app.wsUrl, (ws) => ws.send(JSON.stringify({ type: 'connection_init', payload: { authorization: `Bearer ${token}` } })));
        operations++;
        attacks++;
        if (close.code !== 4403) violations.push(`${what} token: websocket closed with ${close.code}, expected 4403`);
      }
    }

    // ── cross-customer access (bob, a valid customer, reaches for alice's things) ───────────────────
    const bobSees: string[] = [];
    const asBob = async (what: string, q: string, vars?: Record<string, unknown>, ok: (x: ReturnType<typeof code>, data: unknown) => boolean = (c) => c === 'NOT_FOUND' || c === 'FORBIDDEN') => {
      const res = await gqlRaw(app.url, q, vars, bob);
      operations++;
      attacks++;
      bobSees.push(res.text);
      const c = code(res);
      const data = res.body?.data ? Object.values(res.body.data)[0] : null;
      if (!ok(c, data)) violations.push(`cross-customer ${what}: ${res.text.slice(0, 200)}`);
    };
    // bob's own quote and person for the idempotency-key probe: the same arguments every round, so rounds after the
    // first are replays of his own request (a new quote would make them "key reused" — by him, rightly)
    const bobKeyProbe = kindInput('review', await newQuote(app.url, bob), await newPerson(app.url, bob), it.key);
    for (let round = 0; round < rounds; round++) {
      await asBob('transfer by id', 'query($id: ID!) { transfer(id: $id) { id status sendAmount { amount } } }', { id: victimId }, (c, d) => d === null && (c === null || c === 'NOT_FOUND'));
      await asBob('transfers list', '{ transfers(first: 100) { edges { node { id } } } }', undefined, (c, d) => c === null && JSON.stringify(d).indexOf(victimId) === -1);
      await asBob('transfers filtered', '{ transfers(first: 100, filter: { status: [AUTHORIZED, PENDING] }) { edges { node { id } } } }', undefined, (c, d) => c === null && JSON.stringify(d).indexOf(victimId) === -1);
      await asBob('resumeTransfer', 'mutation($i: ResumeTransferInput!) { resumeTransfer(input: $i) { id } }', { i: { transferId: victimId, idempotencyKey: `bob-resume-${round}-x` } });
      await asBob('voidTransfer', 'mutation($i: VoidTransferInput!) { voidTransfer(input: $i) { id } }', { i: { transferId: victimId, idempotencyKey: `bob-void-${round}-xx` } });
      await asBob('captureTransfer', 'mutation($i: CaptureTransferInput!) { captureTransfer(input: $i) { id } }', { i: { transferId: victimId, idempotencyKey: `bob-capture-${round}-x` } });
      await asBob('createTransfer with her quote', CREATE, { i: kindInput('happy', victimQuote, await newPerson(app.url, bob), `bob-steal-quote-${round}`) }, (c) => c === 'NOT_FOUND' || c === 'FORBIDDEN' || c === 'BAD_USER_INPUT');
      await asBob('createTransfer with her person', CREATE, { i: kindInput('happy', await newQuote(app.url, bob), target.personId, `bob-steal-person-${round}`) }, (c) => c === 'NOT_FOUND' || c === 'FORBIDDEN' || c === 'BAD_USER_INPUT');
      await asBob('idempotency key of hers', CREATE, { i: bobKeyProbe }, (c, d) => c === null && (d as { id?: string } | null)?.id !== victimId);
      // subscription: refused at subscribe time, no data
      const { client } = wsClient(app.wsUrl, bob);
      const sub = collect<{ transferUpdated: { id: string } }>(client, 'subscription($id: ID!) { transferUpdated(transferId: $id) { id status version } }', { id: victimId });
      await sub.next(1, 5000).catch(() => undefined);
      await sleep(100);
      operations++;
      attacks++;
      const got = JSON.stringify({ r: sub.results, e: sub.error ? String((sub.error as Error).message ?? sub.error) : null });
      bobSees.push(got);
      if (sub.results.some((x) => x.data?.transferUpdated)) violations.push(`cross-customer subscription delivered data: ${got.slice(0, 200)}`);
      if (!sub.results.some((x) => x.errors?.length) && !sub.error) violations.push(`cross-customer subscription: no error (${got.slice(0, 200)})`);
      sub.dispose();
      await client.dispose();
    }
    // the victim's transfer is untouched by all of it: still alice's, still AUTHORIZED (held for review)
    const mine = await waitUntil(async () => (await gqlRaw(app.url, 'query($id: ID!) { transfer(id: $id) { id status } }', { id: victimId }, alice)).body?.data?.transfer, 5000, 'victim readable');
    if (!['PENDING', 'AUTHORIZED'].includes(mine.status)) violations.push(`victim transfer is ${mine.status} after the attacks`);
    const leaks = bobSees.filter((t) => secrets.some((x) => t.includes(x)));
    if (leaks.length) violations.push(`${leaks.length} answers to the other customer carried the victim's identifiers: ${leaks[0]!.slice(0, 200)}`);
    return {
      id: 7,
      name: 'auth attacks',
      operations,
      faults: attacks,
      figures: { 'forged token kinds': forged.length, 'operations per token': probes.length + 1, 'cross-customer attempts': 10 * rounds, refused: attacks - violations.length },
      violations,
    };
  } finally {
    await app.close();
  }
};
