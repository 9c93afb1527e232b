/**
 * The load generator, in its own process (pinned to the other core): autocannon for HTTP, N websocket
 * subscribers, and the saga driver. Commands: http, wsConnect, wsArm, wsWait, wsClose, sagaPrepare, saga.
 */
import { randomUUID } from 'node:crypto';
import autocannon from 'autocannon';
import { request } from 'undici';
import WebSocket from 'ws';
import { percentile, serveCommands, wallMs } from './rpc';
import { checkCardAs, personInput, RECIPIENT } from '../helpers/funding';
import { signatureHeaderFor } from '../../src/modules/webhook/webhook.signature';

export interface HttpRun {
  url: string;
  method?: 'GET' | 'POST';
  headers?: Record<string, string>;
  body?: string;
  connections: number;
  durationS: number;
  /**
   * A closed window instead of a timed one: exactly `amount` requests, and the run returns only once every
   * one of them was answered (autocannon stops issuing at the count; nothing is left in flight).
   */
  amount?: number;
  /** Each request a new signed document event (benchmark 3). */
  webhook?: { secret: string };
}

export interface HttpResult {
  rps: number;
  /** Responses received (any status). */
  total: number;
  /** Requests written (includes those still in flight when a timed run closed its connections). */
  sent: number;
  ok: number;
  non2xx: number;
  errors: number;
  timeouts: number;
  p50: number;
  p99: number;
  mean: number;
  durationS: number;
}

const nonce = randomUUID().slice(0, 8);
let seq = 0;

async function http(run: HttpRun): Promise<HttpResult> {
  const opts: autocannon.Options = {
    url: run.url,
    method: run.method ?? 'POST',
    headers: run.headers,
    body: run.body,
    connections: run.connections,
    ...(run.amount ? { amount: run.amount } : { duration: run.durationS }),
  };
  if (run.webhook) {
    const secret = run.webhook.secret;
    opts.requests = [
      {
        method: 'POST',
        setupRequest: (req: any) => {
          const n = ++seq;
          const body = JSON.stringify({
            event: 'DocumentUpdatedEvents',
            id: `doc-${nonce}-${n}`,
            entityId: '22222222-2222-4222-8222-222222222222',
            entityType: 'Participant',
            documentType: 'PASSPORT',
            verificationStatus: 'VERIFIED',
            occurredAt: new Date().toISOString(),
            tenantId: 'sandbox-tenant',
            version: 1,
          });
          return {
            ...req,
            body,
            headers: {
              ...req.headers,
              'content-type': 'application/json',
              'x-service-signature': signatureHeaderFor(secret, Math.floor(Date.now() / 1000), body),
            },
          };
        },
      },
    ];
  }
  const r = (await autocannon(opts)) as autocannon.Result;
  const ok = r['2xx'];
  return {
    rps: ok / r.duration,
    total: r.requests.total,
    sent: r.requests.sent,
    ok,
    non2xx: r.non2xx,
    errors: r.errors,
    timeouts: r.timeouts,
    p50: r.latency.p50,
    p99: r.latency.p99,
    mean: r.latency.mean,
    durationS: r.duration,
  };
}

// ── websocket subscribers ──────────────────────────────────────────────────────────────────────────
interface Sub {
  ws: WebSocket;
  /** Subscriptions on this socket: each sends one message per change. */
  expect: number;
  armed: boolean;
  /** Arrival times of the messages since armed (one per subscription). */
  at: number[];
  /** graphql-ws: which subscriptions (by operation id, 1…expect) have had their message since armed. */
  got: Uint8Array | null;
  last: string;
}
let subs: Sub[] = [];
/** Armed sockets still waiting for a message of one of their subscriptions, and who to tell when none is left. */
let armedLeft = 0;
/** Messages the armed sockets expect in all: one per subscription. */
let armedExpected = 0;
let allReceived: (() => void) | null = null;

/**
 * One subscriber socket. `raw`: a plain websocket (`perSocket` messages expected per broadcast); `graphql-ws`:
 * connection_init, then `perSocket` subscriptions of the same document (ready once each sent its first message, the
 * current state); `graphql-ws-idle`: connection_init only (ready at connection_ack) — what a connected app costs
 * before it subscribes.
 */
