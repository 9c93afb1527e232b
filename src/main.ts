/** Entry point: read config, build the app, listen, drain on SIGTERM/SIGINT. */
import 'reflect-metadata';
import { ConfigError, loadConfig } from './config';
import { createApp, type App } from './app';

async function main(): Promise<void> {
  let config;
  try {
    config = loadConfig();
  } catch (e) {
    if (e instanceof ConfigError) {
      process.stderr.write(`${e.message}\n`);
      process.exit(1);
    }
    throw e;
  }

  let app: App;
  try {
    app = await createApp(config);
  } catch (e) {
    process.stderr.write(`remittance-bff failed to start: ${(e as Error).message}\n`);
    process.exit(1);
  }

  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    app.logger.info({ signal }, 'signal received');
    const hard = setTimeout(() => {
      app.logger.error('graceful shutdown timed out; exiting');
      process.exit(1);
    }, config.shutdownTimeoutMs);
    hard.unref();
    app.close().then(
      () => process.exit(0),
      (err: unknown) => {
        app.logger.error({ err }, 'error during shutdown');
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));

  try {
    const { url } = await app.start();
    const lines = [`remittance-bff ready: GraphQL at ${url}/graphql (websocket subscriptions on the same URL)`];
    if (app.sandbox) lines.push(`built-in sandbox: ${app.sandbox.url} (control API at ${app.sandbox.url}/__sandbox)`);
    if (app.auth.canIssueDevTokens) {
      const token = await app.auth.issueDevToken('demo-customer', 'customer');
      lines.push(
        'development token (sub demo-customer, role customer; make others with `npm run token -- --sub <id> --role customer|backoffice|admin`):',
        token,
      );
    }
    process.stdout.write(`${lines.join('\n')}\n`);
  } catch (e) {
    app.logger.fatal({ err: e }, 'start-up failed');
    await app.close().catch(() => undefined);
    process.exit(1);
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
