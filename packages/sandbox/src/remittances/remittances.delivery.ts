/**
 * Webhook delivery of the simulated remittances platform.
 *
 * - One POST per event and matching subscription (names match case-insensitively; the payload's `event`
 *   field is the subscription's registered spelling). Content-Type application/json.
 * - Signed when the subscription has a secret: `X-Service-Signature: t=<unix seconds, real time>,v1=<hex
 *   HMAC-SHA256(secret, t + "." + body)>`, computed at each attempt with the secret current at that moment
 *   (rotation applies at once, no grace period; after DELETE .../secret the header is absent). `t` says when the
 *   request was signed, for the receiver's replay window (its own clock, ±300 s): it is the real time
 *   (options.wallClockMs), never the sandbox clock — moving the sandbox clock (quote expiry, auto-cancel) must not make every later delivery fail
 *   its signature. What the events report (times in the payload) stays on the sandbox clock.
 * - Per subscription and transaction, first attempts go out one at a time in publication order (so a
 *   transaction's happy path arrives in order); different transactions' events go out concurrently, at most
 *   options.webhookConcurrency (default 64) in flight per subscription — the platform's contract promises no
 *   order ("possibly duplicated, out of order or delayed"), and one at a time per subscription capped a busy
 *   receiver at one round trip per event. Events of no transaction (documents, agents) share one ordered lane.
 *   A failed attempt (non-2xx, timeout, connection error) is retried on its own after
 *   options.webhookRetryDelaysMs[n] (default 200 ms, 1 s, 5 s, 30 s: 5 attempts in all), then given up.
 *   Deliveries to a deleted subscription stop. Reset cancels everything in flight.
 * - Faults (ctx.faults), all drawn from the seeded ctx.random so a seed reproduces a run:
 *   webhookDuplicateRate: the event is delivered twice (same body);
 *   webhookShuffle: a transaction's events are held while its lifecycle runs and delivered in a shuffled
 *   order each time it pauses (waiting for capture / review / a terminal status);
 *   webhookDelayMs: each delivery waits an extra webhookDelayMs × [0.5, 1.5) before its first attempt.
 */
import { createHmac } from 'node:crypto';
import { Agent, request } from 'undici';
import type { SandboxContext } from '../sandbox.context';
import { registeredSpelling, type EventName } from './remittances.events';
import { TimerSet, uuid } from './remittances.util';
import { MAX_DELIVERY_RECORDS, type DeliveryRecord, type Subscription, type WebhookStore } from './remittances.webhooks';

export const SIGNATURE_HEADER = 'x-service-signature';

interface DeliveryJob {
  deliveryId: string;
  sub: Subscription;
  /** Ordering lane within the subscription: the transaction id, '' for events of no transaction. */
  lane: string;
  event: string;
  body: string;
  attempt: number;
  duplicate: boolean;
}

export function signatureHeader(secret: string, t: number, body: string): string {
  const v1 = createHmac('sha256', secret).update(`${t}.${body}`, 'utf8').digest('hex');
  return `t=${t},v1=${v1}`;
}

export class WebhookDelivery {
  private readonly timers = new TimerSet();
  /** Per subscription: its lanes' queued first attempts, the lanes ready to send (FIFO), the pumps running. */
  private readonly subs = new Map<string, { lanes: Map<string, { jobs: DeliveryJob[]; busy: boolean }>; ready: string[]; pumps: number }>();
  private readonly held = new Map<string, DeliveryJob[]>();
  private readonly inFlight = new Set<AbortController>();
  private epoch = 0;
  private agent: Agent | null = null;

  constructor(
    private readonly ctx: SandboxContext,
    private readonly store: WebhookStore,
  ) {}

  /**
   * Publishes an event to every matching subscription of the tenant. `group` (a transaction id) lets
   * webhookShuffle hold the group's events until flush(group).
   */
  publish(tenantId: string, event: EventName, payload: Record<string, unknown>, group?: string): void {
    for (const sub of this.store.byTenant(tenantId)) {
      const spelling = registeredSpelling(sub.events, event);
      if (!spelling) continue;
      const body = JSON.stringify({ event: spelling, ...payload });
      const job: DeliveryJob = { deliveryId: uuid(), sub, lane: group ?? '', event: spelling, body, attempt: 0, duplicate: false };
      const jobs = [job];
      const { webhookDuplicateRate } = this.ctx.faults;
      if (webhookDuplicateRate > 0 && this.ctx.random() < webhookDuplicateRate) jobs.push({ ...job, duplicate: true });
      if (group !== undefined && this.ctx.faults.webhookShuffle) {
        const list = this.held.get(group) ?? [];
        list.push(...jobs);
        this.held.set(group, list);
      } else {
        for (const j of jobs) this.dispatch(j);
      }
    }
  }

  /** Releases a group's held events (shuffled with the seeded rng). */
  flush(group: string): void {
    const jobs = this.held.get(group);
    if (!jobs) return;
    this.held.delete(group);
    for (let i = jobs.length - 1; i > 0; i--) {
      const k = Math.floor(this.ctx.random() * (i + 1));
      [jobs[i], jobs[k]] = [jobs[k], jobs[i]];
    }
    for (const j of jobs) this.dispatch(j);
  }

