-- AlterTable
ALTER TABLE "saga_steps" ADD COLUMN     "last_error" TEXT;

-- CreateTable
CREATE TABLE "transfer_refusals" (
    "id" TEXT NOT NULL,
    "transfer_id" TEXT NOT NULL,
    "from_status" "transfer_status" NOT NULL,
    "to_status" "transfer_status" NOT NULL,
    "cause" TEXT NOT NULL,
    "actor" TEXT,
    "reason" TEXT NOT NULL,
    "detail" JSONB,
    "at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "transfer_refusals_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "transfer_refusals_transfer_id_at_idx" ON "transfer_refusals"("transfer_id", "at");

-- AddForeignKey
ALTER TABLE "transfer_refusals" ADD CONSTRAINT "transfer_refusals_transfer_id_fkey" FOREIGN KEY ("transfer_id") REFERENCES "transfers"("id") ON DELETE CASCADE ON UPDATE CASCADE;
