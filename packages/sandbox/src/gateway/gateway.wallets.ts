/**
 * Wallets: POST /wallets, GET /wallets/{id}, /balance, /statement.
 *
 * - POST: accountAsset, ownerId, beneficiaryId, type (PERSONAL | BUSINESS) required → else 400 VALIDATION_ERROR;
 *   accountAsset is a currency or asset code (2–10 upper-case letters/digits). New wallets are ACTIVE, balance 0.
 *   additionalInfo is stored but, as documented ("request only"), not returned.
 * - Unknown walletId → 404 WALLET_NOT_FOUND.
 * - A PULLPUSH payout to a wallet holds the recipient amount in heldBalance while authorized, moves the
 *   captured amount to availableBalance at capture (one CREDIT statement entry), and releases the hold on
 *   void or automatic cancel. totalBalance = available + held.
 * - Statement: entries oldest first; `from`/`until` are ISO 8601 dates or date-times; a bare date `until` includes
 *   that whole day (UTC); page zero-based, size default 20, 1..100.
 */
import { randomUUID } from 'node:crypto';
import Decimal from 'decimal.js';
import type { FastifyInstance } from 'fastify';
import { GatewayError, Issues } from './gateway.errors';
import { paging } from './gateway.banks';
import { num } from './gateway.money';
import type { GatewayDeps, GatewayState, Wallet } from './gateway.state';
import { bodyObject, optObject, reqString } from './gateway.validate';

export const WALLET_TYPES = ['PERSONAL', 'BUSINESS'];

export function findWallet(state: GatewayState, walletId: string): Wallet {
  const wallet = state.wallets.get(walletId);
  if (!wallet) throw new GatewayError(404, 'WALLET_NOT_FOUND', `wallet ${walletId} not found`);
  return wallet;
}

export function walletView(w: Wallet): Record<string, unknown> {
  return {
    walletId: w.walletId,
    accountAsset: w.accountAsset,
    ownerId: w.ownerId,
    beneficiaryId: w.beneficiaryId,
    type: w.type,
    status: w.status,
    createdAt: new Date(w.createdAtMs).toISOString(),
  };
}

export function holdInWallet(w: Wallet, amount: Decimal): void {
  w.held = w.held.plus(amount);
}

export function releaseHold(w: Wallet, amount: Decimal): void {
  w.held = Decimal.max(0, w.held.minus(amount));
}

export function creditWallet(w: Wallet, amount: Decimal, externalId: string, description: string, atMs: number): void {
  w.available = w.available.plus(amount);
  w.entries.push({
    transactionId: randomUUID(),
    externalId,
    type: 'CREDIT',
    amount,
    description,
    balanceAfter: w.available,
    createdAtMs: atMs,
  });
}

/** from/until query values: a date (YYYY-MM-DD) or a full ISO 8601 date-time. */
function parseBound(issues: Issues, value: string | undefined, field: string, endOfDay: boolean): number | undefined {
  if (value === undefined || value === '') return undefined;
  if (/^\d{4}-\d{2}-\d{2}$/.test(value)) {
    const ms = Date.parse(`${value}T00:00:00.000Z`);
    if (Number.isNaN(ms) || new Date(ms).toISOString().slice(0, 10) !== value) {
      issues.add(field, 'is not a valid date');
      return undefined;
    }
    return endOfDay ? ms + 86_400_000 - 1 : ms;
  }
  if (/^\d{4}-\d{2}-\d{2}T/.test(value)) {
    const ms = Date.parse(value);
    if (!Number.isNaN(ms)) return ms;
  }
  issues.add(field, 'must be an ISO 8601 date (YYYY-MM-DD) or date-time');
  return undefined;
}

export function registerWallets(app: FastifyInstance, { ctx, state }: GatewayDeps): void {
  app.post('/wallets', async (request) => {
    const body = bodyObject(request.body);
    const issues = new Issues();
    const accountAsset = reqString(issues, body, 'accountAsset', 'accountAsset', {
      pattern: /^[A-Z0-9]{2,10}$/,
      patternIssue: 'must be a currency or asset code (2-10 upper-case letters or digits)',
    });
    const ownerId = reqString(issues, body, 'ownerId', 'ownerId', { max: 128 });
    const beneficiaryId = reqString(issues, body, 'beneficiaryId', 'beneficiaryId', { max: 128 });
    const type = reqString(issues, body, 'type', 'type', { oneOf: WALLET_TYPES });
    const additionalInfo = optObject(issues, body, 'additionalInfo', 'additionalInfo');
    issues.throwIfAny();
    const wallet: Wallet = {
      walletId: randomUUID(),
      accountAsset: accountAsset!,
      ownerId: ownerId!,
      beneficiaryId: beneficiaryId!,
      type: type!,
      status: 'ACTIVE',
      createdAtMs: ctx.nowMs(),
      additionalInfo,
      available: new Decimal(0),
      held: new Decimal(0),
      entries: [],
    };
    state.wallets.set(wallet.walletId, wallet);
    return walletView(wallet);
  });

  app.get('/wallets/:walletId', async (request) => {
    const { walletId } = request.params as { walletId: string };
    return walletView(findWallet(state, walletId));
  });

  app.get('/wallets/:walletId/balance', async (request) => {
    const { walletId } = request.params as { walletId: string };
    const w = findWallet(state, walletId);
    return {
      walletId: w.walletId,
      accountAsset: w.accountAsset,
      availableBalance: num(w.available),
      heldBalance: num(w.held),
      totalBalance: num(w.available.plus(w.held)),
    };
  });

  app.get('/wallets/:walletId/statement', async (request) => {
    const { walletId } = request.params as { walletId: string };
    const q = request.query as Record<string, string | undefined>;
    const w = findWallet(state, walletId);
    const issues = new Issues();
    const from = parseBound(issues, q.from, 'from', false);
    const until = parseBound(issues, q.until, 'until', true);
    const { page, size } = paging(issues, q, 'page', 'size');
    issues.throwIfAny();
    if (from !== undefined && until !== undefined && from > until) {
      throw new GatewayError(400, 'VALIDATION_ERROR', 'from must not be after until', [
        { field: 'from', issue: 'must not be after until' },
      ]);
    }
    const entries = w.entries.filter(
      (e) => (from === undefined || e.createdAtMs >= from) && (until === undefined || e.createdAtMs <= until),
    );
    return {
      walletId: w.walletId,
      entries: entries.slice(page * size, page * size + size).map((e) => ({
        transactionId: e.transactionId,
        externalId: e.externalId,
        type: e.type,
        amount: num(e.amount),
        description: e.description,
        balanceAfter: num(e.balanceAfter),
        createdAt: new Date(e.createdAtMs).toISOString(),
      })),
      page,
      size,
      totalEntries: entries.length,
    };
  });
}
