import type { GatewayClient } from '../../upstream/gateway/gateway.client';
import { toAppError } from '../../upstream/http/upstream.errors';
import { decimalFromNumber } from '../../shared/decimal';
import { badInput } from '../../shared/errors';

/** FX v1: an indicative rate without a payment method (POST /foreign-exchange). Stores nothing. */
export class FxV1Service {
  constructor(private readonly gateway: GatewayClient) {}

  async quote(sourceCurrency?: string, destinationCurrency?: string) {
    let q;
    try {
      q = await this.gateway.createFxQuoteV1({ sourceCurrencyCode: sourceCurrency, destinationCurrencyCode: destinationCurrency });
    } catch (e) {
      const err = toAppError(e);
      if (err.code === 'UPSTREAM_REJECTED') throw badInput('The gateway offers no rate for this currency pair; check both currency codes');
      throw err;
    }
    return {
      fxId: q.fxId,
      rate: decimalFromNumber(q.conversionRate),
      sourceCurrency: sourceCurrency ?? null,
      destinationCurrency: destinationCurrency ?? null,
      expiresAt: new Date(q.quoteIdExpiryDateTime),
    };
  }
}