type SocketMode = 'graphql-ws' | 'graphql-ws-idle' | 'raw';
function openOne(url: string, mode: SocketMode, token: string, query: string, variables: unknown, perSocket: number): Promise<Sub> {
  return new Promise((resolve, reject) => {
    const ws = mode === 'raw' ? new WebSocket(url) : new WebSocket(url, 'graphql-transport-ws');
    const expect = mode === 'graphql-ws-idle' ? 1 : perSocket;
    const sub: Sub = { ws, expect, armed: false, at: [], got: mode === 'graphql-ws' ? new Uint8Array(expect + 1) : null, last: '' };
    const timer = setTimeout(() => reject(new Error('subscriber: no first message within 60 s')), 60_000);
    let ready = false;
    let first = 0; // subscriptions that sent their first message
    ws.on('error', (e) => !ready && (clearTimeout(timer), reject(e)));
    ws.on('open', () => {
      if (mode === 'raw') {
        ready = true;
        clearTimeout(timer);
        resolve(sub);
        return;
      }
      ws.send(JSON.stringify({ type: 'connection_init', payload: { authorization: `Bearer ${token}` } }));
    });
    ws.on('message', (data) => {
      const now = wallMs();
      const text = data.toString();
      if (sub.armed && sub.at.length < sub.expect) {
        // a subscription's message counts once: by its operation id where the socket carries subscriptions
        const id = sub.got ? nextId(text) : 0;
        if (!sub.got || (id > 0 && id <= sub.expect && sub.got[id] === 0)) {
          if (sub.got) sub.got[id] = 1;
          sub.at.push(now);
          if (sub.at.length === sub.expect && --armedLeft === 0) allReceived?.();
        }
      }
      sub.last = text;
      if (ready) return;
      const m = JSON.parse(text) as { type: string; payload?: unknown };
      if (m.type === 'connection_ack' && mode === 'graphql-ws-idle') {
        ready = true;
        clearTimeout(timer);
        resolve(sub);
      } else if (m.type === 'connection_ack')
        for (let i = 1; i <= perSocket; i++) ws.send(JSON.stringify({ id: String(i), type: 'subscribe', payload: { query, variables } }));
      else if (m.type === 'next') {
        if (++first < perSocket) return;
        ready = true; // each subscription sent the current state: subscribed
        clearTimeout(timer);
        resolve(sub);
      } else if (m.type === 'error' || m.type === 'complete') {
        clearTimeout(timer);
        reject(new Error(`subscriber: ${text}`));
      }
    });
  });
}

async function wsConnect(a: {
  url: string;
  n: number;
  mode: SocketMode;
  token?: string;
  query?: string;
  variables?: unknown;
  parallel?: number;
  /** Subscriptions per graphql-ws socket, or messages per broadcast on a raw one (1). */
  perSocket?: number;
}) {
  const started = wallMs();
  const parallel = a.parallel ?? 100;
  for (let i = 0; i < a.n; i += parallel) {
    const batch = await Promise.all(
      Array.from({ length: Math.min(parallel, a.n - i) }, () =>
        openOne(a.url, a.mode, a.token ?? '', a.query ?? '', a.variables, a.perSocket ?? 1),
      ),
    );
    subs.push(...batch);
  }
  return { connected: subs.length, ms: wallMs() - started, sample: subs[0]?.last ?? null };
}

/** The operation id of a graphql-ws `next` message (the ids are 1…perSocket), or 0. */
function nextId(text: string): number {
  if (!text.includes('"type":"next"')) return 0;
  const m = /"id":"(\d+)"/.exec(text);
  return m ? Number(m[1]) : 0;
}

function wsArm() {
  for (const s of subs) {
    s.armed = true;
    s.at = [];
    s.got?.fill(0);
  }
  armedLeft = subs.length;
  armedExpected = subs.reduce((n, s) => n + s.expect, 0);
  return armedExpected;
}

/**
 * Waits until every armed subscription got its message (or the timeout); answers the receipt times, one per
 * subscription. Told by the message handlers (no polling: a scan of 10,000 subscribers every few ms would delay the
 * very receipts it times).
 */
async function wsWait(a: { timeoutMs: number }) {
  let timer: NodeJS.Timeout | undefined;
  await new Promise<void>((resolve) => {
    if (armedLeft <= 0) return resolve();
    allReceived = resolve;
    timer = setTimeout(resolve, a.timeoutMs);
  });
  clearTimeout(timer);
  allReceived = null;
  const at = subs.flatMap((s) => s.at);
  for (const s of subs) s.armed = false;
  return { received: at.length, missing: armedExpected - at.length, at, sample: subs[0]?.last ?? null };
}

async function wsClose() {
  const closing = subs.map(
    (s) => new Promise((r) => (s.ws.readyState === WebSocket.CLOSED ? r(null) : (s.ws.once('close', r), s.ws.close()))),
  );
  await Promise.race([Promise.all(closing), new Promise((r) => setTimeout(r, 10_000))]);
  for (const s of subs) s.ws.terminate();
  subs = [];
  return true;
}

