-- Money back: a transfer whose money was taken and is on its way back (REFUND_PENDING), and one whose money went
-- back in full (REFUNDED); what was refunded; when a cancellation after the capture was asked for. Refunds are saga
-- steps (refund:<n>); back-office lists those that need a person by state and age.
-- (PostgreSQL 12 and later add enum values inside a transaction; they are used only by later statements.)
ALTER TYPE "transfer_status" ADD VALUE 'REFUND_PENDING';
ALTER TYPE "transfer_status" ADD VALUE 'REFUNDED';

ALTER TABLE "transfers" ADD COLUMN "cancel_requested_at" TIMESTAMPTZ(3),
ADD COLUMN "refunded_amount" DECIMAL(20,6) NOT NULL DEFAULT 0;

CREATE INDEX "saga_steps_state_updated_at_idx" ON "saga_steps"("state", "updated_at");