  reset(): void {
    this.epoch++;
    this.timers.clear();
    this.subs.clear();
    this.held.clear();
    for (const c of this.inFlight) c.abort();
    this.inFlight.clear();
  }

  async close(): Promise<void> {
    this.reset();
    const agent = this.agent;
    this.agent = null;
    if (agent) await agent.destroy().catch(() => undefined);
  }

  private dispatch(job: DeliveryJob): void {
    const { webhookDelayMs } = this.ctx.faults;
    if (webhookDelayMs > 0) {
      const delay = Math.round(webhookDelayMs * (0.5 + this.ctx.random()));
      this.timers.after(delay, () => this.enqueue(job));
    } else {
      this.enqueue(job);
    }
  }

  private enqueue(job: DeliveryJob): void {
    let s = this.subs.get(job.sub.id);
    if (!s) this.subs.set(job.sub.id, (s = { lanes: new Map(), ready: [], pumps: 0 }));
    let lane = s.lanes.get(job.lane);
    if (!lane) s.lanes.set(job.lane, (lane = { jobs: [], busy: false }));
    lane.jobs.push(job);
    if (!lane.busy && lane.jobs.length === 1) s.ready.push(job.lane);
    if (s.pumps < Math.max(1, this.ctx.options.webhookConcurrency ?? 64)) {
      s.pumps++;
      this.pump(s).catch(reportDeliveryBug);
    }
  }

  /** Sends the head of the oldest ready lane, one lane at a time per pump, until no lane is ready. */
  private async pump(s: { lanes: Map<string, { jobs: DeliveryJob[]; busy: boolean }>; ready: string[]; pumps: number }): Promise<void> {
    const epoch = this.epoch;
    try {
      for (let key = s.ready.shift(); key !== undefined; key = s.ready.shift()) {
        const lane = s.lanes.get(key)!;
        const job = lane.jobs.shift()!;
        lane.busy = true;
        await this.attempt(job);
        if (epoch !== this.epoch) return;
        lane.busy = false;
        if (lane.jobs.length > 0) s.ready.push(key);
        else s.lanes.delete(key);
      }
    } finally {
      s.pumps--;
    }
  }

  private async attempt(job: DeliveryJob): Promise<void> {
    const epoch = this.epoch;
    const { sub } = job;
    if (!this.store.isLive(sub)) return; // subscription deleted: stop
    job.attempt++;
    const headers: Record<string, string> = {
      'content-type': 'application/json',
      accept: 'application/json',
      'user-agent': 'remittances-sandbox-webhooks/1',
    };
    const secret = sub.secret;
    if (secret) headers[SIGNATURE_HEADER] = signatureHeader(secret, Math.floor(this.ctx.wallNowMs() / 1000), job.body); // real time (see above)
    const controller = new AbortController();
    this.inFlight.add(controller);
    let status: number | null = null;
    let error: string | undefined;
    const timeout = this.ctx.options.webhookTimeoutMs ?? 2000;
    const timer = setTimeout(() => controller.abort(), timeout);
    try {
      const res = await request(sub.url, {
        method: 'POST',
        headers,
        body: job.body,
        signal: controller.signal,
        headersTimeout: timeout,
        bodyTimeout: timeout,
        dispatcher: this.dispatcher(),
      });
      status = res.statusCode;
      await res.body.dump().catch(() => undefined);
    } catch (e) {
      error = controller.signal.aborted ? 'timeout' : e instanceof Error ? e.message : String(e);
    } finally {
      clearTimeout(timer);
      this.inFlight.delete(controller);
    }
    if (epoch !== this.epoch) return; // reset while in flight
    const ok = status !== null && status >= 200 && status < 300;
    const delays = this.ctx.options.webhookRetryDelaysMs;
    const willRetry = !ok && job.attempt <= delays.length;
    const record: DeliveryRecord = {
      deliveryId: job.deliveryId,
      event: job.event,
      attempt: job.attempt,
      status,
      outcome: ok ? 'delivered' : status === null ? 'unreachable' : 'failed',
      willRetry,
      signed: secret !== null,
      duplicate: job.duplicate,
      at: this.ctx.now().toISOString(),
    };
    if (error) record.error = error;
    sub.deliveries.push(record);
    if (sub.deliveries.length > MAX_DELIVERY_RECORDS) sub.deliveries.splice(0, sub.deliveries.length - MAX_DELIVERY_RECORDS);
    if (willRetry) this.timers.after(delays[job.attempt - 1], () => void this.attempt(job).catch(reportDeliveryBug));
  }

  private dispatcher(): Agent {
    if (!this.agent) {
      const t = this.ctx.options.webhookTimeoutMs ?? 2000;
      this.agent = new Agent({ connect: { timeout: t }, keepAliveTimeout: 1000, headersTimeout: t, bodyTimeout: t });
    }
    return this.agent;
  }
}

/** A delivery's own failures are recorded on it (attempt catches them); anything else is a bug of the sandbox's. */
function reportDeliveryBug(err: unknown): void {
  process.emitWarning(`sandbox webhook delivery failed: ${err instanceof Error ? err.message : String(err)}`);
}
