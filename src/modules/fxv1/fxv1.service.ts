import type { GatewayClient } from '../../upstream/gateway/gateway.client';
import { decimalFromNumber } from '../../shared/decimal';

/** FX v1: an indicative rate without a payment method (POST /foreign-exchange). Stores nothing. */
export class FxV1Service {
  constructor(private readonly gateway: GatewayClient) {}

  /** Either currency left out or null: the gateway's default for it (the gateway's fields are optional, not nullable). */
  async quote(sourceCurrency?: string | null, destinationCurrency?: string | null) {
    const q = await this.gateway.createFxQuoteV1({
      sourceCurrencyCode: sourceCurrency ?? undefined,
      destinationCurrencyCode: destinationCurrency ?? undefined,
    });
    return {
      fxId: q.fxId,
      rate: decimalFromNumber(q.conversionRate),
      sourceCurrency: sourceCurrency ?? null,
      destinationCurrency: destinationCurrency ?? null,
      expiresAt: new Date(q.quoteIdExpiryDateTime),
    };
  }
}
