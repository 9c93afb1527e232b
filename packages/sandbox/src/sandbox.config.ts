/** How a variable is documented (the same shape as the service's own variable documentation). */
export interface SandboxVariableDoc {
  group: 'sandbox';
  description: string;
  default?: string;
  example?: string;
}

/**
 * Variables only `npm run sandbox` (sandbox.main.ts) reads, documented here next to the code that reads them; the
 * configuration reference (docs/configuration.md, .env.example) is generated from these and src/config.ts.
 * SANDBOX_PORT, SANDBOX_HOST and the gateway credentials are the service's own variables (src/config.ts) and mean
 * the same to the standalone sandbox.
 */
export const SANDBOX_ONLY_VARIABLES: Record<string, SandboxVariableDoc> = {
  SANDBOX_TLS_CERT: {
    group: 'sandbox',
    description:
      '`npm run sandbox` only: PEM path of the server certificate. `SANDBOX_TLS_CERT`, `SANDBOX_TLS_KEY` and `SANDBOX_TLS_CA` go together and turn on HTTPS with a required client certificate for the remittances platform.',
  },
  SANDBOX_TLS_KEY: { group: 'sandbox', description: '`npm run sandbox` only: PEM path of the server key (see `SANDBOX_TLS_CERT`).' },
  SANDBOX_TLS_CA: {
    group: 'sandbox',
    description: '`npm run sandbox` only: PEM path of the CA client certificates must chain to (see `SANDBOX_TLS_CERT`).',
  },
  SANDBOX_PUBLIC_ORIGIN: {
    group: 'sandbox',
    description:
      '`npm run sandbox` only: the origin used in links the sandbox hands out (the 3DS `redirectAcsUrl`) when it is reached through another address.',
    default: 'the address it listens on',
  },
  SANDBOX_LOG: { group: 'sandbox', description: '`npm run sandbox` only: `1` logs every request.' },
};
