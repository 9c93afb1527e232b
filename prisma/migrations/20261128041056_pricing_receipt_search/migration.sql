-- AlterTable
ALTER TABLE "funding_credentials" ADD COLUMN     "last_four" TEXT;

-- AlterTable
ALTER TABLE "quotes" ADD COLUMN     "delivery_earliest" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
ADD COLUMN     "delivery_latest" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
ADD COLUMN     "destination_type" TEXT,
ADD COLUMN     "fee_amount" DECIMAL(20,6);

-- AlterTable
ALTER TABLE "transfers" ADD COLUMN     "delivery_earliest" TIMESTAMPTZ(3),
ADD COLUMN     "delivery_latest" TIMESTAMPTZ(3),
ADD COLUMN     "fee_amount" DECIMAL(20,6) NOT NULL DEFAULT 0,
ADD COLUMN     "search_terms" TEXT[] DEFAULT ARRAY[]::TEXT[];

-- CreateIndex
CREATE INDEX "transfers_search_terms_idx" ON "transfers" USING GIN ("search_terms");
