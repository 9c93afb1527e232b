/**
 * 7. Auth attacks: forged, expired, unsigned (`alg: none`), HMAC-confused, other-issuer/-audience, tampered and
 * role-less tokens against queries, mutations and the websocket; a second customer reaching for the first one's
 * transfer, quote, person and linked bank account by id, by list and by subscription; forged, replayed and
 * cross-wired webhooks (unsigned, wrongly signed, stale, a real signature over an event mixing two transfers' ids or
 * naming another tenant). Every attempt must be refused or have no effect, and no response to the attacker may
 * carry the victim's identifiers.
 *
 * Runs twice: against the embedded development instance (7) and against the built service in production mode as a
 * child process (8: its own signing key with issuer and audience, explicit upstream credentials, PUBLIC_URL).
 */
import { generateKeyPair, SignJWT, importJWK, exportJWK, exportSPKI, type KeyLike } from 'jose';
import { createHmac } from 'node:crypto';
import { loadOrCreateDevKeys } from '../../../src/auth/auth.service';
import { signatureHeaderFor } from '../../../src/modules/webhook/webhook.signature';
import { startTestApp } from '../../helpers/app';
import { PROD_AUDIENCE, PROD_ISSUER, startProductionService } from '../../helpers/production';
import { collect, rawSocketClose, wsClient } from '../../helpers/ws';
import { waitFor } from '../../helpers/wait';
import { code, CREATE, gqlRaw, kindInput, newPerson, newQuote } from '../lib/client';
import { rng, serviceLogLevel, withServiceErrors, sleep, type Rng, type Scenario, type ScenarioResult } from '../lib/common';
import { createOne, type Target } from '../lib/workload';

const b64 = (o: unknown) => Buffer.from(JSON.stringify(o)).toString('base64url');

/** What the scenario needs of the instance under attack. */
interface Arena {
  url: string;
  wsUrl: string;
  /** origin of the sandbox (control API under /__sandbox, the platform under /remittances) */
  sandboxUrl: string;
  platform: { tenantId: string; apiKey: string; agentId: string; agentApiKey: string };
  token(sub: string, role: 'customer' | 'backoffice' | 'admin'): Promise<string>;
  /** Signs arbitrary claims with the instance's trusted key (or another key), for forged variants. */
  forge: { alg: string; key: KeyLike | Uint8Array; publicText: string; iss: string; aud: string; production: boolean };
  /** The service's log lines so far (attached to a crashed run). */
  logs(): string[];
  close(): Promise<void>;
}

interface Tally {
  operations: number;
  attacks: number;
  violations: string[];
}

export const authAttacks: Scenario = ({ seed, long }) => run(7, 'auth attacks', seed, long, devArena);
export const authAttacksProduction: Scenario = ({ seed, long }) => run(8, 'auth attacks (production)', seed, long, productionArena);

async function devArena(): Promise<Arena> {
  const app = await startTestApp({
    LOG_LEVEL: serviceLogLevel(),
    RATE_LIMIT_MUTATIONS_PER_MINUTE: '1000000',
    RATE_LIMIT_UPSTREAM_POINTS_PER_MINUTE: '1000000',
    SAGA_POLL_INTERVAL_MS: '50',
  });
  const dev = await loadOrCreateDevKeys(app.app.config.dataDir);
  const o = app.app.sandbox!.ctx.options;
  return {
    url: app.url,
    wsUrl: app.wsUrl,
    sandboxUrl: app.app.sandbox!.url,
    platform: {
      tenantId: o.remittancesTenantId,
      apiKey: o.remittancesApiKey,
      agentId: o.remittancesAgentId,
      agentApiKey: o.remittancesAgentApiKey,
    },
    token: (sub, role) => app.token(sub, role),
    forge: {
      alg: dev.alg,
      key: await importJWK(dev.privateJwk, dev.alg),
      publicText: JSON.stringify(await exportJWK((await importJWK(dev.publicJwk, dev.alg)) as never)),
      iss: 'remittance-bff-dev',
      aud: 'remittance-bff',
      production: false,
    },
    logs: () => app.logs,
    close: () => app.close(),
  };
}

