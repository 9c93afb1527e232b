import { randomUUID } from 'node:crypto';
import { Prisma, type Quote } from '../../generated/prisma/client';
import type { RawSql } from '../../db/raw-sql';
import { modelColumns, modelFromSql } from '../../db/sql-rows';
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
import type { GatewayClient } from '../../upstream/gateway/gateway.client';
import type { PaymentMethod } from '../../upstream/gateway/gateway.types';

interface QuoteView {
  id: string;
  ownerId: string;
  fxId: string;
  rate: string;
  source: { amount: string; currency: string } | null;
  destination: { amount: string; currency: string } | null;
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
}

interface CorridorView {
  sourceCurrency: string;
  destinationCurrency: string;
  destinationCountry: string | null;
  minAmount: { amount: string; currency: string };
  maxAmount: { amount: string; currency: string };
}

function corridorView(
  rule: CorridorRule,
  sourceCurrency: string,
  destinationCurrency: string,
  destinationCountry: string | null,
): CorridorView {
  const { min, max } = corridorBounds(rule, sourceCurrency);
  return { sourceCurrency, destinationCurrency, destinationCountry, minAmount: min, maxAmount: max };
}

/** FX v2 quotes: asked from the gateway, stored for the caller (single use, see TransferService). */
export class FxService {
  constructor(
    /** Raw statements (Database.sql): a quote is written in one statement beside Prisma's client. */
    private readonly sql: RawSql,
    private readonly gateway: GatewayClient,
    private readonly clock: Clock,
    private readonly corridors: readonly CorridorRule[],
  ) {}

  /** The configured corridors (the `*` and `SRC>*` defaults left out), with their bounds. */
  listCorridors(): CorridorView[] {
    return this.corridors
      .filter((r) => r.sourceCurrency !== null && r.destinationCurrency !== null)
      .map((r) => corridorView(r, r.sourceCurrency!, r.destinationCurrency!, r.destinationCountry));
  }

  /** The rule that applies to one corridor (a configured one, else the default). */
  corridor(sourceCurrency: string, destinationCurrency: string, destinationCountry?: string | null): CorridorView {
    return corridorView(
      corridorRule(this.corridors, sourceCurrency, destinationCurrency, destinationCountry),
      sourceCurrency,
      destinationCurrency,
      destinationCountry ?? null,
    );
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
    const [raw] = await this.sql.query`
      INSERT INTO quotes (id, owner_id, fx_id, rate, source_currency, destination_currency, source_amount, destination_amount,
                          payment_method, destination_country, expires_at, created_at)
      VALUES (${randomUUID()}, ${ownerId}, ${q.fxId}, ${fromJsonNumber(q.conversionRate)}::numeric, ${args.sourceCurrency},
              ${args.destinationCurrency}, ${sourceAmount ?? null}::numeric, ${destinationAmount}::numeric, ${args.paymentMethod},
              ${destinationCountry ?? null}, ${expiresAt}::timestamptz, ${this.clock.now()}::timestamptz)
      RETURNING ${quoteColumns()}`;
    const row = modelFromSql<Quote>(raw!);
    return toQuoteView(row);
  }
}

/** SQL: every column of `quotes` (modelColumns): what a quote is read and returned with. */
export const quoteColumns = modelColumns(Prisma.QuoteScalarFieldEnum);

function toQuoteView(row: Quote): QuoteView {
  return {
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
