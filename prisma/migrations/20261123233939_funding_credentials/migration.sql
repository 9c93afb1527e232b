-- CreateTable
CREATE TABLE "funding_credentials" (
    "token_hash" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "owner_id" TEXT NOT NULL,
    "checked_at" TIMESTAMPTZ(3) NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "funding_credentials_pkey" PRIMARY KEY ("token_hash")
);

-- CreateIndex
CREATE INDEX "funding_credentials_owner_id_idx" ON "funding_credentials"("owner_id");