async function productionArena(): Promise<Arena> {
  const p = await startProductionService({
    LOG_LEVEL: serviceLogLevel(),
    RATE_LIMIT_MUTATIONS_PER_MINUTE: '1000000',
    RATE_LIMIT_UPSTREAM_POINTS_PER_MINUTE: '1000000',
    SAGA_POLL_INTERVAL_MS: '50',
  });
  // production is ready once its webhook subscription and signing secret exist
  await waitFor(async () => (await fetch(`${p.url}/readyz`)).status === 200, {
    timeoutMs: 30_000,
    intervalMs: 100,
    what: 'production instance ready',
    retryErrors: true,
  }).catch(async (e) => {
    await p.close();
    throw e;
  });
  const o = p.sandbox.ctx.options;
  return {
    url: p.url,
    wsUrl: p.wsUrl,
    sandboxUrl: p.sandbox.url,
    platform: {
      tenantId: o.remittancesTenantId,
      apiKey: o.remittancesApiKey,
      agentId: o.remittancesAgentId,
      agentApiKey: o.remittancesAgentApiKey,
    },
    token: (sub, role) => p.token(sub, role),
    forge: { alg: 'ES256', key: p.keys.privateKey, publicText: p.keys.publicPem, iss: PROD_ISSUER, aud: PROD_AUDIENCE, production: true },
    logs: () => p.svc.stdout.join('').split('\n'),
    close: () => p.close(),
  };
}

async function run(
  id: number,
  name: string,
  seed: number,
  long: boolean,
  arenaOf: () => Promise<Arena>,
): Promise<Omit<ScenarioResult, 'ms'>> {
  const r = rng(seed);
  const arena = await arenaOf();
  const tally: Tally = { operations: 0, attacks: 0, violations: [] };
  try {
    const alice = await arena.token('chaos-alice', 'customer');
    const bob = await arena.token('chaos-bob', 'customer');
    const staff = await arena.token('chaos-staff', 'backoffice');
    const target: Target = { url: () => arena.url, customer: alice, staff, personId: await newPerson(arena.url, alice) };
    // two of alice's transfers held for compliance review (AUTHORIZED, money held): the victims
    const victim = { i: 0, kind: 'review' as const, key: `auth-victim-${seed}` };
    const other = { i: 1, kind: 'review' as const, key: `auth-other-${seed}` };
    await createOne(target, victim);
    await createOne(target, other);
    const victimId = (victim as { id?: string }).id!;
    const otherId = (other as { id?: string }).id!;
    const victimQuote = await newQuote(arena.url, alice);
    const linked = await linkBankAccount(arena.url, alice);
    const secrets = [victimId, otherId, victimQuote, target.personId, linked];
    const rounds = long ? 5 : 1;

    const forged = await forgedTokens(arena);
    await tokenAttacks(arena, r, forged, rounds, { victimId, secrets }, tally);
    const bobKeyProbe = kindInput('review', await newQuote(arena.url, bob), await newPerson(arena.url, bob), victim.key);
    await crossCustomer(
      arena,
      { alice, bob },
      { victimId, victimQuote, alicePerson: target.personId, linked, bobKeyProbe, secrets },
      rounds,
      tally,
    );
    const hooks = await webhookAttacks(arena, r, { victimId, otherId }, rounds, tally);

    // the victims are untouched by all of it: still alice's, still held for review, no capture or void at the gateway
    for (const [what, tid] of [
      ['victim', victimId],
      ['other', otherId],
    ] as const) {
      const mine = await waitFor(
        async () =>
          (await gqlRaw(arena.url, 'query($id: ID!) { transfer(id: $id) { id status complianceStatus } }', { id: tid }, alice)).body?.data
            ?.transfer,
        { timeoutMs: 5000, intervalMs: 100, what: `${what} readable`, retryErrors: true },
      );
      if (!['PENDING', 'AUTHORIZED'].includes(mine.status)) tally.violations.push(`${what} transfer is ${mine.status} after the attacks`);
      if (mine.complianceStatus === 'Approved' || mine.complianceStatus === 'Rejected')
        tally.violations.push(`${what} transfer's compliance became ${mine.complianceStatus}`);
    }
    const calls = (await (await fetch(`${arena.sandboxUrl}/__sandbox/calls?path=/gateway/payments`)).json()) as {
      path: string;
      idempotencyKey: string | null;
    }[];
    const moved = calls.filter(
      (c) => /\/(capture|void)$/.test(c.path) && [victimId, otherId].some((x) => c.path.includes(x) || c.idempotencyKey === x),
    );
    if (moved.length)
      tally.violations.push(`the gateway saw ${moved.length} capture/void calls for the victims: ${moved.map((c) => c.path).join(', ')}`);
    return {
      id,
      name,
      operations: tally.operations,
      faults: tally.attacks,
      figures: {
        'forged token kinds': forged.length,
        'operations per token': PROBES.length + 1,
        'cross-customer attempts': 11 * rounds,
        'forged webhooks': hooks,
        refused: tally.attacks - tally.violations.length,
      },
      violations: tally.violations,
    };
  } catch (e) {
    throw withServiceErrors(e, arena.logs());
  } finally {
    await arena.close();
  }
}

