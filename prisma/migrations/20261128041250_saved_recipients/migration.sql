-- CreateTable
CREATE TABLE "recipients" (
    "id" TEXT NOT NULL,
    "owner_id" TEXT NOT NULL,
    "details" JSONB NOT NULL,
    "holder_name" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "recipients_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "recipients_owner_id_created_at_id_idx" ON "recipients"("owner_id", "created_at" DESC, "id" DESC);
