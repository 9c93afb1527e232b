-- AlterTable
ALTER TABLE "webhook_inbox" ADD COLUMN     "outcome_reason" TEXT;
