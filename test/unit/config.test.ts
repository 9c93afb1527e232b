import { ConfigError, loadConfig } from '../../src/config';
import { PRODUCTION_REQUIRED } from '../helpers/config';

const PROD_BASE = {
  NODE_ENV: 'production',
  DATABASE_URL: 'postgres://db/x',
  AUTH_JWKS_URL: 'https://idp.example/.well-known/jwks.json',
  GATEWAY_BASE_URL: 'https://gw.example',
  REMITTANCES_BASE_URL: 'https://rp.example',
  VERIFICATION_BASE_URL: 'https://vs.example',
  WEBHOOK_SECRET_ENCRYPTION_KEY: Buffer.alloc(32, 1).toString('base64'),
};
const problemsOf = (env: Record<string, string>): string[] => {
  try {
    loadConfig(env);
    return [];
  } catch (e) {
    return (e as ConfigError).problems.map((p) => p.variable);
  }
};

describe('loadConfig', () => {
  it('gives the embedded defaults with an empty environment', () => {
    const c = loadConfig({});
    expect(c.port).toBe(4000);
    expect(c.env).toBe('development');
    expect(c.database).toEqual({ kind: 'pglite', dataDir: './.data/pglite' });
    expect(c.redisUrl).toBeNull();
    expect(c.sandbox.enabled).toBe(true);
    expect(c.auth.devKeys).toBe(true);
    expect(c.graphiql).toBe(true);
    expect(c.introspection).toBe(true);
    expect(c.gateway.clientId).toBe('sandbox-client');
  });

  it('maps DATABASE_URL to the three backends', () => {
    expect(loadConfig({ DATABASE_URL: 'memory://' }).database).toEqual({ kind: 'pglite', dataDir: null });
    expect(loadConfig({ DATABASE_URL: 'postgresql://u@h:5432/db', DATABASE_POOL_MAX: '7' }).database).toEqual({
      kind: 'postgres',
      url: 'postgresql://u@h:5432/db',
      poolMax: 7,
      preparedStatements: 256,
    });
    expect(loadConfig({ DATABASE_URL: 'postgresql://u@h:5432/db', DATABASE_PREPARED_STATEMENTS: '0' }).database).toMatchObject({
      preparedStatements: 0,
    });
    expect(loadConfig({ DATABASE_URL: 'file:/tmp/x' }).database).toEqual({ kind: 'pglite', dataDir: '/tmp/x' });
  });

  it('names every bad variable and why, in one error', () => {
    let err: unknown;
    try {
      loadConfig({ PORT: 'abc', NODE_ENV: 'staging', DATABASE_URL: 'mysql://x', REDIS_URL: 'http://nope', LOG_LEVEL: 'loud' });
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(ConfigError);
    const ce = err as ConfigError;
    expect(ce.problems.map((p) => p.variable).sort()).toEqual(['DATABASE_URL', 'LOG_LEVEL', 'NODE_ENV', 'PORT', 'REDIS_URL']);
    expect(ce.message).toMatch(/PORT: must be an integer/);
    expect(ce.message).toMatch(/NODE_ENV: must be one of development, test, production/);
    expect(ce.message).not.toMatch(/\bat .*\.ts:\d+/); // no stack frames
  });

  it('rejects out-of-range numbers', () => {
    expect(() => loadConfig({ PORT: '70000' })).toThrow(/PORT: must be ≤ 65535/);
  });

  it('treats empty strings as unset', () => {
    expect(loadConfig({ PORT: '', REDIS_URL: '' }).port).toBe(4000);
  });

  it('requires all upstream URLs together, and disables the sandbox when set', () => {
    expect(() => loadConfig({ GATEWAY_BASE_URL: 'https://gw.example' })).toThrow(/REMITTANCES_BASE_URL: must be set/);
    const c = loadConfig({
      GATEWAY_BASE_URL: 'https://gw.example',
      REMITTANCES_BASE_URL: 'https://rp.example',
      VERIFICATION_BASE_URL: 'https://vs.example',
      ...PRODUCTION_REQUIRED,
    });
    expect(c.sandbox.enabled).toBe(false);
    expect(c.gateway.baseUrl).toBe('https://gw.example');
  });

  it('demands real dependencies in production and turns developer aids off', () => {
    expect(() => loadConfig({ NODE_ENV: 'production' })).toThrow(ConfigError);
    try {
      loadConfig({ NODE_ENV: 'production' });
    } catch (e) {
      const vars = (e as ConfigError).problems.map((p) => p.variable);
      expect(vars).toEqual(expect.arrayContaining(['GATEWAY_BASE_URL', 'AUTH_JWKS_URL', 'DATABASE_URL']));
    }
    const prodEnv = { ...PROD_BASE, ...PRODUCTION_REQUIRED };
    const c = loadConfig(prodEnv);
    expect(c.sandbox.enabled).toBe(false);
    expect(c.graphiql).toBe(false);
    expect(c.introspection).toBe(false);
    expect(loadConfig({ ...prodEnv, GRAPHIQL: 'true' }).graphiql).toBe(false);
    expect(c.auth.devKeys).toBe(false);
  });

  it('requires the client certificate and key together', () => {
    expect(() => loadConfig({ REMITTANCES_CLIENT_CERT: '/c.pem' })).toThrow(/REMITTANCES_CLIENT_KEY/);
  });

  it('production refuses a weak configuration, naming every missing variable at once', () => {
    expect(problemsOf(PROD_BASE).sort()).toEqual(Object.keys(PRODUCTION_REQUIRED).sort());
    expect(problemsOf({ ...PROD_BASE, ...PRODUCTION_REQUIRED })).toEqual([]);
  });

  it('production: no sandbox credential default, iss/aud required, TLS off-host', () => {
    const c = loadConfig({ ...PROD_BASE, ...PRODUCTION_REQUIRED });
    expect(c.gateway.clientId).toBe('gw-id');
    expect(c.auth).toMatchObject({ issuer: 'https://idp.example', audience: 'remittance-bff' });
    expect(
      problemsOf({ ...PROD_BASE, ...PRODUCTION_REQUIRED, PUBLIC_URL: 'http://bff.example', GATEWAY_BASE_URL: 'http://gw.example' }).sort(),
    ).toEqual(['GATEWAY_BASE_URL', 'PUBLIC_URL']);
    // loopback stays allowed over http (a local TLS-terminating proxy)
    expect(
      problemsOf({ ...PROD_BASE, ...PRODUCTION_REQUIRED, PUBLIC_URL: 'http://127.0.0.1:4000', GATEWAY_BASE_URL: 'http://localhost:8080' }),
    ).toEqual([]);
  });

  it('sandbox credential defaults apply only while the upstreams are a sandbox', () => {
    expect(loadConfig({}).verification.clientId).toBe('sandbox-verification');
    const local = {
      GATEWAY_BASE_URL: 'http://127.0.0.1:4010/gateway',
      REMITTANCES_BASE_URL: 'http://127.0.0.1:4010/remittances',
      VERIFICATION_BASE_URL: 'http://127.0.0.1:4010/verification',
    };
    expect(loadConfig(local).remittances.apiKey).toBe('sandbox-api-key');
    const remote = {
      GATEWAY_BASE_URL: 'https://gw.example',
      REMITTANCES_BASE_URL: 'https://rp.example',
      VERIFICATION_BASE_URL: 'https://vs.example',
    };
    expect(problemsOf(remote).sort()).toEqual(
      Object.keys(PRODUCTION_REQUIRED)
        .filter((k) => /^(GATEWAY|REMITTANCES|VERIFICATION)_/.test(k))
        .sort(),
    );
  });

  it('metrics: own listener in production (never the API port), API port outside production', () => {
    expect(loadConfig({}).metrics).toEqual({ port: null, host: '127.0.0.1', onApiPort: true });
    expect(loadConfig({ ...PROD_BASE, ...PRODUCTION_REQUIRED }).metrics).toEqual({ port: 9464, host: '127.0.0.1', onApiPort: false });
    expect(problemsOf({ ...PROD_BASE, ...PRODUCTION_REQUIRED, PORT: '8080', METRICS_PORT: '8080' })).toEqual(['METRICS_PORT']);
  });

  it('corridors: the sandbox corridor and a default, or the configured rules (a default added when missing)', () => {
    const any = { sourceCurrency: null, destinationCurrency: null, destinationCountry: null };
    expect(loadConfig({}).corridors).toEqual([
      { sourceCurrency: 'USD', destinationCurrency: 'BRL', destinationCountry: null, min: '1', max: '10000' },
      { ...any, min: null, max: '10000' },
    ]);
    expect(loadConfig({ TRANSFER_CORRIDORS: 'USD>MXN/MX=5..2500, JPY>*=..1500000' }).corridors).toEqual([
      { sourceCurrency: 'USD', destinationCurrency: 'MXN', destinationCountry: 'MX', min: '5', max: '2500' },
      { sourceCurrency: 'JPY', destinationCurrency: null, destinationCountry: null, min: null, max: '1500000' },
      { ...any, min: null, max: '10000' },
    ]);
    expect(problemsOf({ TRANSFER_CORRIDORS: 'USD>BRL=1..123456789012345' })).toEqual(['TRANSFER_CORRIDORS']);
    expect(problemsOf({ TRANSFER_CORRIDORS: 'usd>brl=1..5' })).toEqual(['TRANSFER_CORRIDORS']);
    expect(problemsOf({ TRANSFER_CORRIDORS: 'USD>BRL=10..5' })).toEqual(['TRANSFER_CORRIDORS']);
  });

  it('3-D Secure return URLs: THREE_DS_RETURN_URL_HOSTS lists host names; production with no list refuses every return URL', () => {
    expect(loadConfig({}).threeDSReturnUrls).toEqual({ hosts: [], production: false });
    expect(loadConfig({ THREE_DS_RETURN_URL_HOSTS: ' App.Example.com, links.example.com ,' }).threeDSReturnUrls.hosts).toEqual([
      'app.example.com',
      'links.example.com',
    ]);
    for (const bad of ['https://app.example.com', 'app.example.com:443', '*.example.com', 'app.example.com/3ds', 'app_example.com'])
      expect([bad, problemsOf({ THREE_DS_RETURN_URL_HOSTS: bad })]).toEqual([bad, ['THREE_DS_RETURN_URL_HOSTS']]);
    // production starts without a list (fail closed: no return URL is accepted), or with one
    expect(loadConfig({ ...PROD_BASE, ...PRODUCTION_REQUIRED }).threeDSReturnUrls).toEqual({ hosts: [], production: true });
    expect(loadConfig({ ...PROD_BASE, ...PRODUCTION_REQUIRED, THREE_DS_RETURN_URL_HOSTS: 'app.example.com' }).threeDSReturnUrls).toEqual({
      hosts: ['app.example.com'],
      production: true,
    });
  });
});
