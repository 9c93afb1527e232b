-- CreateTable
CREATE TABLE "verification_owners" (
    "verification_id" TEXT NOT NULL,
    "session_id" TEXT NOT NULL,
    "owner_id" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "verification_owners_pkey" PRIMARY KEY ("verification_id")
);

-- CreateIndex
CREATE INDEX "verification_owners_owner_id_idx" ON "verification_owners"("owner_id");
