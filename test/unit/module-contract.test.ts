/**
 * The module contract: every resolver class belongs to exactly one module; the modules' upstream error rules name
 * operations the clients really have (a renamed operation would silently fall back to the default mapping); the
 * first rule that matches wins, anything else gets the default mapping.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { MODULES } from '../../src/modules/modules';
import { UpstreamError, upstreamAppError, type UpstreamErrorRule } from '../../src/upstream/http/upstream.errors';
import { badInput, notFound } from '../../src/shared/errors';

const CLIENTS = {
  gateway: 'src/upstream/gateway/gateway.client.ts',
  remittances: 'src/upstream/remittances/remittances.client.ts',
  verification: 'src/upstream/verification/verification.client.ts',
} as const;

test('each resolver class is listed by one module only, and module names are unique', () => {
  const classes = MODULES.flatMap((m) => m.resolvers);
  expect(new Set(classes).size).toBe(classes.length);
  expect(new Set(MODULES.map((m) => m.name)).size).toBe(MODULES.length);
});

test("every upstream error rule names an operation of its service's client", () => {
  const missing: string[] = [];
  for (const m of MODULES) {
    for (const rule of m.upstreamErrors ?? []) {
      const source = readFileSync(join(__dirname, '..', '..', CLIENTS[rule.service]), 'utf8');
      for (const op of typeof rule.operation === 'string' ? [rule.operation] : rule.operation)
        if (!source.includes(`'${op}'`)) missing.push(`${m.name}: ${rule.service} ${op}`);
    }
  }
  expect(missing).toEqual([]);
});

describe('upstreamAppError', () => {
  const err = (over: Partial<ConstructorParameters<typeof UpstreamError>[0]>) =>
    new UpstreamError({ service: 'gateway', operation: 'createWallet', kind: 'rejected', status: 400, retryable: false, ...over });
  const rules: UpstreamErrorRule[] = [
    { service: 'gateway', operation: 'createWallet', kind: 'rejected', status: [400], to: () => badInput('wallet refused') },
    { service: 'gateway', operation: ['getWallet', 'createWallet'], kind: 'not_found', to: () => notFound('Wallet') },
  ];

  test('the first matching rule decides', () => {
    expect(upstreamAppError(err({}), rules)).toMatchObject({ code: 'BAD_USER_INPUT', message: 'wallet refused' });
    expect(upstreamAppError(err({ operation: 'getWallet', kind: 'not_found', status: 404 }), rules)).toMatchObject({ code: 'NOT_FOUND' });
  });

  test('another status, kind, operation or service gets the default mapping', () => {
    expect(upstreamAppError(err({ status: 409 }), rules).code).toBe('UPSTREAM_REJECTED');
    expect(upstreamAppError(err({ operation: 'getWalletBalance' }), rules).code).toBe('UPSTREAM_REJECTED');
    expect(upstreamAppError(err({ service: 'remittances' }), rules).code).toBe('UPSTREAM_REJECTED');
    expect(upstreamAppError(err({ kind: 'server_error', status: 503, retryable: true }), rules).code).toBe('UPSTREAM_UNAVAILABLE');
    expect(upstreamAppError(err({ kind: 'rate_limited', status: 429 }), rules).code).toBe('RATE_LIMITED');
  });
});

test("every module's files are named after its folder (src/modules/<m>/<m>.<role>.ts)", () => {
  const dir = join(__dirname, '..', '..', 'src', 'modules');
  const misnamed = readdirSync(dir, { withFileTypes: true })
    .filter((d) => d.isDirectory())
    .flatMap((d) =>
      readdirSync(join(dir, d.name))
        .filter((f) => !f.startsWith(`${d.name}.`))
        .map((f) => `${d.name}/${f}`),
    );
  expect(misnamed).toEqual([]);
});