/** Alice links a bank account (form A): its token is bound to her (and funds no transfer: ACCOUNT_TOKEN funding is not offered). */
async function linkBankAccount(url: string, token: string): Promise<string> {
  const res = await gqlRaw(
    url,
    'mutation($i: CheckBankAccountInput!) { checkBankAccount(input: $i) { status accountToken } }',
    {
      i: { linked: { accountCheckToken: 'public-sandbox-alice', accountCheckId: 'alice-checking', countryCode: 'US' } },
    },
    token,
  );
  const id = res.body?.data?.checkBankAccount?.accountToken;
  if (!id) throw new Error(`checkBankAccount: ${res.status} ${res.text.slice(0, 300)}`);
  return id;
}

async function forgedTokens(a: Arena): Promise<[string, string][]> {
  const f = a.forge;
  const now = Math.floor(Date.now() / 1000);
  const sign = (
    claims: Record<string, unknown>,
    opts: { iss?: string | null; aud?: string | null; exp?: number; nbf?: number; key?: unknown } = {},
  ) => {
    const jwt = new SignJWT(claims as never)
      .setProtectedHeader({ alg: f.alg, typ: 'JWT' })
      .setSubject('chaos-alice')
      .setIssuedAt(now - 10)
      .setExpirationTime(opts.exp ?? now + 600);
    if (opts.iss !== null) jwt.setIssuer(opts.iss ?? f.iss);
    if (opts.aud !== null) jwt.setAudience(opts.aud ?? f.aud);
    if (opts.nbf) jwt.setNotBefore(opts.nbf);
    return jwt.sign((opts.key ?? f.key) as never);
  };
  const { privateKey: strangerKey } = await generateKeyPair(f.alg as 'ES256');
  const valid = await sign({ role: 'admin' }); // what a forger would like to present; the variants below must all fail
  const [h, p, s] = valid.split('.');
  const claims = { sub: 'chaos-alice', role: 'admin', iss: f.iss, aud: f.aud, iat: now, exp: now + 600 };
  const hsConfused = (secret: string) => {
    const header = b64({ alg: 'HS256', typ: 'JWT' });
    const payload = b64(claims);
    return `${header}.${payload}.${createHmac('sha256', secret).update(`${header}.${payload}`).digest('base64url')}`;
  };
  const strangerPem = await exportSPKI((await generateKeyPair('ES256', { extractable: true })).publicKey);
  const out: [string, string][] = [
    ['expired', await sign({ role: 'customer' }, { exp: now - 120 })],
    ['not yet valid', await sign({ role: 'customer' }, { nbf: now + 3600 })],
    ['wrongly signed (stranger key)', await sign({ role: 'admin' }, { key: strangerKey })],
    ['alg none', `${b64({ alg: 'none', typ: 'JWT' })}.${b64(claims)}.`],
    ['alg none, signature kept', `${b64({ alg: 'none', typ: 'JWT' })}.${p}.${s}`],
    ['HS256 keyed with the public key', hsConfused(f.publicText)],
    ['HS256 keyed with a stranger public key', hsConfused(strangerPem)],
    ['other issuer', await sign({ role: 'admin' }, { iss: 'https://evil.example/' })],
    ['other audience', await sign({ role: 'admin' }, { aud: 'another-api' })],
    ['tampered payload', `${h}.${b64({ ...claims, sub: 'chaos-bob' })}.${s}`],
    ['unknown role', await sign({ role: 'root' })],
    ['no role', await sign({})],
    ['garbage', 'not.a.jwt'],
    ['empty', ''],
  ];
  // production requires both claims: a token without them (from another tool signed by the same key) is refused
  if (f.production)
    out.push(['no issuer', await sign({ role: 'admin' }, { iss: null })], ['no audience', await sign({ role: 'admin' }, { aud: null })]);
  return out;
}

