-- CreateTable
CREATE TABLE "verification_session_owners" (
    "session_id" TEXT NOT NULL,
    "owner_id" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "verification_session_owners_pkey" PRIMARY KEY ("session_id")
);

-- CreateTable
CREATE TABLE "wallet_owners" (
    "wallet_id" TEXT NOT NULL,
    "owner_id" TEXT NOT NULL,
    "account_asset" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "wallet_owners_pkey" PRIMARY KEY ("wallet_id")
);

-- CreateTable
CREATE TABLE "agents" (
    "id" TEXT NOT NULL,
    "email" TEXT NOT NULL,
    "business_name" TEXT NOT NULL,
    "external_id" TEXT,
    "status" TEXT NOT NULL,
    "created_by" TEXT NOT NULL,
    "upstream_created_at" TIMESTAMPTZ(3) NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "agents_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "verification_session_owners_owner_id_idx" ON "verification_session_owners"("owner_id");

-- CreateIndex
CREATE INDEX "wallet_owners_owner_id_created_at_idx" ON "wallet_owners"("owner_id", "created_at" DESC);

-- CreateIndex
CREATE INDEX "agents_created_at_id_idx" ON "agents"("created_at" DESC, "id" DESC);
