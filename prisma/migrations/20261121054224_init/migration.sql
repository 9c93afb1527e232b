-- CreateSchema
CREATE SCHEMA IF NOT EXISTS "public";

-- CreateEnum
CREATE TYPE "transfer_status" AS ENUM ('PENDING', 'ACTION_REQUIRED', 'AUTHORIZED', 'CAPTURED', 'PAYOUT_PENDING', 'COMPLETED', 'REJECTED', 'DECLINED', 'VOIDED', 'EXPIRED', 'FAILED');

-- CreateEnum
CREATE TYPE "saga_step_state" AS ENUM ('PENDING', 'SUCCEEDED', 'FAILED', 'UNKNOWN');

-- CreateEnum
CREATE TYPE "idempotency_state" AS ENUM ('IN_PROGRESS', 'COMPLETED');

-- CreateTable
CREATE TABLE "quotes" (
    "id" TEXT NOT NULL,
    "owner_id" TEXT NOT NULL,
    "fx_id" TEXT NOT NULL,
    "rate" DECIMAL(24,12) NOT NULL,
    "source_currency" CHAR(3) NOT NULL,
    "destination_currency" CHAR(3) NOT NULL,
    "source_amount" DECIMAL(20,6),
    "destination_amount" DECIMAL(20,6),
    "payment_method" TEXT NOT NULL,
    "destination_country" TEXT,
    "expires_at" TIMESTAMPTZ(3) NOT NULL,
    "used_by_transfer_id" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "quotes_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "persons" (
    "id" TEXT NOT NULL,
    "owner_id" TEXT NOT NULL,
    "upstream_id" TEXT,
    "status" TEXT NOT NULL,
    "message" TEXT,
    "country_code" VARCHAR(3) NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "persons_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "transfers" (
    "id" TEXT NOT NULL,
    "owner_id" TEXT NOT NULL,
    "status" "transfer_status" NOT NULL DEFAULT 'PENDING',
    "version" INTEGER NOT NULL DEFAULT 0,
    "quote_id" TEXT NOT NULL,
    "person_id" TEXT NOT NULL,
    "send_amount" DECIMAL(20,6) NOT NULL,
    "send_currency" CHAR(3) NOT NULL,
    "receive_amount" DECIMAL(20,6) NOT NULL,
    "receive_currency" CHAR(3) NOT NULL,
    "rate" DECIMAL(24,12) NOT NULL,
    "external_payment_id" TEXT NOT NULL,
    "external_transaction_id" TEXT,
    "funding_type" TEXT NOT NULL,
    "details" JSONB NOT NULL,
    "next_action" JSONB,
    "failure_code" TEXT,
    "failure_message" TEXT,
    "upstream_transaction_status" TEXT,
    "compliance_status" TEXT,
    "payout_status" TEXT,
    "captured_amount" DECIMAL(20,6),
    "authorized_at" TIMESTAMPTZ(3),
    "next_run_at" TIMESTAMPTZ(3),
    "lease_owner" TEXT,
    "lease_until" TIMESTAMPTZ(3),
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "transfers_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "transfer_events" (
    "id" TEXT NOT NULL,
    "transfer_id" TEXT NOT NULL,
    "seq" INTEGER NOT NULL,
    "from_status" "transfer_status",
    "to_status" "transfer_status" NOT NULL,
    "cause" TEXT NOT NULL,
    "actor" TEXT,
    "upstream_ref" TEXT,
    "detail" JSONB,
    "at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "transfer_events_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "saga_steps" (
    "id" TEXT NOT NULL,
    "transfer_id" TEXT NOT NULL,
    "step" TEXT NOT NULL,
    "idempotency_key" TEXT NOT NULL,
    "state" "saga_step_state" NOT NULL DEFAULT 'PENDING',
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "request" JSONB,
    "response" JSONB,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "saga_steps_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "idempotency_records" (
    "scope" TEXT NOT NULL,
    "operation" TEXT NOT NULL,
    "key" TEXT NOT NULL,
    "request_hash" TEXT NOT NULL,
    "state" "idempotency_state" NOT NULL DEFAULT 'IN_PROGRESS',
    "response" JSONB,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "expires_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "idempotency_records_pkey" PRIMARY KEY ("scope","operation","key")
);

-- CreateTable
CREATE TABLE "webhook_inbox" (
    "id" TEXT NOT NULL,
    "dedupe_key" TEXT NOT NULL,
    "event_name" TEXT NOT NULL,
    "payload" JSONB NOT NULL,
    "received_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "processed_at" TIMESTAMPTZ(3),
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "last_error" TEXT,

    CONSTRAINT "webhook_inbox_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "webhook_secrets" (
    "subscription_id" TEXT NOT NULL,
    "encrypted_secret" TEXT NOT NULL,
    "fingerprint" TEXT NOT NULL,
    "rotated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "webhook_secrets_pkey" PRIMARY KEY ("subscription_id")
);

-- CreateIndex
CREATE UNIQUE INDEX "quotes_used_by_transfer_id_key" ON "quotes"("used_by_transfer_id");

-- CreateIndex
CREATE INDEX "quotes_owner_id_created_at_idx" ON "quotes"("owner_id", "created_at" DESC);

-- CreateIndex
CREATE INDEX "persons_owner_id_idx" ON "persons"("owner_id");

-- CreateIndex
CREATE UNIQUE INDEX "transfers_quote_id_key" ON "transfers"("quote_id");

-- CreateIndex
CREATE UNIQUE INDEX "transfers_external_payment_id_key" ON "transfers"("external_payment_id");

-- CreateIndex
CREATE UNIQUE INDEX "transfers_external_transaction_id_key" ON "transfers"("external_transaction_id");

-- CreateIndex
CREATE INDEX "transfers_owner_id_created_at_id_idx" ON "transfers"("owner_id", "created_at" DESC, "id" DESC);

-- CreateIndex
CREATE INDEX "transfers_status_idx" ON "transfers"("status");

-- CreateIndex
CREATE INDEX "transfers_next_run_at_idx" ON "transfers"("next_run_at");

-- CreateIndex
CREATE INDEX "transfers_person_id_idx" ON "transfers"("person_id");

-- CreateIndex
CREATE UNIQUE INDEX "transfer_events_transfer_id_seq_key" ON "transfer_events"("transfer_id", "seq");

-- CreateIndex
CREATE UNIQUE INDEX "saga_steps_idempotency_key_key" ON "saga_steps"("idempotency_key");

-- CreateIndex
CREATE UNIQUE INDEX "saga_steps_transfer_id_step_key" ON "saga_steps"("transfer_id", "step");

-- CreateIndex
CREATE INDEX "idempotency_records_expires_at_idx" ON "idempotency_records"("expires_at");

-- CreateIndex
CREATE UNIQUE INDEX "webhook_inbox_dedupe_key_key" ON "webhook_inbox"("dedupe_key");

-- CreateIndex
CREATE INDEX "webhook_inbox_processed_at_received_at_idx" ON "webhook_inbox"("processed_at", "received_at");

-- AddForeignKey
ALTER TABLE "transfers" ADD CONSTRAINT "transfers_quote_id_fkey" FOREIGN KEY ("quote_id") REFERENCES "quotes"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "transfers" ADD CONSTRAINT "transfers_person_id_fkey" FOREIGN KEY ("person_id") REFERENCES "persons"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "transfer_events" ADD CONSTRAINT "transfer_events_transfer_id_fkey" FOREIGN KEY ("transfer_id") REFERENCES "transfers"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "saga_steps" ADD CONSTRAINT "saga_steps_transfer_id_fkey" FOREIGN KEY ("transfer_id") REFERENCES "transfers"("id") ON DELETE CASCADE ON UPDATE CASCADE;
