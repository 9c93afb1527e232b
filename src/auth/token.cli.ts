/**
 * `npm run token -- --sub alice --role customer [--ttl 3600]`: prints a JWT signed with the development key
 * pair kept in DATA_DIR (the embedded default), which the service creates at its first start. Refuses when
 * AUTH_JWKS_URL / AUTH_PUBLIC_KEY are configured, and when DATA_DIR holds no key pair (the service was never started
 * with it): a key pair made here would sign tokens the running service refuses.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { ConfigError, loadConfig } from '../config';
import { systemClock } from '../shared/clock';
import { AuthService, DEV_KEYS_FILE } from './auth.service';
import { ROLES, isRole } from './auth.types';

async function main(): Promise<number> {
  const { values } = parseArgs({
    options: { sub: { type: 'string' }, role: { type: 'string' }, ttl: { type: 'string' } },
    allowPositionals: false,
  });
  const usage = `usage: npm run token -- --sub <id> --role ${ROLES.join('|')} [--ttl <seconds>]`;
  if (!values.sub || !values.role) {
    console.error(usage);
    return 2;
  }
  if (!isRole(values.role)) {
    console.error(`role must be one of ${ROLES.join(', ')}\n${usage}`);
    return 2;
  }
  const ttl = values.ttl ? Number(values.ttl) : 12 * 3600;
  if (!Number.isInteger(ttl) || ttl <= 0) {
    console.error(`--ttl must be a positive number of seconds\n${usage}`);
    return 2;
  }
  const config = loadConfig();
  if (ttl > config.auth.maxTokenLifetimeS) {
    console.error(
      `--ttl must be at most AUTH_MAX_TOKEN_LIFETIME_S (${config.auth.maxTokenLifetimeS} s): the service refuses longer-lived tokens`,
    );
    return 2;
  }
  if (!config.auth.devKeys) {
    console.error('AUTH_JWKS_URL or AUTH_PUBLIC_KEY is set: tokens come from your identity provider, not from this command.');
    return 1;
  }
  // the running service made the key pair at its start: a new one here would sign tokens it refuses
  const keys = join(config.dataDir, DEV_KEYS_FILE);
  if (!existsSync(keys)) {
    console.error(
      `No development key pair in ${keys}: start the service first (npm start) with the same DATA_DIR, then ask again — a token signed with a new key pair would be refused by it.`,
    );
    return 1;
  }
  const auth = await AuthService.create(config.auth, config.dataDir, systemClock);
  process.stdout.write(`${await auth.issueDevToken(values.sub, values.role, ttl)}\n`);
  return 0;
}

main().then(
  (code) => process.exit(code),
  (e: unknown) => {
    console.error(e instanceof ConfigError ? e.message : `token: ${(e as Error).message}`);
    process.exit(1);
  },
);