const PROBES: [string, string, ((v: string) => Record<string, unknown>)?][] = [
  ['viewer', '{ viewer { id role } }'],
  ['transfer by id', 'query($id: ID!) { transfer(id: $id) { id status } }', (id) => ({ id })],
  ['transfers list', '{ transfers(first: 50) { edges { node { id } } } }'],
  [
    'createQuote',
    'mutation($i: CreateQuoteInput!) { createQuote(input: $i) { id } }',
    () => ({ i: { sourceCurrency: 'USD', destinationCurrency: 'BRL', paymentMethod: 'BANK_ACCOUNT', sourceAmount: '10.00' } }),
  ],
  [
    'voidTransfer',
    'mutation($i: VoidTransferInput!) { voidTransfer(input: $i) { id status } }',
    (id) => ({ i: { transferId: id, idempotencyKey: 'forged-void-1' } }),
  ],
  ['webhookSubscriptions', '{ webhookSubscriptions { id url } }'],
];

async function tokenAttacks(
  a: Arena,
  r: Rng,
  forged: [string, string][],
  rounds: number,
  v: { victimId: string; secrets: string[] },
  t: Tally,
) {
  for (let round = 0; round < rounds; round++) {
    for (const [what, token] of r.shuffle(forged)) {
      for (const [op, q, vars] of PROBES) {
        const res = await fetch(`${a.url}/graphql`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', authorization: token === '' ? 'Bearer' : `Bearer ${token}` },
          body: JSON.stringify({ query: q, variables: vars?.(v.victimId) }),
        });
        const text = await res.text();
        t.operations++;
        t.attacks++;
        const body = JSON.parse(text) as { data?: Record<string, unknown> | null; errors?: { extensions?: { code?: string } }[] };
        const hasData = body.data && Object.values(body.data).some((x) => x !== null);
        if (hasData) t.violations.push(`${what} token: ${op} answered with data ${text.slice(0, 200)}`);
        const c = body.errors?.[0]?.extensions?.code;
        // a flood of bad tokens may be cut short by the per-IP limit: refused all the same
        if (c !== 'UNAUTHENTICATED' && c !== 'RATE_LIMITED')
          t.violations.push(`${what} token: ${op} → ${c ?? res.status}, expected UNAUTHENTICATED`);
        if (res.status >= 500) t.violations.push(`${what} token: ${op} → HTTP ${res.status}`);
        if (v.secrets.some((x) => text.includes(x))) t.violations.push(`${what} token: ${op} leaked a victim identifier`);
      }
      // the websocket refuses the connection (4403) — never a subscription
      const close = await rawSocketClose(a.wsUrl, (ws) =>
        ws.send(JSON.stringify({ type: 'connection_init', payload: { authorization: `Bearer ${token}` } })),
      );
      t.operations++;
      t.attacks++;
      if (close.code !== 4403 && close.code !== 4429)
        t.violations.push(`${what} token: websocket closed with ${close.code}, expected 4403`);
    }
  }
}

