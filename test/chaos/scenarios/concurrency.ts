/**
 * 4. Concurrency: bursts of duplicate mutations — createTransfer (same key + same arguments; other keys on the
 * same quote), captureTransfer and voidTransfer races (same and different keys, same key with other arguments)
 * — fired all at once across two instances that share one PostgreSQL database and one sandbox.
 * Checked: exactly one effect each (one transfer per key and per quote; one capture or one void per transfer,
 * upstream), identical answers for identical keys and arguments, IDEMPOTENCY_KEY_REUSED for other arguments,
 * and the money checker.
 * Database: DATABASE_URL when it is PostgreSQL (a throwaway database), else a private PostgreSQL cluster
 * (test/chaos/lib/deps.ts); only when neither is possible, one instance on PGlite (printed).
 */
import { createThrowawayPostgresDatabase, usingPostgres } from '../../helpers/db';
import { startTestApp, type TestApp } from '../../helpers/app';
import { startTestSandbox } from '../../helpers/sandbox';
import { code, CREATE, gqlRaw, kindInput, newPerson, newQuote, readTransfers } from '../lib/client';
import { pool, rng, serviceLogLevel, type Scenario } from '../lib/common';
import { privatePostgresUnavailable, startPrivatePostgres, type PrivatePostgres } from '../lib/deps';
import { PaymentLedger } from '../lib/ledger';
import { awaitFinal, createOne, plan, type Target } from '../lib/workload';

const CAPTURE =
  'mutation($i: CaptureTransferInput!) { captureTransfer(input: $i) { id status version capturedAmount { amount currency } } }';
const VOID = 'mutation($i: VoidTransferInput!) { voidTransfer(input: $i) { id status version } }';
const OK_WAIT = new Set(['IDEMPOTENCY_IN_PROGRESS']);

