-- AlterTable
ALTER TABLE "transfers" ADD COLUMN     "wake_seq" INTEGER NOT NULL DEFAULT 0;