async function crossCustomer(
  a: Arena,
  who: { alice: string; bob: string },
  v: {
    victimId: string;
    victimQuote: string;
    alicePerson: string;
    linked: string;
    bobKeyProbe: ReturnType<typeof kindInput>;
    secrets: string[];
  },
  rounds: number,
  t: Tally,
) {
  const bobSees: string[] = [];
  const asBob = async (
    what: string,
    q: string,
    vars?: Record<string, unknown>,
    ok: (x: string | null, data: unknown) => boolean = (c) => c === 'NOT_FOUND' || c === 'FORBIDDEN',
  ) => {
    const res = await gqlRaw(a.url, q, vars, who.bob);
    t.operations++;
    t.attacks++;
    bobSees.push(res.text);
    const c = code(res);
    const data = res.body?.data ? Object.values(res.body.data)[0] : null;
    if (!ok(c, data)) t.violations.push(`cross-customer ${what}: ${res.text.slice(0, 200)}`);
  };
  const refusedInput = (c: string | null) => c === 'NOT_FOUND' || c === 'FORBIDDEN' || c === 'BAD_USER_INPUT';
  for (let round = 0; round < rounds; round++) {
    const victimId = v.victimId;
    await asBob(
      'transfer by id',
      'query($id: ID!) { transfer(id: $id) { id status sendAmount { amount } } }',
      { id: victimId },
      (c, d) => d === null && (c === null || c === 'NOT_FOUND'),
    );
    await asBob(
      'transfers list',
      '{ transfers(first: 100) { edges { node { id } } } }',
      undefined,
      (c, d) => c === null && JSON.stringify(d).indexOf(victimId) === -1,
    );
    await asBob(
      'transfers filtered',
      '{ transfers(first: 100, filter: { status: [AUTHORIZED, PENDING] }) { edges { node { id } } } }',
      undefined,
      (c, d) => c === null && JSON.stringify(d).indexOf(victimId) === -1,
    );
    await asBob('resumeTransfer', 'mutation($i: ResumeTransferInput!) { resumeTransfer(input: $i) { id } }', {
      i: { transferId: victimId, idempotencyKey: `bob-resume-${round}-x` },
    });
    await asBob('voidTransfer', 'mutation($i: VoidTransferInput!) { voidTransfer(input: $i) { id } }', {
      i: { transferId: victimId, idempotencyKey: `bob-void-${round}-xx` },
    });
    await asBob('captureTransfer', 'mutation($i: CaptureTransferInput!) { captureTransfer(input: $i) { id } }', {
      i: { transferId: victimId, idempotencyKey: `bob-capture-${round}-x` },
    });
    await asBob(
      'createTransfer with her quote',
      CREATE,
      { i: kindInput('happy', v.victimQuote, await newPerson(a.url, who.bob), `bob-steal-quote-${round}`) },
      refusedInput,
    );
    await asBob(
      'createTransfer with her person',
      CREATE,
      { i: kindInput('happy', await newQuote(a.url, who.bob), v.alicePerson, `bob-steal-person-${round}`) },
      refusedInput,
    );
    const stolenAccount = {
      ...kindInput(
        'happy',
        await newQuote(a.url, who.bob, '100.00', 'BANK_ACCOUNT'),
        await newPerson(a.url, who.bob),
        `bob-steal-account-${round}`,
      ),
      funding: { type: 'ACCOUNT_TOKEN', accountToken: v.linked },
    };
    await asBob('createTransfer funded with her linked bank account', CREATE, { i: stolenAccount }, refusedInput);
    await asBob(
      'idempotency key of hers',
      CREATE,
      { i: v.bobKeyProbe },
      (c, d) => c === null && (d as { id?: string } | null)?.id !== victimId,
    );
    // subscription: refused at subscribe time, no data
    const { client } = wsClient(a.wsUrl, who.bob);
    const sub = collect<{ transferUpdated: { id: string } }>(
      client,
      'subscription($id: ID!) { transferUpdated(transferId: $id) { id status version } }',
      { id: victimId },
    );
    await sub.next(1, 5000).catch(() => undefined);
    await sleep(100);
    t.operations++;
    t.attacks++;
    const got = JSON.stringify({ r: sub.results, e: sub.error ? String((sub.error as Error).message ?? sub.error) : null });
    bobSees.push(got);
    if (sub.results.some((x) => x.data?.transferUpdated))
      t.violations.push(`cross-customer subscription delivered data: ${got.slice(0, 200)}`);
    if (!sub.results.some((x) => x.errors?.length) && !sub.error)
      t.violations.push(`cross-customer subscription: no error (${got.slice(0, 200)})`);
    sub.dispose();
    await client.dispose();
  }
  const leaks = bobSees.filter((text) => v.secrets.some((x) => text.includes(x)));
  if (leaks.length)
    t.violations.push(`${leaks.length} answers to the other customer carried the victim's identifiers: ${leaks[0]!.slice(0, 200)}`);
}

/**
 * Forged webhooks against the victim: unsigned, signed with a guessed secret, a real signature three days old, and
 * real signatures (the secret the platform holds) over events that mix the victim's ids with another transfer's or
 * name another tenant. The first kinds must be refused (401); the cross-wired ones may be accepted but must change
 * nothing. Returns how many were sent.
 */
