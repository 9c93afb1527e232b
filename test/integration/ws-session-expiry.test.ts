/**
 * A graphql-ws session lives as long as its token (src/graphql/ws.ts): at the token's exp the socket is closed
 * with 4403 "Token expired" (a timer per socket), and an operation arriving after exp never runs even when the
 * timer has not fired yet (checked before each operation). The token cannot be swapped on an open socket.
 */
import WebSocket from 'ws';
import { gql, startTestApp, type TestApp } from '../helpers/app';
import { clearSandboxCalls, sandboxCalls } from '../helpers/surface';
import { collect, rawSocketClose, wsClient } from '../helpers/ws';
import { systemClock, type Clock } from '../../src/shared/clock';
import { within } from '../helpers/wait';

/** The system clock, unless moved ahead by hand (the expiry timers themselves run on real time). */
class AheadClock implements Clock {
  aheadMs = 0;
  nowMs = () => systemClock.nowMs() + this.aheadMs;
  now = () => new Date(this.nowMs());
}

const clock = new AheadClock();
let t: TestApp;
let admin: string;

beforeAll(async () => {
  t = await startTestApp({}, { clock });
  admin = await t.token('expiry-admin', 'admin');
}, 90_000);
afterAll(() => t?.close());
afterEach(() => (clock.aheadMs = 0));

const publish = (message: string) =>
  gql<any>(t.url, `mutation($m: String!) { publishSystemNotice(input: { message: $m, severity: INFO }) { id } }`, {
    token: admin,
    variables: { m: message },
  });
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A socket with an hour-long token, following systemNotices, known to be connected (a query answered). */
async function hourLongSession(sub: string) {
  const { client, closed } = wsClient(t.wsUrl, await t.app.auth.issueDevToken(sub, 'customer', 3600));
  const notices = collect<any>(client, 'subscription { systemNotices { message } }');
  const first = collect<any>(client, '{ viewer { id } }');
  await first.next(1);
  expect(first.results[0]!.data).toEqual({ viewer: { id: sub } });
  return { client, closed, sub: notices };
}

describe('websocket sessions end with their token', () => {
  it('at exp the socket is closed with 4403 "Token expired" and the subscription receives nothing more', async () => {
    const token = await t.app.auth.issueDevToken('expiring-user', 'customer', 2);
    const { client, closed } = wsClient(t.wsUrl, token);
    const notices = collect<any>(client, '{ viewer { id } }');
    await notices.next(1);
    expect(notices.results[0]!.data).toEqual({ viewer: { id: 'expiring-user' } });
    const sub = collect<any>(client, 'subscription { systemNotices { message } }');
    await sleep(200);
    await publish('before exp');
    await sub.next(1);
    expect(sub.results[0]!.data.systemNotices.message).toBe('before exp');

    const end = await within(closed, 6_000);
    expect(end).toEqual({ code: 4403, reason: 'Token expired' });
    await publish('after exp');
    await sleep(300);
    expect(sub.results).toHaveLength(1);
    await client.dispose();
  }, 20_000);

  it('an operation after exp never runs, even before the timer fires: the socket closes 4403', async () => {
    const { client, closed, sub } = await hourLongSession('late-user');

    clock.aheadMs = 3601_000; // the token is past exp; its timer (armed for an hour) has not fired
    await clearSandboxCalls(t);
    const late = collect<any>(client, 'mutation { createWallet(input: { currency: "USD" }) { id } }');
    await late.next(1).catch(() => undefined);
    expect(await within(closed, 3_000)).toEqual({ code: 4403, reason: 'Token expired' });
    expect(late.results.filter((r) => r.data)).toEqual([]);
    expect(await sandboxCalls(t, '/gateway')).toEqual([]);
    expect(sub.results).toEqual([]);
    await client.dispose();
  }, 20_000);

  it('a subscription event after exp is not delivered, even before the timer fires', async () => {
    const { client, closed, sub } = await hourLongSession('late-sub-user');
    clock.aheadMs = 3601_000;
    await publish('after exp');
    expect(await within(closed, 3_000)).toEqual({ code: 4403, reason: 'Token expired' });
    expect(sub.results).toEqual([]);
    await client.dispose();
  }, 20_000);

  it('the token cannot be swapped: a second connection_init closes the socket, and a token in a later message is ignored', async () => {
    const [mine, other] = await Promise.all([t.token('swap-me', 'customer'), t.token('swap-other', 'admin')]);
    const close = await rawSocketClose(t.wsUrl, (ws: WebSocket) => {
      ws.send(JSON.stringify({ type: 'connection_init', payload: { authorization: `Bearer ${mine}` } }));
      ws.once('message', () => ws.send(JSON.stringify({ type: 'connection_init', payload: { authorization: `Bearer ${other}` } })));
    });
    expect(close.code).toBe(4429);

    const { client } = wsClient(t.wsUrl, mine);
    const results: any[] = [];
    await new Promise<void>((resolve, reject) =>
      client.subscribe(
        {
          query: '{ viewer { id role } }',
          extensions: { authorization: `Bearer ${other}` },
          variables: { authorization: `Bearer ${other}` },
        },
        { next: (v) => results.push(v), error: reject, complete: resolve },
      ),
    );
    expect(results[0].data).toEqual({ viewer: { id: 'swap-me', role: 'CUSTOMER' } });
    await client.dispose();
  });

  it('an already expired token is refused at connection_init (4403)', async () => {
    clock.aheadMs = -3 * 3600_000;
    const old = await t.app.auth.issueDevToken('old-user', 'customer', 60);
    clock.aheadMs = 0;
    const { client, closed } = wsClient(t.wsUrl, old);
    const r = collect<any>(client, '{ viewer { id } }');
    await r.next(1).catch(() => undefined);
    expect((await closed).code).toBe(4403);
    expect(r.results).toEqual([]);
    await client.dispose();
  });
});
