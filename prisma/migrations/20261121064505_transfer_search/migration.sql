-- AlterTable
ALTER TABLE "transfers" ADD COLUMN     "destination_country" CHAR(2);

-- CreateIndex
CREATE INDEX "transfers_created_at_id_idx" ON "transfers"("created_at" DESC, "id" DESC);

-- CreateIndex
CREATE INDEX "transfers_send_currency_receive_currency_created_at_id_idx" ON "transfers"("send_currency", "receive_currency", "created_at" DESC, "id" DESC);

-- CreateIndex
CREATE INDEX "transfers_destination_country_created_at_id_idx" ON "transfers"("destination_country", "created_at" DESC, "id" DESC);

-- CreateIndex
CREATE INDEX "transfers_send_currency_send_amount_idx" ON "transfers"("send_currency", "send_amount");

-- Backfill: the destination country of existing transfers, from the recipient address they were submitted with.
UPDATE "transfers" SET "destination_country" = upper("details"->'recipient'->'address'->>'countryCode')
WHERE "destination_country" IS NULL AND length("details"->'recipient'->'address'->>'countryCode') = 2;
