/**
 * The transfer workload shared by the saga scenarios: transfers of every kind (happy path, compliance reject,
 * declined card, manual review decided either way, 3DS left waiting), created through GraphQL with retries
 * that survive a dead service (same idempotency key), review decisions through the sandbox control API, and
 * the in-order oracle: the final status each kind reaches when the platform's events arrive in order.
 */
import { CREATE, code, gqlRaw, IN_ORDER, kindInput, newQuote, quoteExpiry, readTransfers, type Kind } from './client';
import { sleep, TERMINAL, type Rng } from './common';
import type { TransferView } from './ledger';

export interface Item {
  i: number;
  kind: Kind;
  key: string;
  /** Manual review decision (review kind). */
  decision?: 'Approved' | 'Rejected';
  id?: string;
  decided?: boolean;
  /** When the transfer's quote expires (ms): a transfer still waiting for its customer then is EXPIRED. */
  quoteExpiresAt?: number;
}

export interface Mix {
  happy: number;
  reject: number;
  declined: number;
  review: number;
  threeds: number;
  payoutReject?: number;
}
export const DEFAULT_MIX: Mix = { happy: 0.45, reject: 0.15, declined: 0.1, review: 0.2, threeds: 0, payoutReject: 0.1 };

export function plan(r: Rng, n: number, prefix: string, mix: Mix = DEFAULT_MIX): Item[] {
  const kinds = Object.entries(mix) as [Kind, number][];
  const total = kinds.reduce((s, [, w]) => s + w, 0);
  return Array.from({ length: n }, (_, i) => {
    let x = r.next() * total;
    let kind: Kind = 'happy';
    for (const [k, w] of kinds) {
      if (x < w) {
        kind = k;
        break;
      }
      x -= w;
    }
    return { i, kind, key: `${prefix}-${i}`, ...(kind === 'review' ? { decision: r.chance(0.5) ? 'Approved' : 'Rejected' } : {}) } as Item;
  });
}

/** Expected final statuses (in-order oracle). A decided review ends like happy/reject; an undecided one waits (AUTHORIZED). */
export function expected(it: Item): string[] {
  // the oracle follows what happened: a review whose decision the platform never took (not yet held when we
  // tried) is still waiting
  if (it.kind === 'review' && it.decision && it.decided) return it.decision === 'Approved' ? ['COMPLETED'] : ['VOIDED'];
  // a 3DS challenge nobody answers outlives its quote: the watchdog expires the transfer (no money moved)
  if (it.kind === 'threeds' && it.quoteExpiresAt !== undefined && Date.now() > it.quoteExpiresAt) return ['ACTION_REQUIRED', 'EXPIRED'];
  return IN_ORDER[it.kind];
}

export interface Target {
  /** The service's origin now (a kill storm's restarts keep it). */
  url: () => string;
  customer: string;
  staff: string;
  personId: string;
}

/**
 * A retry of createTransfer with the SAME key and arguments after the service died answered QUOTE_ALREADY_USED:
 * the first attempt committed the transfer but died before the idempotency record stored its result, and the
 * retry did not find it (fixed; regression test test/chaos/idempotency-crash.repro.test.ts). The transfer exists
 * and moves money; the client was told it failed. Not caught by the scenarios: a recurrence fails the run.
 */
export class RetryAfterCrashRefused extends Error {}

