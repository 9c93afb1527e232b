import type { Quote } from '../../generated/prisma/client';
import type { RawSql } from '../../db/raw-sql';
import { QuoteRepository } from './fx.repository';
import { inStoredRange, type Clock } from '../../shared/clock';
import { AppError, badField } from '../../shared/errors';
import {
  corridorBounds,
  corridorRule,
  formatAmount,
  formatRate,
  fromJsonNumber,
  sendAmountProblem,
  type CorridorRule,
} from '../../shared/money';
import {
  deliveryEstimate,
  deliveryWindow,
  DELIVERY_DESTINATIONS,
  feeFunding,
  feeRule,
  FEE_FUNDINGS,
  priceOf,
  type DeliveryDestination,
  type FeeFunding,
  type Pricing,
} from '../../shared/pricing';
import type { GatewayClient } from '../../upstream/gateway/gateway.client';
import type { PaymentMethod } from '../../upstream/gateway/gateway.types';

interface QuoteView {
  id: string;
  ownerId: string;
  fxId: string;
  rate: string;
  source: { amount: string; currency: string } | null;
  destination: { amount: string; currency: string } | null;
  fee: { amount: string; currency: string } | null;
  total: { amount: string; currency: string } | null;
  deliveryEstimate: { earliest: Date; latest: Date };
  destinationType: string | null;
  paymentMethod: string;
  expiresAt: Date;
  usedByTransferId: string | null;
}

interface CreateQuoteArgs {
  sourceCurrency: string;
  destinationCurrency: string;
  paymentMethod: PaymentMethod;
  /** Nullable in GraphQL: null is the same as left out. */
  sourceAmount?: string | null;
  destinationCountry?: string | null;
  destinationType?: DeliveryDestination | null;
}

interface CorridorView {
  sourceCurrency: string;
  destinationCurrency: string;
  destinationCountry: string | null;
  minAmount: { amount: string; currency: string };
  maxAmount: { amount: string; currency: string };
  /** What each funding type is charged (TRANSFER_FEES), and how the fee is rounded. */
  fees: { fundingType: FeeFunding; fixed: { amount: string; currency: string }; percent: string }[];
  feeRounding: string;
  /** How long a payout takes to each destination type (TRANSFER_DELIVERY_TIMES). */
  deliveryTimes: { destinationType: DeliveryDestination; minSeconds: number; maxSeconds: number }[];
}

function corridorView(
  rule: CorridorRule,
  pricing: Pricing,
  sourceCurrency: string,
  destinationCurrency: string,
  destinationCountry: string | null,
): CorridorView {
  const { min, max } = corridorBounds(rule, sourceCurrency);
  const c = { sourceCurrency, destinationCurrency, destinationCountry };
  return {
    sourceCurrency,
    destinationCurrency,
    destinationCountry,
    minAmount: min,
    maxAmount: max,
    fees: FEE_FUNDINGS.map((fundingType) => {
      const r = feeRule(pricing, c, fundingType);
      return { fundingType, fixed: { amount: formatAmount(r.fixed, sourceCurrency), currency: sourceCurrency }, percent: r.percent };
    }),
    feeRounding: pricing.rounding,
    deliveryTimes: DELIVERY_DESTINATIONS.map((destinationType) => ({ destinationType, ...deliveryWindow(pricing, c, destinationType) })),
  };
}

/** FX v2 quotes: asked from the gateway, stored for the caller (single use, see TransferService). */
export class FxService {
  constructor(
    /** Raw statements (Database.sql): a quote is written in one statement beside Prisma's client. */
    sql: RawSql,
    private readonly gateway: GatewayClient,
    private readonly clock: Clock,
    private readonly corridors: readonly CorridorRule[],
    private readonly pricing: Pricing,
  ) {
    this.quotes = new QuoteRepository(sql);
  }

  private readonly quotes: QuoteRepository;

  /** The configured corridors (the `*` and `SRC>*` defaults left out), with their bounds. */
  listCorridors(): CorridorView[] {
    return this.corridors
      .filter((r) => r.sourceCurrency !== null && r.destinationCurrency !== null)
      .map((r) => corridorView(r, this.pricing, r.sourceCurrency!, r.destinationCurrency!, r.destinationCountry));
  }

  /** The rule that applies to one corridor (a configured one, else the default). */
  corridor(sourceCurrency: string, destinationCurrency: string, destinationCountry?: string | null): CorridorView {
    return corridorView(
      corridorRule(this.corridors, sourceCurrency, destinationCurrency, destinationCountry),
      this.pricing,
      sourceCurrency,
      destinationCurrency,
      destinationCountry ?? null,
    );
  }

