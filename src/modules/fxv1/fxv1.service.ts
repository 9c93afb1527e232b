import type { GatewayClient } from '../../upstream/gateway/gateway.client';
import { decimalFromNumber } from '../../shared/decimal';

/** FX v1: an indicative rate without a payment method (POST /foreign-exchange). Stores nothing. */
export class FxV1Service {
  constructor(private readonly gateway: GatewayClient) {}

  async quote(sourceCurrency?: string, destinationCurrency?: string) {
    const q = await this.gateway.createFxQuoteV1({ sourceCurrencyCode: sourceCurrency, destinationCurrencyCode: destinationCurrency });
    return {
      fxId: q.fxId,
      rate: decimalFromNumber(q.conversionRate),
      sourceCurrency: sourceCurrency ?? null,
      destinationCurrency: destinationCurrency ?? null,
      expiresAt: new Date(q.quoteIdExpiryDateTime),
    };
  }
}
