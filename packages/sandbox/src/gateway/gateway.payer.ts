/**
 * Payer balances: GET /payer/balance → [{ providerId, balances: [{ currencyCode, balance }] }].
 *
 * The payer (the BFF's merchant account) pre-funds payouts. Providers: sandbox-wallets (payouts to wallets),
 * sandbox-pix (PIX payouts), sandbox-ach (token PULL collections). Every currency starts at
 * options.payerInitialBalance (default 1,000,000). A PULLPUSH capture debits the payout provider in the
 * recipient currency by the captured recipient amount (capture refused with 422 INSUFFICIENT_PAYER_BALANCE when
 * short); a PULL capture credits sandbox-ach in the pulled currency.
 */
import Decimal from 'decimal.js';
import type { FastifyInstance } from 'fastify';
import { num } from './gateway.money';
import type { GatewayDeps, GatewayState } from './gateway.state';

export const PROVIDERS: Record<string, string[]> = {
  'sandbox-wallets': ['USD', 'BRL', 'MXN', 'INR', 'PHP', 'EUR', 'GBP'],
  'sandbox-pix': ['BRL'],
  'sandbox-ach': ['USD'],
};

export function payerBalance(state: GatewayState, initial: number, providerId: string, currency: string): Decimal {
  return state.payerBalances.get(providerId)?.get(currency) ?? new Decimal(initial);
}

export function adjustPayerBalance(state: GatewayState, initial: number, providerId: string, currency: string, delta: Decimal): void {
  let byCurrency = state.payerBalances.get(providerId);
  if (!byCurrency) {
    byCurrency = new Map();
    state.payerBalances.set(providerId, byCurrency);
  }
  byCurrency.set(currency, payerBalance(state, initial, providerId, currency).plus(delta));
}

export function registerPayer(app: FastifyInstance, { ctx, state }: GatewayDeps): void {
  app.get('/payer/balance', async () => {
    const initial = ctx.options.payerInitialBalance;
    return Object.entries(PROVIDERS).map(([providerId, defaults]) => {
      const currencies = new Set([...defaults, ...(state.payerBalances.get(providerId)?.keys() ?? [])]);
      return {
        providerId,
        balances: [...currencies].sort().map((currencyCode) => ({
          currencyCode,
          balance: num(payerBalance(state, initial, providerId, currencyCode)),
        })),
      };
    });
  });
}