/** Creates one transfer, retrying the same key through a dead or busy service, for up to `patienceMs`. */
export async function createOne(t: Target, it: Item, patienceMs = 120_000): Promise<{ attempts: number }> {
  const end = Date.now() + patienceMs;
  let quoteId: string | null = null;
  let attempts = 0;
  for (;;) {
    attempts++;
    try {
      quoteId ??= await newQuote(t.url(), t.customer);
      it.quoteExpiresAt = quoteExpiry.get(quoteId);
      const r = await gqlRaw(t.url(), CREATE, { i: kindInput(it.kind, quoteId, t.personId, it.key) }, t.customer);
      const id = r.body?.data?.createTransfer?.id;
      if (id) {
        it.id = id;
        return { attempts };
      }
      const c = code(r);
      if (c === 'QUOTE_ALREADY_USED' && attempts > 1)
        throw new RetryAfterCrashRefused(`createTransfer ${it.key}: the retry with the same key and arguments answered QUOTE_ALREADY_USED`);
      if (c === 'QUOTE_EXPIRED') quoteId = null; // a long outage: a new quote means a new transfer request
      if (c === 'QUOTE_EXPIRED' || c === 'IDEMPOTENCY_KEY_REUSED') it.key = `${it.key}r`;
      else if (
        r.status !== 0 &&
        c !== 'UPSTREAM_UNAVAILABLE' &&
        c !== 'SERVICE_UNAVAILABLE' &&
        c !== 'RATE_LIMITED' &&
        !/in progress|IN_PROGRESS/i.test(r.text)
      )
        throw new Error(`createTransfer ${it.key}: ${r.status} ${r.text.slice(0, 300)}`);
    } catch (e) {
      if (e instanceof RetryAfterCrashRefused) throw e;
      if (!/createQuote: 0 |fetch failed/.test((e as Error).message) && !(e as Error).message.startsWith('createQuote: 5')) throw e;
    }
    if (Date.now() > end) throw new Error(`createTransfer ${it.key}: no answer within ${patienceMs} ms`);
    await sleep(150);
  }
}

/** Decides held transactions once they reach ManualReview (409 until then); returns the decisions made. */
export async function decideReviews(controlUrl: string, items: Item[], deadline: number): Promise<number> {
  let decided = 0;
  const pending = items.filter((it) => it.kind === 'review' && it.id && !it.decided);
  while (pending.some((it) => !it.decided) && Date.now() < deadline) {
    for (const it of pending.filter((x) => !x.decided)) {
      const res = await fetch(`${controlUrl}/transactions/${it.id}/compliance`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ decision: it.decision }),
      }).catch(() => null);
      if (res?.ok) {
        it.decided = true;
        decided++;
      }
      await res?.body?.cancel().catch(() => undefined);
    }
    await sleep(200);
  }
  return decided;
}

/** Polls the service (as back-office) until every transfer is in its expected final status, or the time is up. */
export async function awaitFinal(t: Target, items: Item[], timeoutMs: number): Promise<TransferView[]> {
  const end = Date.now() + timeoutMs;
  let views: TransferView[] = [];
  for (;;) {
    try {
      views = await readTransfers(
        t.url(),
        t.staff,
        items.map((it) => it.id!),
      );
      if (views.every((v, k) => expected(items[k]!).includes(v.status))) return views;
      // anything terminal but not the oracle's answer will never change: no point waiting for it
      if (views.every((v, k) => expected(items[k]!).includes(v.status) || TERMINAL.includes(v.status)) && Date.now() > end - timeoutMs / 2)
        return views;
    } catch {
      /* the service may be restarting */
    }
    if (Date.now() > end) return views;
    await sleep(500);
  }
}

/** The in-order oracle: every transfer ends where in-order delivery takes it; otherwise a violation naming it. */
export function oracle(items: Item[], views: TransferView[]): string[] {
  const v: string[] = [];
  if (views.length !== items.length) return [`only ${views.length} of ${items.length} transfers could be read`];
  for (const [k, it] of items.entries()) {
    const view = views[k]!;
    if (!expected(it).includes(view.status))
      v.push(
        `transfer ${it.id} (${it.kind}${it.decision ? ` ${it.decision}${it.decided ? ' decided' : ' not decided'}` : ''}): ${view.status}, in-order delivery gives ${expected(it).join('|')}`,
      );
  }
  return v;
}

export function statusCounts(views: TransferView[]): string {
  const m = new Map<string, number>();
  for (const x of views) m.set(x.status, (m.get(x.status) ?? 0) + 1);
  return [...m]
    .sort()
    .map(([s, n]) => `${s} ${n}`)
    .join(' ');
}
