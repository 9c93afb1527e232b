-- CreateIndex
CREATE INDEX "transfers_updated_at_id_idx" ON "transfers"("updated_at", "id");
