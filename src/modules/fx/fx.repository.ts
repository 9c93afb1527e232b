import { randomUUID } from 'node:crypto';
import type { RawSql } from '../../db/raw-sql';
import { modelColumns, modelFromSql } from '../../db/sql-rows';
import { Prisma, type Quote } from '../../generated/prisma/client';

/** SQL: every column of `quotes` (modelColumns): what a quote is read and returned with. */
const quoteColumns = modelColumns(Prisma.QuoteScalarFieldEnum);

/** A new quote's columns, amounts as decimal strings (the id is the repository's, the owner the caller's). */
export interface NewQuote {
  fxId: string;
  rate: string;
  sourceCurrency: string;
  destinationCurrency: string;
  sourceAmount: string | null;
  destinationAmount: string | null;
  paymentMethod: string;
  destinationCountry: string | null;
  destinationType: string | null;
  feeAmount: string | null;
  deliveryEarliest: Date | null;
  deliveryLatest: Date | null;
  expiresAt: Date;
  createdAt: Date;
}

/** The quotes the service writes: one statement per quote (beside Prisma's client, on the hot path). */
export class QuoteRepository {
  constructor(private readonly sql: RawSql) {}

  async insert(ownerId: string, q: NewQuote): Promise<Quote> {
    const [raw] = await this.sql.query`
      INSERT INTO quotes (id, owner_id, fx_id, rate, source_currency, destination_currency, source_amount, destination_amount,
                          payment_method, destination_country, destination_type, fee_amount, delivery_earliest, delivery_latest,
                          expires_at, created_at)
      VALUES (${randomUUID()}, ${ownerId}, ${q.fxId}, ${q.rate}::numeric, ${q.sourceCurrency},
              ${q.destinationCurrency}, ${q.sourceAmount}::numeric, ${q.destinationAmount}::numeric, ${q.paymentMethod},
              ${q.destinationCountry}, ${q.destinationType}, ${q.feeAmount}::numeric, ${q.deliveryEarliest}::timestamptz,
              ${q.deliveryLatest}::timestamptz, ${q.expiresAt}::timestamptz, ${q.createdAt}::timestamptz)
      RETURNING ${quoteColumns()}`;
    return modelFromSql<Quote>(raw!);
  }
}
