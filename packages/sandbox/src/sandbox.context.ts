/**
 * The sandbox's shared core: clock, call log, faults, seeded randomness and the internal event bus that
 * links the simulated gateway to the simulated remittances platform.
 *
 * The sandbox is an independent implementation of the three upstream API specifications: this package imports
 * nothing from the service (its upstream clients, its modules, ...) so that tests catch our clients' mistakes.
 */
import { EventEmitter } from 'node:events';

export type SandboxService = 'gateway' | 'remittances' | 'verification' | 'control';

export interface SandboxCall {
  service: SandboxService;
  method: string;
  path: string;
  status: number;
  at: string; // ISO 8601, sandbox clock
  idempotencyKey: string | null; // externalPaymentId (body or path) when the request carries one
}

export interface SandboxFaults {
  latencyMs: number;
  errorRate: number; // 0..1: answer 503 without doing anything
  dropResponseAfterCommitRate: number; // 0..1: do the work, then destroy the socket without answering
  webhookDuplicateRate: number; // 0..1: deliver an event twice
  webhookShuffle: boolean; // deliver queued events in a shuffled order
  webhookDelayMs: number; // extra delay before each delivery (jittered by the seeded rng)
  seed: number;
}

export const DEFAULT_FAULTS: SandboxFaults = {
  latencyMs: 0,
  errorRate: 0,
  dropResponseAfterCommitRate: 0,
  webhookDuplicateRate: 0,
  webhookShuffle: false,
  webhookDelayMs: 0,
  seed: 1,
};

/** Facts the gateway publishes for the remittances platform's transaction lifecycle. */
export interface PaymentFacts {
  paymentId: string;
  externalPaymentId: string;
  amount: { total: number; currency: string };
  recipientAmount: { total: number; currency: string };
  senderLastName: string;
  /** The recipient's last name (`Payout-Reject`: the platform cannot pay out). */
  recipientLastName: string;
}

export interface SandboxBusEvents {
  'payment.authorized': [PaymentFacts];
  'payment.declined': [PaymentFacts];
  'payment.captured': [PaymentFacts & { capturedAmount: number }];
  'payment.voided': [PaymentFacts];
  'payment.cancelled': [PaymentFacts]; // 7-day auto-cancel
  'payment.refunded': [PaymentFacts & { refundAmount: number; externalRefundId: string }]; // a new refund (not a replay)
  reset: [];
  'clock.advanced': [number]; // seconds
}

export class SandboxBus extends EventEmitter<SandboxBusEvents> {}

/** mulberry32: small, fast, seeded, reproducible. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export interface SandboxOptions {
  /** Seconds an FX quote stays valid (default 300). */
  quoteLifetimeS: number;
  /** Seconds a gateway access token lives (default 3600). */
  gatewayTokenLifetimeS: number;
  /** Seconds a verification-session access token lives (default 3600). */
  verificationTokenLifetimeS: number;
  /** Real milliseconds between two steps of a transaction's simulated lifecycle (default 50). */
  lifecycleStepMs: number;
  /** Requests per minute per client before 429, for the alias directory quota (default 60). */
  aliasQuotaPerMinute: number;
  /** Remittances platform requests per second per API key before 429 (default 200). */
  remittancesRatePerSecond: number;
  /** Webhook delivery retry schedule, real milliseconds (default [200, 1000, 5000, 30000]). */
  webhookRetryDelaysMs: number[];
  /** Remittances platform tenant id (default sandbox-tenant). */
  remittancesTenantId: string;
  /** Remittances platform tenant API key, header x-api-key (default sandbox-api-key). */
  remittancesApiKey: string;
  /** Pre-approved remittances agent id, header x-agent-id (default 00000000-0000-4000-8000-00000000a9e7). */
  remittancesAgentId: string;
  /** Pre-approved remittances agent API key, header x-agent-api-key (default sandbox-agent-key). */
  remittancesAgentApiKey: string;
  /** Real milliseconds a webhook delivery attempt may take before it counts as unreachable (default 2000). */
  webhookTimeoutMs: number;
  /** First attempts in flight at once per subscription, each for a different transaction (default 64; 1 = one at a time). */
  webhookConcurrency: number;
  /** Verification-session API OAuth clients (client credentials). */
  verificationClients: SandboxVerificationClient[];
  /** Gateway client credentials accepted by POST /gateway/oauth/token (default sandbox-client / sandbox-secret). */
  gatewayClientId: string;
  gatewayClientSecret: string;
  /** Seconds an uncaptured gateway authorization lives before the automatic cancel (default 7 days). */
  authorizationLifetimeS: number;
  /** Starting payer balance (major units) per currency of every gateway provider (default 1000000). */
  payerInitialBalance: number;
  /**
   * The real time in ms, as the receivers of webhooks see it: what a delivery's signature timestamp says (default
   * Date.now; never the sandbox clock). The service's built-in sandbox is given the service's own clock, so a test
   * that moves both clocks together still gets deliveries its receiver accepts.
   */
  wallClockMs?: () => number;
}