  /**
   * What sending `sendAmount` through a corridor costs with one funding type — the fee and the total — without a
   * quote (a calculator). The amount must be one a transfer may send (BAD_USER_INPUT otherwise, as createQuote).
   */
  price(
    corridor: { sourceCurrency: string; destinationCurrency: string; destinationCountry: string | null },
    sendAmount: string,
    fundingType: FeeFunding,
  ): { fundingType: FeeFunding; fee: { amount: string; currency: string }; total: { amount: string; currency: string } } {
    const problem = sendAmountProblem('sendAmount', sendAmount, corridor, this.corridors);
    if (problem) throw badField('sendAmount', problem.code, problem.message, problem.details);
    const { fee, total } = priceOf(this.pricing, corridor, fundingType, sendAmount);
    const currency = corridor.sourceCurrency;
    return { fundingType, fee: { amount: fee, currency }, total: { amount: total, currency } };
  }

  async createQuote(ownerId: string, args: CreateQuoteArgs): Promise<QuoteView> {
    // nullable arguments: null is the same as left out (the gateway's fields are optional, not nullable)
    const sourceAmount = args.sourceAmount ?? undefined;
    const destinationCountry = args.destinationCountry ?? undefined;
    // before the upstream quote: an amount no transfer may send is refused here, not after the quote exists
    const problem = sourceAmount !== undefined ? sendAmountProblem('sourceAmount', sourceAmount, args, this.corridors) : null;
    if (problem) throw badField('input.sourceAmount', problem.code, problem.message, problem.details);
    const q = await this.gateway.createFxQuote({
      sourceCurrencyCode: args.sourceCurrency,
      destinationCurrencyCode: args.destinationCurrency,
      paymentMethod: args.paymentMethod,
      sourceCurrencyAmount: sourceAmount,
      destinationCountryCode: destinationCountry,
    });
    const expiresAt = new Date(q.quoteIdExpiryDateTime);
    if (!inStoredRange(expiresAt)) throw new AppError('UPSTREAM_UNAVAILABLE', 'The FX quote had no valid expiry');
    const destinationAmount = q.destinationCurrencyAmount !== undefined ? fromJsonNumber(q.destinationCurrencyAmount) : null;
    const corridor = { sourceCurrency: args.sourceCurrency, destinationCurrency: args.destinationCurrency, destinationCountry };
    const fee = sourceAmount !== undefined ? priceOf(this.pricing, corridor, feeFunding(args.paymentMethod), sourceAmount).fee : null;
    const now = this.clock.now();
    const delivery = deliveryEstimate(this.pricing, corridor, args.destinationType ?? null, now);
    const row = await this.quotes.insert(ownerId, {
      fxId: q.fxId,
      rate: fromJsonNumber(q.conversionRate),
      sourceCurrency: args.sourceCurrency,
      destinationCurrency: args.destinationCurrency,
      sourceAmount: sourceAmount ?? null,
      destinationAmount,
      paymentMethod: args.paymentMethod,
      destinationCountry: destinationCountry ?? null,
      destinationType: args.destinationType ?? null,
      feeAmount: fee,
      deliveryEarliest: delivery.earliest,
      deliveryLatest: delivery.latest,
      expiresAt,
      createdAt: now,
    });
    return toQuoteView(row);
  }
}

function toQuoteView(row: Quote): QuoteView {
  const money = (v: { toString(): string }) => ({ amount: formatAmount(v, row.sourceCurrency), currency: row.sourceCurrency });
  return {
    fee: row.feeAmount !== null ? money(row.feeAmount) : null,
    total: row.feeAmount !== null && row.sourceAmount !== null ? money(row.sourceAmount.plus(row.feeAmount)) : null,
    deliveryEstimate: { earliest: row.deliveryEarliest, latest: row.deliveryLatest },
    destinationType: row.destinationType,
    id: row.id,
    ownerId: row.ownerId,
    fxId: row.fxId,
    rate: formatRate(row.rate),
    source: row.sourceAmount !== null ? { amount: formatAmount(row.sourceAmount, row.sourceCurrency), currency: row.sourceCurrency } : null,
    destination:
      row.destinationAmount !== null
        ? { amount: formatAmount(row.destinationAmount, row.destinationCurrency), currency: row.destinationCurrency }
        : null,
    paymentMethod: row.paymentMethod,
    expiresAt: row.expiresAt,
    usedByTransferId: row.usedByTransferId,
  };
}