export const concurrency: Scenario = async ({ seed, long, log }) => {
  const r = rng(seed);
  const createKeys = long ? 50 : 10;
  const dupsPerKey = long ? 10 : 6;
  const held = long ? 40 : 10;
  const racersPerTransfer = long ? 12 : 10;
  const sb = await startTestSandbox();
  const ledger = new PaymentLedger(sb.ctx);
  let priv: PrivatePostgres | null = null;
  let throwaway: { url: string; drop(): Promise<void> } | null = null;
  let dbNote = '';
  const apps: TestApp[] = [];
  try {
    if (usingPostgres()) {
      throwaway = await createThrowawayPostgresDatabase(process.env.DATABASE_URL!);
      dbNote = 'PostgreSQL (DATABASE_URL, throwaway database)';
    } else if (!privatePostgresUnavailable()) {
      priv = await startPrivatePostgres();
      throwaway = { url: priv.url, drop: async () => undefined };
      dbNote = 'private PostgreSQL cluster';
    }
    const env = {
      LOG_LEVEL: serviceLogLevel(),
      GATEWAY_BASE_URL: sb.gatewayUrl,
      REMITTANCES_BASE_URL: sb.remittancesUrl,
      VERIFICATION_BASE_URL: sb.verificationUrl,
      SAGA_POLL_INTERVAL_MS: '50',
      RATE_LIMIT_MUTATIONS_PER_MINUTE: '1000000',
      RATE_LIMIT_UPSTREAM_POINTS_PER_MINUTE: '1000000',
      IDEMPOTENCY_WAIT_MS: '60000',
      MUTATION_LEASE_WAIT_MS: '60000',
      DATABASE_POOL_MAX: '10',
      ...(throwaway ? { DATABASE_URL: throwaway.url } : {}),
    };
    apps.push(await startTestApp(env));
    if (throwaway) apps.push(await startTestApp({ ...env, DATA_DIR: apps[0]!.app.config.dataDir }));
    else dbNote = `PGlite, one instance (${privatePostgresUnavailable()})`;
    const at = (i: number) => apps[i % apps.length]!.url;
    const A = apps[0]!;
    const customer = await A.token('chaos-cc-customer', 'customer');
    const staff = await A.token('chaos-cc-staff', 'backoffice');
    const personId = await newPerson(A.url, customer);
    const violations: string[] = [];

    // transfers held for manual review (AUTHORIZED, nothing captures them but us)
    const target: Target = { url: () => A.url, customer, staff, personId };
    const heldItems = plan(r, held, `cc-held-${seed}`, { happy: 0, reject: 0, declined: 0, review: 1, threeds: 0 }).map((x) => ({
      ...x,
      decision: undefined,
    }));
    await pool(heldItems, 6, (it) => createOne(target, it));
    const ready = await awaitFinal(target, heldItems, 60_000 + held * 500);
    if (ready.some((x) => x.status !== 'AUTHORIZED'))
      throw new Error(`held transfers not AUTHORIZED: ${ready.map((x) => x.status).join(',')}`);

    // the burst: every request built first, then fired at once, alternating instances
    type Req = {
      group: string;
      args: string;
      query: string;
      vars: Record<string, unknown>;
      expect: 'create' | 'money';
      transferId?: string;
      quoteId?: string;
    };
    const reqs: Req[] = [];
    const quotes = await pool(
      Array.from({ length: createKeys }, () => 0),
      6,
      () => newQuote(A.url, customer),
    );
    for (let k = 0; k < createKeys; k++) {
      const key = `cc-create-${seed}-${k}`;
      const input = kindInput('review', quotes[k]!, personId, key);
      for (let d = 0; d < dupsPerKey; d++)
        reqs.push({ group: `create:${key}`, args: 'same', query: CREATE, vars: { i: input }, expect: 'create', quoteId: quotes[k] });
      // another key on the same quote: a second transfer would spend the quote twice
      reqs.push({
        group: `create:${key}:other`,
        args: 'same',
        query: CREATE,
        vars: { i: { ...input, idempotencyKey: `${key}-other` } },
        expect: 'create',
        quoteId: quotes[k],
      });
    }
    for (const h of heldItems) {
      const partial = r.chance(0.3) ? '40.00' : undefined;
      for (let j = 0; j < racersPerTransfer; j++) {
        const x = r.int(0, 9);
        if (x < 4)
          reqs.push({
            group: `capture:${h.id}:same`,
            args: String(partial),
            query: CAPTURE,
            vars: { i: { transferId: h.id, idempotencyKey: `cc-cap-${h.id}`, ...(partial ? { amount: partial } : {}) } },
            expect: 'money',
            transferId: h.id,
          });
        else if (x < 6)
          reqs.push({
            group: `capture:${h.id}:${j}`,
            args: 'x',
            query: CAPTURE,
            vars: { i: { transferId: h.id, idempotencyKey: `cc-cap-${h.id}-${j}` } },
            expect: 'money',
            transferId: h.id,
          });
        else if (x < 8)
          reqs.push({
            group: `void:${h.id}:same`,
            args: 'x',
            query: VOID,
            vars: { i: { transferId: h.id, idempotencyKey: `cc-void-${h.id}` } },
            expect: 'money',
            transferId: h.id,
          });
        else if (x < 9)
          reqs.push({
            group: `void:${h.id}:${j}`,
            args: 'x',
            query: VOID,
            vars: { i: { transferId: h.id, idempotencyKey: `cc-void-${h.id}-${j}` } },
            expect: 'money',
            transferId: h.id,
          });
        // same key as the shared capture, other arguments
        else
          reqs.push({
            group: `capture:${h.id}:same`,
            args: 'other',
            query: CAPTURE,
            vars: { i: { transferId: h.id, idempotencyKey: `cc-cap-${h.id}`, amount: partial ? '41.00' : '39.00' } },
            expect: 'money',
            transferId: h.id,
          });
      }
    }
    const order = r.shuffle(reqs.map((_, i) => i));
    log(`concurrency: ${reqs.length} mutations at once over ${apps.length} instance(s)`);
    const t0 = Date.now();
    const answers = new Array<{ text: string; code: string | null; data: any }>(reqs.length);
    await Promise.all(
      order.map(async (i, n) => {
        const q = reqs[i]!;
        const res = await gqlRaw(at(n), q.query, q.vars, q.expect === 'create' ? customer : staff, 120_000);
        answers[i] = { text: res.text, code: code(res), data: res.body?.data ? Object.values(res.body.data)[0] : null };
        if (res.status >= 500 || res.status === 0) violations.push(`${q.group}: HTTP ${res.status} ${res.text.slice(0, 200)}`);
      }),
    );
    const burstMs = Date.now() - t0;

    // identical keys + arguments → identical answers; other arguments → IDEMPOTENCY_KEY_REUSED (or it won and the others got that)
    const groups = new Map<string, number[]>();
    reqs.forEach((q, i) => groups.set(`${q.group}|${q.args}`, [...(groups.get(`${q.group}|${q.args}`) ?? []), i]));
    // The service stores the RESULT of a keyed mutation (which transfer, or which error) and answers a replay with
    // that transfer's CURRENT state (transfer.service.ts). So: the stored result must be identical for identical
    // keys (a violation otherwise); byte-identical snapshots are counted, not required (docs/transfers.md, Idempotency).
    let identical = 0;
    let snapshotGroups = 0;
    let multiAnswerGroups = 0;
    for (const [g, idx] of groups) {
      const settled = idx.map((i) => answers[i]!).filter((a) => !OK_WAIT.has(a.code ?? ''));
      // A failed mutation takes no effect and releases its key (docs/transfers.md, Idempotency): errors are answers, not stored
      // results, so a racing request with OTHER arguments may claim the key afterwards. What must hold: every
      // success for these arguments is the same transfer, and once one is stored no replay of the same arguments
      // is told the key was reused.
      const results = new Set(settled.map((a) => JSON.stringify({ id: a.data?.id ?? null, c: a.code })));
      const ids = new Set(settled.map((a) => a.data?.id).filter((id): id is string => typeof id === 'string'));
      const reusedAfterSuccess = ids.size > 0 && settled.some((a) => a.code === 'IDEMPOTENCY_KEY_REUSED');
      if (ids.size > 1 || reusedAfterSuccess)
        violations.push(
          `${g}: ${results.size} different stored results for one key and the same arguments: ${[...results].slice(0, 3).join(' | ').slice(0, 400)}`,
        );
      else identical += idx.length;
      if (idx.length > 1) {
        multiAnswerGroups++;
        if (new Set(settled.map((a) => JSON.stringify({ d: a.data, c: a.code }))).size <= 1) snapshotGroups++;
      }
    }
    // a key used with two argument sets: only one set ever succeeds; the other is refused (IDEMPOTENCY_KEY_REUSED,
    // or INVALID_STATE once the transfer moved on)
    for (const [g, idx] of groups) {
      if (!g.endsWith('|other')) continue;
      const sameIdx =
        groups.get(g.replace(/\|other$/, `|${reqs.find((q) => `${q.group}|other` === g && q.args !== 'other')?.args ?? 'undefined'}`)) ??
        [];
      const variantsWon = [idx, sameIdx].filter((xs) => xs.some((i) => answers[i]!.data)).length;
      if (variantsWon > 1) violations.push(`${g.replace(/\|other$/, '')}: one key ran with two different argument sets`);
      for (const i of idx) {
        const a = answers[i]!;
        if (!a.data && a.code !== 'IDEMPOTENCY_KEY_REUSED' && a.code !== 'INVALID_STATE' && !OK_WAIT.has(a.code ?? ''))
          violations.push(`${reqs[i]!.group}: other arguments under a used key → ${a.code ?? a.text.slice(0, 120)}`);
      }
    }
    // one transfer per create key and per quote
    const createdIds = new Set<string>();
    for (let k = 0; k < createKeys; k++) {
      const key = `cc-create-${seed}-${k}`;
      const ids = new Set(
        reqs
          .map((q, i) => (q.group === `create:${key}` || q.group === `create:${key}:other` ? answers[i]!.data?.id : undefined))
          .filter(Boolean),
      ); // exact: key 1 is a prefix of key 10
      if (ids.size !== 1)
        violations.push(
          `quote ${quotes[k]}: ${ids.size} transfers from ${dupsPerKey + 1} requests (one key ×${dupsPerKey}, one other key)`,
        );
      ids.forEach((x) => createdIds.add(x as string));
      const other = answers[reqs.findIndex((q) => q.group === `create:${key}:other`)]!;
      const sameWon = reqs.some((q, i) => q.group === `create:${key}` && answers[i]!.data);
      if (sameWon && other.data) violations.push(`quote ${quotes[k]}: both keys got a transfer`);
    }
    const perQuote = await A.app.db.prisma.transfer.groupBy({ by: ['quoteId'], _count: true });
    if (perQuote.some((x) => x._count > 1)) violations.push(`a quote backs ${Math.max(...perQuote.map((x) => x._count))} transfers`);
    // money: one capture or one void per held transfer, upstream
    const heldViews = await readTransfers(
      A.url,
      staff,
      heldItems.map((h) => h.id!),
    );
    for (const v of heldViews)
      if (!['CAPTURED', 'VOIDED', 'PAYOUT_PENDING', 'COMPLETED'].includes(v.status))
        violations.push(`held transfer ${v.id} is ${v.status} after the burst`);
    // the burst's new transfers settle first (held for review: AUTHORIZED), so no authorization is caught in flight
    const createdItems = [...createdIds].map((id, i) => ({ i, kind: 'review' as const, key: id, id }));
    await awaitFinal(target, createdItems, 60_000 + createdItems.length * 500);
    const allViews = await readTransfers(A.url, staff, [...heldItems.map((h) => h.id!), ...createdIds]);
    const codes = new Map<string, number>();
    reqs.forEach((q, i) => {
      const k = `${q.query === CREATE ? 'create' : q.query === CAPTURE ? 'capture' : 'void'}:${answers[i]!.data ? 'ok' : answers[i]!.code}`;
      codes.set(k, (codes.get(k) ?? 0) + 1);
    });
    const calls = await sb.control.calls('/gateway');
    violations.push(...ledger.check(calls, allViews).violations);
    const effects = calls.filter((c) => /\/(capture|void)$/.test(c.path) && c.status >= 200 && c.status < 300).length;
    const c = ledger.counts();
    return {
      id: 4,
      name: 'concurrency',
      operations: reqs.length,
      faults: reqs.length - createKeys * 2 - held, // every request beyond one per effect is a duplicate or a racer
      figures: {
        instances: apps.length,
        database: dbNote,
        'burst ms': burstMs,
        'create keys × duplicates': `${createKeys} × ${dupsPerKey} (+1 other key per quote) → ${createdIds.size} transfers`,
        'capture/void racers': `${held} transfers × ${racersPerTransfer} → ${effects} upstream captures/voids (${c.captured} capture, ${c.released} void)`,
        'identical stored results for identical keys': `${identical} answers`,
        'byte-identical snapshots': `${snapshotGroups} of ${multiAnswerGroups} key groups`,
        answers: [...codes]
          .sort()
          .map(([k, v]) => `${k}×${v}`)
          .join(' '),
      },
      violations,
    };
  } finally {
    for (const a of apps.reverse()) await a.close().catch(() => undefined);
    ledger.detach();
    await sb.close();
    if (usingPostgres()) await throwaway?.drop().catch(() => undefined);
    await priv?.destroy();
  }
};