export interface SandboxVerificationClient {
  clientId: string;
  clientSecret: string;
  tenantId: string;
  scopes: string[];
}

export const DEFAULT_OPTIONS: SandboxOptions = {
  quoteLifetimeS: 300,
  gatewayTokenLifetimeS: 3600,
  verificationTokenLifetimeS: 3600,
  lifecycleStepMs: 50,
  aliasQuotaPerMinute: 60,
  remittancesRatePerSecond: 200,
  webhookRetryDelaysMs: [200, 1000, 5000, 30000],
  remittancesTenantId: 'sandbox-tenant',
  remittancesApiKey: 'sandbox-api-key',
  remittancesAgentId: '00000000-0000-4000-8000-00000000a9e7',
  remittancesAgentApiKey: 'sandbox-agent-key',
  webhookTimeoutMs: 2000,
  webhookConcurrency: 64,
  gatewayClientId: 'sandbox-client',
  gatewayClientSecret: 'sandbox-secret',
  authorizationLifetimeS: 7 * 24 * 3600,
  payerInitialBalance: 1_000_000,
  verificationClients: [
    {
      clientId: 'sandbox-verification',
      clientSecret: 'sandbox-verification-secret',
      tenantId: 'sandbox-tenant',
      scopes: ['sessions', 'verifications'],
    },
    {
      clientId: 'sandbox-verification-2',
      clientSecret: 'sandbox-verification-secret-2',
      tenantId: 'other-tenant',
      scopes: ['sessions', 'verifications'],
    },
  ],
};

export class SandboxContext {
  /** Offset in ms added to the real clock by POST /__sandbox/clock. */
  private clockOffsetMs = 0;
  readonly calls: SandboxCall[] = [];
  faults: SandboxFaults = { ...DEFAULT_FAULTS };
  random: () => number = seededRandom(DEFAULT_FAULTS.seed);
  readonly bus = new SandboxBus();
  /** Set once the server listens, e.g. http://127.0.0.1:4010 (used for 3DS pages and self links). */
  publicOrigin = 'http://127.0.0.1:4010';
  /** True when the server runs TLS and the remittances API must refuse connections without a valid client cert. */
  tlsClientAuthRequired = false;

  constructor(readonly options: SandboxOptions = { ...DEFAULT_OPTIONS }) {
    this.bus.setMaxListeners(100);
  }

  nowMs(): number {
    return Date.now() + this.clockOffsetMs;
  }
  now(): Date {
    return new Date(this.nowMs());
  }
  advanceClock(seconds: number): void {
    this.clockOffsetMs += seconds * 1000;
    this.bus.emit('clock.advanced', seconds);
  }
  /**
   * Back to the real time (the only way back: the clock never runs backwards by an amount). State is kept as it is:
   * what changed while the clock was ahead (an authorization auto-cancelled) stays changed; what is judged against
   * the clock when asked (a quote's or a token's expiry) is judged on the real time again.
   */
  resetClock(): void {
    this.clockOffsetMs = 0;
  }

  setFaults(patch: Partial<SandboxFaults>): SandboxFaults {
    this.faults = { ...this.faults, ...patch };
    if (patch.seed !== undefined) this.random = seededRandom(patch.seed);
    return this.faults;
  }

  reset(): void {
    this.clockOffsetMs = 0;
    this.calls.length = 0;
    this.faults = { ...DEFAULT_FAULTS };
    this.random = seededRandom(DEFAULT_FAULTS.seed);
    this.bus.emit('reset');
  }

  recordCall(call: Omit<SandboxCall, 'at'>): void {
    this.calls.push({ ...call, at: this.now().toISOString() });
  }

  /** The real time in ms (options.wallClockMs, else Date.now): what webhook signatures carry, whatever the sandbox clock says. */
  wallNowMs(): number {
    return this.options.wallClockMs ? this.options.wallClockMs() : Date.now();
  }

  /** Milliseconds the sandbox clock is ahead of the real clock. */
  clockOffset(): number {
    return this.clockOffsetMs;
  }

  /**
   * Raw requests (IncomingMessage) whose call was already recorded by the handler itself, e.g. a response
   * dropped by the dropResponseAfterCommit fault; the server's onResponse hook skips them.
   */
  readonly recordedRequests = new WeakSet<object>();

  /** Draws from the seeded rng only when the fault is on: true when this response must be dropped after commit. */
  shouldDropAfterCommit(): boolean {
    const rate = this.faults.dropResponseAfterCommitRate;
    return rate > 0 && this.random() < rate;
  }
}
