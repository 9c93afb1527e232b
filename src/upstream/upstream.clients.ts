import { readFileSync } from 'node:fs';
import type { Config } from '../config';
import type { Clock } from '../shared/clock';
import type { Logger } from '../shared/logger';
import type { Metrics } from '../shared/metrics';
import { GatewayClient } from './gateway/gateway.client';
import { UpstreamCaller } from './http/upstream.caller';
import type { RetryEnv, RetryPolicy } from './http/upstream.retry';
import { UpstreamTransport, type TlsIdentity, type TransportOptions } from './http/upstream.transport';
import { RemittancesClient } from './remittances/remittances.client';
import { VerificationClient } from './verification/verification.client';

export interface UpstreamClients {
  gateway: GatewayClient;
  remittances: RemittancesClient;
  verification: VerificationClient;
  /** The shared transport (one pool per origin). */
  transport: UpstreamTransport;
  /** Closes every pool (in-flight requests get a short grace period). */
  close(): Promise<void>;
}

interface UpstreamDeps {
  clock: Clock;
  metrics: Metrics;
  logger: Logger;
  /** Tests: injected sleep/random for retry backoff. */
  retryEnv?: Partial<RetryEnv>;
  /** Base URLs when config leaves them null (the built-in sandbox's URL, known once it listens). */
  baseUrls?: { gateway?: string; remittances?: string; verification?: string };
  /** PEM material given directly instead of config file paths (tests). */
  remittancesTls?: TlsIdentity;
}

/** Transport settings from config: reads/writes share the short timeout, payments get the long one. */
function transportOptionsFromConfig(u: Config['upstream']): TransportOptions {
  return {
    maxConnections: u.maxConnections,
    connectTimeoutMs: u.connectTimeoutMs,
    timeouts: {
      read: { headersMs: u.readTimeoutMs, bodyMs: u.readTimeoutMs },
      write: { headersMs: u.readTimeoutMs, bodyMs: u.readTimeoutMs },
      payment: { headersMs: u.paymentTimeoutMs, bodyMs: u.paymentTimeoutMs },
    },
  };
}

function retryPolicyFromConfig(u: Config['upstream']): RetryPolicy {
  return {
    maxAttempts: u.retry.maxAttempts,
    baseDelayMs: u.retry.baseDelayMs,
    maxDelayMs: Math.max(u.retry.baseDelayMs, Math.floor(u.retry.maxTotalMs / 2)),
    maxTotalMs: u.retry.maxTotalMs,
  };
}

function readTls(tls: Config['remittances']['tls']): TlsIdentity | undefined {
  if (!tls.certPath && !tls.keyPath && !tls.caPath) return undefined;
  return {
    cert: tls.certPath ? readFileSync(tls.certPath) : undefined,
    key: tls.keyPath ? readFileSync(tls.keyPath) : undefined,
    ca: tls.caPath ? readFileSync(tls.caPath) : undefined,
  };
}

function need(url: string | null | undefined, what: string): string {
  if (!url) throw new Error(`upstream: no base URL for ${what} (set it in config or pass deps.baseUrls)`);
  return url;
}

/** Builds the three upstream clients on one shared transport. Called once by the composition root. */
export function createUpstreamClients(config: Config, deps: UpstreamDeps): UpstreamClients {
  const transport = new UpstreamTransport(transportOptionsFromConfig(config.upstream));
  const retry = retryPolicyFromConfig(config.upstream);
  const callerDeps = { transport, clock: deps.clock, metrics: deps.metrics, logger: deps.logger, retryEnv: deps.retryEnv };

  const gateway = new GatewayClient(
    new UpstreamCaller(
      { service: 'gateway', baseUrl: need(config.gateway.baseUrl ?? deps.baseUrls?.gateway, 'gateway'), retry },
      callerDeps,
    ),
    {
      clientId: config.gateway.clientId,
      clientSecret: config.gateway.clientSecret,
      tokenRefreshMarginS: config.gateway.tokenRefreshMarginS,
      clock: deps.clock,
    },
  );

  const remittances = new RemittancesClient(
    new UpstreamCaller(
      {
        service: 'remittances',
        baseUrl: need(config.remittances.baseUrl ?? deps.baseUrls?.remittances, 'remittances'),
        retry,
        tls: deps.remittancesTls ?? readTls(config.remittances.tls),
        defaultHeaders: { 'x-api-key': config.remittances.apiKey },
      },
      callerDeps,
    ),
    {
      tenantId: config.remittances.tenantId,
      apiKey: config.remittances.apiKey,
      agentId: config.remittances.agentId,
      agentApiKey: config.remittances.agentApiKey,
    },
  );

  const verification = new VerificationClient(
    new UpstreamCaller(
      { service: 'verification', baseUrl: need(config.verification.baseUrl ?? deps.baseUrls?.verification, 'verification'), retry },
      callerDeps,
    ),
    {
      clientId: config.verification.clientId,
      clientSecret: config.verification.clientSecret,
      authMethod: config.verification.authMethod,
      tokenRefreshMarginS: config.verification.tokenRefreshMarginS,
      clock: deps.clock,
    },
  );

  return { gateway, remittances, verification, transport, close: () => transport.close() };
}
