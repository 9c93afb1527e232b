-- transfers.version now counts the changes an app shows; every recorded change is counted by event_seq
-- (the former version column: the seq of the latest audit event, used for optimistic concurrency).
ALTER TABLE "transfers" RENAME COLUMN "version" TO "event_seq";
ALTER TABLE "transfers" ADD COLUMN     "version" INTEGER NOT NULL DEFAULT 0;
UPDATE "transfers" SET "version" = "event_seq";

-- An audit event carries the version it produced (null: a fact kept for the audit trail only) and what an app
-- showed at that version. Existing events each count as a version of their own.
ALTER TABLE "transfer_events" ADD COLUMN     "version" INTEGER,
ADD COLUMN     "shown" JSONB;
UPDATE "transfer_events" SET "version" = "seq";

-- CreateIndex
CREATE UNIQUE INDEX "transfer_events_transfer_id_version_key" ON "transfer_events"("transfer_id", "version");