async function webhookAttacks(a: Arena, r: Rng, v: { victimId: string; otherId: string }, rounds: number, t: Tally): Promise<number> {
  const platformTx = async (externalId: string) => {
    const res = await fetch(`${a.sandboxUrl}/remittances/organizations/${a.platform.tenantId}/fx/transactions/${externalId}`, {
      headers: { 'x-api-key': a.platform.apiKey, 'x-agent-id': a.platform.agentId, 'x-agent-api-key': a.platform.agentApiKey },
    });
    if (!res.ok) throw new Error(`platform transaction ${externalId}: ${res.status} ${await res.text()}`);
    return ((await res.json()) as { transactionId: string }).transactionId;
  };
  const victimTx = await waitFor(() => platformTx(v.victimId).catch(() => null), {
    timeoutMs: 10_000,
    intervalMs: 100,
    what: 'the victim at the platform',
    retryErrors: true,
  });
  const otherTx = await waitFor(() => platformTx(v.otherId).catch(() => null), {
    timeoutMs: 10_000,
    intervalMs: 100,
    what: 'the other transfer at the platform',
    retryErrors: true,
  });
  const subs = (await (await fetch(`${a.sandboxUrl}/__sandbox/webhooks`)).json()) as {
    webhooks: { url: string; signingSecret: string | null }[];
  };
  const held = subs.webhooks.find((w) => w.url.startsWith(a.url) && w.signingSecret)?.signingSecret;
  if (!held) t.violations.push('the instance has no signed webhook subscription at the platform');
  const secret = held ?? Buffer.alloc(32, 9).toString('base64');
  const nowS = () => Math.floor(Date.now() / 1000);
  const event = (o: Record<string, unknown>) => ({
    event: 'TransactionComplianceStatusChangedEvent',
    oldComplianceStatus: 'Pending',
    newStatusMessages: [],
    ...o,
  });
  const mine = { transactionId: victimTx, externalTransactionId: v.victimId, tenantId: a.platform.tenantId };
  const refusedKinds: [string, Record<string, unknown>, (body: string) => string | null][] = [
    ['unsigned', event({ ...mine, newComplianceStatus: 'Approved' }), () => null],
    [
      'guessed secret',
      event({ ...mine, newComplianceStatus: 'Rejected' }),
      (b) => signatureHeaderFor(Buffer.alloc(32, 7).toString('base64'), nowS(), b),
    ],
    ['three days old', event({ ...mine, newComplianceStatus: 'Approved' }), (b) => signatureHeaderFor(secret, nowS() - 3 * 86_400, b)],
    [
      'signature of another body',
      event({ ...mine, newComplianceStatus: 'Approved' }),
      () => signatureHeaderFor(secret, nowS(), '{"event":"x"}'),
    ],
    [
      'only an unknown scheme',
      event({ ...mine, newComplianceStatus: 'Approved' }),
      (b) => signatureHeaderFor(secret, nowS(), b).replace('v1=', 'v9='),
    ],
  ];
  const noEffectKinds: [string, Record<string, unknown>][] = [
    [
      "another transfer's platform id with the victim's id",
      event({ transactionId: otherTx, externalTransactionId: v.victimId, tenantId: a.platform.tenantId, newComplianceStatus: 'Rejected' }),
    ],
    ['another tenant', event({ ...mine, tenantId: 'other-tenant', newComplianceStatus: 'Rejected' })],
    ['no tenant', event({ transactionId: victimTx, externalTransactionId: v.victimId, newComplianceStatus: 'Approved' })],
    [
      "an unknown platform id with the victim's id",
      {
        event: 'TransactionStatusChanged',
        transactionId: '00000000-0000-4000-8000-0000000000ee',
        externalTransactionId: v.victimId,
        tenantId: a.platform.tenantId,
        oldStatus: 'ManualReview',
        newStatus: 'Paid',
        newStatusMessages: [],
      },
    ],
  ];
  const post = async (body: string, signature: string | null) => {
    const res = await fetch(`${a.url}/webhooks/remittances`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(signature ? { 'x-service-signature': signature } : {}) },
      body,
    });
    t.operations++;
    t.attacks++;
    return { status: res.status, text: await res.text() };
  };
  let sent = 0;
  for (let round = 0; round < rounds; round++) {
    for (const [what, payload, sign] of r.shuffle(refusedKinds)) {
      const body = JSON.stringify({ ...payload, newStatusMessages: [`round ${round}`] });
      const res = await post(body, sign(body));
      sent++;
      if (res.status !== 401) t.violations.push(`forged webhook (${what}) → HTTP ${res.status}, expected 401`);
    }
    for (const [what, payload] of r.shuffle(noEffectKinds)) {
      const body = JSON.stringify({ ...payload, newStatusMessages: [`round ${round}`] });
      const res = await post(body, signatureHeaderFor(secret, nowS(), body));
      sent++;
      if (res.status >= 500) t.violations.push(`cross-wired webhook (${what}) → HTTP ${res.status}`);
    }
  }
  await sleep(1500); // let the inbox apply whatever it accepted
  return sent;
}