// ── saga driver ────────────────────────────────────────────────────────────────────────────────────
async function gql(url: string, token: string, query: string, variables: unknown): Promise<any> {
  const r = await request(`${url}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    body: JSON.stringify({ query, variables }),
  });
  const body = (await r.body.json()) as { data?: any; errors?: unknown };
  if (!body.data || body.errors) throw new Error(`GraphQL error: ${JSON.stringify(body.errors)}`);
  return body.data;
}

const benchCard = (i: number) => `00000000-0000-4000-8000-${String(1000 + (i % 1000)).padStart(12, '0')}`;

/**
 * What the saga benchmark needs before its window: the customer's person, the cards it funds with (a card funds only
 * the transfers of the customer who checked it) and one quote per transfer (valid for minutes). The window then
 * times createTransfer → a final status, as the flow's cost is counted from createTransfer on.
 */
let prepared: { url: string; personId: string; quoteIds: string[]; cards: number } | null = null;

async function sagaPrepare(a: { url: string; token: string; n: number; concurrency: number }) {
  const person = await gql(a.url, a.token, 'mutation($i: PersonInput!) { createPerson(input: $i) { id status } }', { i: personInput() });
  for (let i = 0; i < Math.min(a.n, 1000); i++) await checkCardAs(a.url, a.token, benchCard(i));
  const quoteIds: string[] = new Array(a.n);
  let next = 0;
  await Promise.all(
    Array.from({ length: a.concurrency }, async () => {
      while (next < a.n) {
        const i = next++;
        const q = await gql(a.url, a.token, 'mutation($i: CreateQuoteInput!) { createQuote(input: $i) { id } }', {
          i: { sourceCurrency: 'USD', destinationCurrency: 'BRL', paymentMethod: 'CARD', sourceAmount: '100.00' },
        });
        quoteIds[i] = q.createQuote.id;
      }
    }),
  );
  prepared = { url: a.url, personId: person.createPerson.id as string, quoteIds, cards: Math.max(1, Math.min(a.n, 1000)) };
  return { quotes: quoteIds.length };
}

async function saga(a: { url: string; token: string; n: number; concurrency: number; keyPrefix: string; from?: number }) {
  const from = a.from ?? 0;
  if (prepared?.url !== a.url || prepared.quoteIds.length < from + a.n) throw new Error('sagaPrepare first');
  const { personId, quoteIds } = prepared;
  const started = wallMs();
  const ids: string[] = [];
  let next = from;
  const one = async (i: number) => {
    const t = await gql(a.url, a.token, 'mutation($i: CreateTransferInput!) { createTransfer(input: $i) { id status } }', {
      i: {
        idempotencyKey: `${a.keyPrefix}-${i}`,
        quoteId: quoteIds[i],
        personId,
        recipient: RECIPIENT,
        // ends in 1000–1999: never one of the sandbox's magic card endings (0002–0014: 3DS, failed checks, declines)
        funding: { type: 'CARD', cardToken: benchCard(i) },
      },
    });
    ids.push(t.createTransfer.id);
  };
  await Promise.all(
    Array.from({ length: a.concurrency }, async () => {
      while (next < from + a.n) await one(next++);
    }),
  );
  return { ids, started, created: wallMs() };
}

/** p50/p99/mean of a list of ms (sorted here). */
function latencies(xs: number[]) {
  const s = [...xs].sort((a, b) => a - b);
  return { n: s.length, p50: percentile(s, 50), p99: percentile(s, 99), mean: s.reduce((a, b) => a + b, 0) / Math.max(1, s.length) };
}

/**
 * Benchmark 6: `users` app users at once, each in a loop for `durationS`: createQuote, then createTransfer with that
 * quote (a card checked by sagaPrepare, the transfer's saga running behind). Latency as the app sees it, per
 * operation; an answer with errors counts as an error (and its latency is not counted).
 */
async function appLatency(a: { url: string; token: string; users: number; durationS: number; keyPrefix: string }) {
  if (prepared?.url !== a.url) throw new Error('sagaPrepare first');
  const { personId, cards } = prepared;
  const ms = { createQuote: [] as number[], createTransfer: [] as number[] };
  const errors = { createQuote: 0, createTransfer: 0 };
  const until = wallMs() + a.durationS * 1000;
  let k = 0;
  const timed = async <T>(op: keyof typeof ms, run: () => Promise<T>): Promise<T | null> => {
    const t0 = wallMs();
    try {
      const r = await run();
      ms[op].push(wallMs() - t0);
      return r;
    } catch {
      errors[op]++;
      return null;
    }
  };
  await Promise.all(
    Array.from({ length: a.users }, async () => {
      while (wallMs() < until) {
        const i = k++;
        const q = await timed('createQuote', () =>
          gql(a.url, a.token, 'mutation CreateQuote($i: CreateQuoteInput!) { createQuote(input: $i) { id } }', {
            i: { sourceCurrency: 'USD', destinationCurrency: 'BRL', paymentMethod: 'CARD', sourceAmount: '100.00' },
          }),
        );
        if (!q) continue;
        await timed('createTransfer', () =>
          gql(a.url, a.token, 'mutation CreateTransfer($i: CreateTransferInput!) { createTransfer(input: $i) { id status } }', {
            i: {
              idempotencyKey: `${a.keyPrefix}-${i}`,
              quoteId: q.createQuote.id,
              personId,
              recipient: RECIPIENT,
              funding: { type: 'CARD', cardToken: benchCard(i % cards) },
            },
          }),
        );
      }
    }),
  );
  return { createQuote: latencies(ms.createQuote), createTransfer: latencies(ms.createTransfer), errors };
}

serveCommands({ http, wsConnect, wsArm, wsWait, wsClose, sagaPrepare, saga, appLatency }, async () => void (await wsClose()));
