-- DropIndex
DROP INDEX "webhook_inbox_processed_at_received_at_idx";

-- AlterTable
ALTER TABLE "webhook_inbox" ADD COLUMN     "kind" TEXT NOT NULL,
ADD COLUMN     "next_attempt_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
ADD COLUMN     "outcome" TEXT,
ADD COLUMN     "seq" BIGSERIAL NOT NULL,
ADD COLUMN     "signed" BOOLEAN NOT NULL DEFAULT false,
ADD COLUMN     "stream_key" TEXT NOT NULL;

-- AlterTable
ALTER TABLE "webhook_secrets" ADD COLUMN     "url" TEXT;

-- CreateTable
CREATE TABLE "webhook_stream_leases" (
    "stream_key" TEXT NOT NULL,
    "lease_owner" TEXT NOT NULL,
    "lease_until" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "webhook_stream_leases_pkey" PRIMARY KEY ("stream_key")
);

-- CreateTable
CREATE TABLE "platform_documents" (
    "id" TEXT NOT NULL,
    "entity_id" TEXT NOT NULL,
    "entity_type" TEXT,
    "document_type" TEXT NOT NULL,
    "verification_status" TEXT NOT NULL,
    "occurred_at" TIMESTAMPTZ(3) NOT NULL,
    "tenant_id" TEXT,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "platform_documents_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "platform_agents" (
    "id" TEXT NOT NULL,
    "email" TEXT,
    "business_name" TEXT,
    "external_id" TEXT,
    "status" TEXT NOT NULL,
    "tenant_id" TEXT,
    "platform_created_at" TIMESTAMPTZ(3),
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "platform_agents_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "platform_documents_entity_id_idx" ON "platform_documents"("entity_id");

-- CreateIndex
CREATE UNIQUE INDEX "webhook_inbox_seq_key" ON "webhook_inbox"("seq");

-- CreateIndex
CREATE INDEX "webhook_inbox_processed_at_next_attempt_at_idx" ON "webhook_inbox"("processed_at", "next_attempt_at");

-- CreateIndex
CREATE INDEX "webhook_inbox_stream_key_seq_idx" ON "webhook_inbox"("stream_key", "seq");
