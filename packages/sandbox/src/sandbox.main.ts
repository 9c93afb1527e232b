/**
 * `npm run sandbox`: the sandbox alone (simulated upstream APIs) on SANDBOX_PORT (default 4010).
 *
 * Environment: SANDBOX_PORT, SANDBOX_HOST (default 127.0.0.1), SANDBOX_TLS_CERT / SANDBOX_TLS_KEY /
 * SANDBOX_TLS_CA (PEM paths: all three turn on HTTPS with a required client certificate for the remittances
 * platform), SANDBOX_PUBLIC_ORIGIN (origin used in links such as the 3DS redirectAcsUrl, when the sandbox is
 * reached through another address), GATEWAY_CLIENT_ID / GATEWAY_CLIENT_SECRET (gateway credentials accepted),
 * SANDBOX_LOG=1 (request logs). The variables only this file reads are documented in sandbox.config.ts (a test
 * fails when a variable read here is missing there or in src/config.ts). Stops cleanly on SIGTERM/SIGINT.
 */
import { readFileSync } from 'node:fs';
import type { SandboxOptions } from './sandbox.context';
import { startSandbox, type SandboxServerOptions } from './sandbox.server';

function fail(message: string): never {
  process.stderr.write(`sandbox: ${message}\n`);
  process.exit(1);
}

async function main(): Promise<void> {
  const env = process.env;
  const port = env.SANDBOX_PORT ? Number(env.SANDBOX_PORT) : 4010;
  if (!Number.isInteger(port) || port < 0 || port > 65535) fail(`SANDBOX_PORT must be a port number, got ${env.SANDBOX_PORT}`);

  const options: Partial<SandboxOptions> = {};
  if (env.GATEWAY_CLIENT_ID) options.gatewayClientId = env.GATEWAY_CLIENT_ID;
  if (env.GATEWAY_CLIENT_SECRET) options.gatewayClientSecret = env.GATEWAY_CLIENT_SECRET;

  let tls: SandboxServerOptions['tls'];
  const tlsVars = [env.SANDBOX_TLS_CERT, env.SANDBOX_TLS_KEY, env.SANDBOX_TLS_CA];
  if (tlsVars.some(Boolean)) {
    if (!tlsVars.every(Boolean)) fail('SANDBOX_TLS_CERT, SANDBOX_TLS_KEY and SANDBOX_TLS_CA must be set together');
    const read = (p: string, name: string) => {
      try {
        return readFileSync(p, 'utf8');
      } catch (err) {
        return fail(`cannot read ${name} (${p}): ${(err as Error).message}`);
      }
    };
    tls = {
      cert: read(env.SANDBOX_TLS_CERT!, 'SANDBOX_TLS_CERT'),
      key: read(env.SANDBOX_TLS_KEY!, 'SANDBOX_TLS_KEY'),
      ca: read(env.SANDBOX_TLS_CA!, 'SANDBOX_TLS_CA'),
      requireClientCert: true,
    };
  }

  const sandbox = await startSandbox({ port, host: env.SANDBOX_HOST || '127.0.0.1', tls, options, logger: env.SANDBOX_LOG === '1' });
  if (env.SANDBOX_PUBLIC_ORIGIN) sandbox.ctx.publicOrigin = env.SANDBOX_PUBLIC_ORIGIN.replace(/\/+$/, '');
  const origin = sandbox.ctx.publicOrigin;
  process.stdout.write(
    [
      `sandbox listening on ${sandbox.url}`,
      `  payments gateway          ${origin}/gateway`,
      `  remittances platform      ${origin}/remittances${tls ? ' (client certificate required)' : ''}`,
      `  verification-session API  ${origin}/verification`,
      `  control API               ${origin}/__sandbox`,
      '',
    ].join('\n'),
  );

  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    process.stdout.write(`sandbox: ${signal}, stopping\n`);
    sandbox.close().then(
      () => process.exit(0),
      (err) => {
        process.stderr.write(`sandbox: error while stopping: ${(err as Error).message}\n`);
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
}

main().catch((err) => fail((err as Error).stack ?? String(err)));
